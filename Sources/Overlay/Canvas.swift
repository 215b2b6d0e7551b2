import CCairo

/// A cairo ARGB32 drawing surface of a fixed size.
///
/// Coordinates are pixels with the origin at the top-left corner and y growing downwards. All drawing
/// goes through cairo (pango for text); the canvas owns its surface and context and is not `Sendable`:
/// use one canvas per thread.
public final class Canvas {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    /// The cairo image surface (`cairo_surface_t *`), owned.
    private let surface: OpaquePointer
    /// The cairo context drawing on `surface` (`cairo_t *`), owned.
    private let cr: OpaquePointer

    /// Font family used by `drawText`.
    public static let fontFamily = "DejaVu Sans"

    /// A transparent canvas of `width` x `height` pixels (both at least 0).
    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "Canvas size must not be negative (\(width)x\(height))")
        self.width = width
        self.height = height
        guard let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
            let c = cairo_create(s)
        else {
            preconditionFailure("cairo could not create a \(width)x\(height) surface")
        }
        surface = s
        cr = c
        precondition(
            cairo_surface_status(s) == CAIRO_STATUS_SUCCESS,
            "cairo could not create a \(width)x\(height) surface")
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Moves the origin: later drawing at (x, y) lands at (x + dx, y + dy) (a sprite drawn in frame coordinates).
    public func translate(dx: Double, dy: Double) {
        cairo_translate(cr, dx, dy)
    }

    /// Makes every pixel fully transparent.
    public func clear() {
        cairo_save(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// Fills the whole canvas with `color`, replacing what was there.
    public func fill(_ color: RGBAColor) {
        cairo_save(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        setSource(color)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    // MARK: - Lines and shapes

    /// Strokes an antialiased straight line of `width` pixels with butt caps.
    public func strokeLine(from: (Double, Double), to: (Double, Double), color: RGBAColor, width: Double) {
        cairo_save(cr)
        cairo_move_to(cr, from.0, from.1)
        cairo_line_to(cr, to.0, to.1)
        stroke(color: color, width: width)
        cairo_restore(cr)
    }

    /// Draws a crisp vertical line centred on `x`, from `y0` to `y1`, without antialiasing.
    ///
    /// The width is rounded to whole pixels (at least 1). The line always covers the pixel column that
    /// contains `x` (`Int(x.rounded(.down))`): odd widths are centred on that column, even widths on the
    /// pixel edge nearest to `x`.
    public func strokeVerticalLine(x: Double, from y0: Double, to y1: Double, color: RGBAColor, width: Double) {
        let (start, span) = Canvas.alignedSpan(at: x, width: width)
        fillAligned(x: start, y: min(y0, y1), width: span, height: abs(y1 - y0), color: color)
    }

    /// Draws a crisp horizontal line centred on `y`, from `x0` to `x1`, without antialiasing.
    ///
    /// Same pixel placement as `strokeVerticalLine`, with rows instead of columns.
    public func strokeHorizontalLine(y: Double, from x0: Double, to x1: Double, color: RGBAColor, width: Double) {
        let (start, span) = Canvas.alignedSpan(at: y, width: width)
        fillAligned(x: min(x0, x1), y: start, width: abs(x1 - x0), height: span, color: color)
    }

    /// Strokes the outline of a rectangle; the stroke is centred on the rectangle's edges.
    public func strokeRect(
        x: Double, y: Double, width w: Double, height h: Double,
        color: RGBAColor, lineWidth: Double
    ) {
        cairo_save(cr)
        cairo_rectangle(cr, x, y, w, h)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER)
        stroke(color: color, width: lineWidth)
        cairo_restore(cr)
    }

    /// Fills a rectangle with `color`.
    public func fillRect(x: Double, y: Double, width w: Double, height h: Double, color: RGBAColor) {
        cairo_save(cr)
        cairo_rectangle(cr, x, y, w, h)
        setSource(color)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Fills a rectangle whose corners are rounded with `radius` (clamped to half the shorter side).
    public func fillRoundedRect(
        x: Double, y: Double, width w: Double, height h: Double,
        radius: Double, color: RGBAColor
    ) {
        cairo_save(cr)
        roundedRectPath(x: x, y: y, width: w, height: h, radius: radius)
        setSource(color)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Strokes a polyline through `points` (closed back to the first point when `closed`), round joins.
    public func strokePath(points: [(Double, Double)], closed: Bool = false, color: RGBAColor, width: Double) {
        guard let first = points.first else { return }
        cairo_save(cr)
        cairo_move_to(cr, first.0, first.1)
        for p in points.dropFirst() { cairo_line_to(cr, p.0, p.1) }
        if closed { cairo_close_path(cr) }
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        stroke(color: color, width: width)
        cairo_restore(cr)
    }

    /// Fills the polygon through `points`.
    public func fillPolygon(points: [(Double, Double)], color: RGBAColor) {
        guard let first = points.first else { return }
        cairo_save(cr)
        cairo_move_to(cr, first.0, first.1)
        for p in points.dropFirst() { cairo_line_to(cr, p.0, p.1) }
        cairo_close_path(cr)
        setSource(color)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Strokes a circular arc; angles in radians, 0 along +x, increasing clockwise on screen (y down).
    public func strokeArc(
        center: (Double, Double), radius: Double, startAngle: Double, endAngle: Double,
        color: RGBAColor, width: Double
    ) {
        cairo_save(cr)
        cairo_new_path(cr)
        cairo_arc(cr, center.0, center.1, radius, startAngle, endAngle)
        stroke(color: color, width: width)
        cairo_restore(cr)
    }

    /// Strokes a full circle.
    public func strokeCircle(center: (Double, Double), radius: Double, color: RGBAColor, width: Double) {
        strokeArc(center: center, radius: radius, startAngle: 0, endAngle: 2 * Double.pi, color: color, width: width)
    }

    /// Fills a full circle.
    public func fillCircle(center: (Double, Double), radius: Double, color: RGBAColor) {
        cairo_save(cr)
        cairo_new_path(cr)
        cairo_arc(cr, center.0, center.1, radius, 0, 2 * Double.pi)
        setSource(color)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Strokes the golden spiral fitted to the rectangle (`x`, `y`, `width`, `height`); see `GoldenSpiral`.
    ///
    /// The arcs are stroked with `width` pixels whatever the rectangle's aspect ratio. When `subdivisionColor`
    /// is given, the phi rectangle subdivision (the square boundaries) is stroked first in that colour.
    public func strokeGoldenSpiral(
        _ spiral: GoldenSpiral, x: Double = 0, y: Double = 0,
        width w: Double, height h: Double,
        color: RGBAColor, lineWidth: Double, subdivisionColor: RGBAColor? = nil
    ) {
        // Stop once squares are about half a pixel: one canonical unit spans at least min(w, h) / φ pixels.
        let squares = spiral.squares(minimumSide: 0.5 / max(1, min(w, h) / GoldenSpiral.phi))
        cairo_save(cr)
        cairo_translate(cr, x, y)
        applySpiralTransform(spiral, width: w, height: h)
        if let subdivisionColor {
            // The square boundaries: each square's inner edge, which is where the next square starts.
            for sq in squares {
                let (a, b) = sq.innerEdge
                cairo_move_to(cr, a.0, a.1)
                cairo_line_to(cr, b.0, b.1)
            }
            cairo_save(cr)
            cairo_identity_matrix(cr)
            stroke(color: subdivisionColor, width: lineWidth)
            cairo_restore(cr)
        }
        cairo_new_path(cr)
        for sq in squares {
            cairo_arc(cr, sq.center.0, sq.center.1, sq.side, sq.startAngle, sq.startAngle + Double.pi / 2)
        }
        // Stroke in device space so the pen stays round even though the path was stretched to the frame.
        cairo_identity_matrix(cr)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        stroke(color: color, width: lineWidth)
        cairo_restore(cr)
    }

    // MARK: - Text

    /// The size in pixels `drawText` would use for `text` (including backdrop padding when `backdrop`).
    public func measureText(_ text: String, fontSize: Double, backdrop: Bool = false) -> (width: Double, height: Double) {
        let layout = makeLayout(text, fontSize: fontSize)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let (tw, th) = Canvas.pixelSize(of: layout)
        let pad = backdrop ? Canvas.backdropPadding(fontSize: fontSize) : 0
        return (Double(tw) + 2 * pad, Double(th) + 2 * pad)
    }

    /// Draws `text` with its box's top-left corner at (`x`, `y`) in the "DejaVu Sans" family at
    /// `fontSize` pixels, and returns the box size.
    ///
    /// With a `backdrop`, a rounded rectangle in that colour is filled behind the text first, padded by a
    /// quarter of the font size on every side; the returned size then includes the padding. Newlines
    /// start new lines.
    @discardableResult
    public func drawText(
        _ text: String, x: Double, y: Double, fontSize: Double, color: RGBAColor,
        backdrop: RGBAColor?
    ) -> (width: Double, height: Double) {
        let layout = makeLayout(text, fontSize: fontSize)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let (tw, th) = Canvas.pixelSize(of: layout)
        var pad = 0.0
        cairo_save(cr)
        if let backdrop {
            pad = Canvas.backdropPadding(fontSize: fontSize)
            roundedRectPath(x: x, y: y, width: Double(tw) + 2 * pad, height: Double(th) + 2 * pad, radius: pad)
            setSource(backdrop)
            cairo_fill(cr)
        }
        cairo_move_to(cr, x + pad, y + pad)
        setSource(color)
        pango_cairo_show_layout(cr, layout)
        cairo_restore(cr)
        return (Double(tw) + 2 * pad, Double(th) + 2 * pad)
    }

    // MARK: - Output

    /// A copy of the current pixels.
    public func image() -> BGRAImage {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let count = stride * height
        guard count > 0, let data = cairo_image_surface_get_data(surface) else {
            return BGRAImage(
                width: width, height: height, stride: max(stride, width * 4),
                pixels: [UInt8](repeating: 0, count: max(stride, width * 4) * height))
        }
        let pixels = Array(UnsafeBufferPointer(start: data, count: count))
        return BGRAImage(width: width, height: height, stride: stride, pixels: pixels)
    }

    /// Paints a premultiplied BGRA image with its top-left corner at the (translated) origin, blending over.
    public func drawImage(_ img: BGRAImage) {
        guard img.width > 0, img.height > 0,
            let src = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(img.width), Int32(img.height))
        else { return }
        defer { cairo_surface_destroy(src) }
        cairo_surface_flush(src)
        let stride = Int(cairo_image_surface_get_stride(src))
        if let data = cairo_image_surface_get_data(src) {
            img.pixels.withUnsafeBytes { p in
                for y in 0..<img.height {
                    (data + y * stride).update(
                        from: p.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * img.stride, count: img.width * 4)
                }
            }
        }
        cairo_surface_mark_dirty(src)
        cairo_save(cr)
        cairo_set_source_surface(cr, src, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    // MARK: - Internals

    /// Start and length (whole pixels) of a crisp line of `width` centred as close as possible to `position`.
    static func alignedSpan(at position: Double, width: Double) -> (start: Double, length: Double) {
        let px = max(1, width.rounded())
        let odd = Int(px) % 2 == 1
        // Odd widths: centre of the pixel containing `position`; even widths: the nearest pixel edge.
        let centre = odd ? position.rounded(.down) + 0.5 : position.rounded()
        return (centre - px / 2, px)
    }

    /// Fills a rectangle with antialiasing off, so pixel-aligned edges land exactly.
    private func fillAligned(x: Double, y: Double, width w: Double, height h: Double, color: RGBAColor) {
        cairo_save(cr)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE)
        cairo_rectangle(cr, x, y, w, h)
        setSource(color)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    private func setSource(_ color: RGBAColor) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    }

    private func stroke(color: RGBAColor, width: Double) {
        setSource(color)
        cairo_set_line_width(cr, width)
        cairo_stroke(cr)
    }

    private func roundedRectPath(x: Double, y: Double, width w: Double, height h: Double, radius: Double) {
        let r = max(0, min(radius, min(w, h) / 2))
        let halfPi = Double.pi / 2
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -halfPi, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, halfPi)
        cairo_arc(cr, x + r, y + h - r, r, halfPi, Double.pi)
        cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * halfPi)
        cairo_close_path(cr)
    }

    /// Maps the spiral's unit-square coordinates onto a `w` x `h` frame (see `GoldenSpiral.normalizedPoint`).
    private func applySpiralTransform(_ spiral: GoldenSpiral, width w: Double, height h: Double) {
        var m = cairo_matrix_t()
        let t = spiral.unitTransform(landscape: w >= h)
        cairo_matrix_init(&m, t.xx * w, t.yx * h, t.xy * w, t.yy * h, t.x0 * w, t.y0 * h)
        cairo_transform(cr, &m)
    }

    /// A pango layout for `text` in the canvas font at `fontSize` pixels; the caller unrefs it.
    private func makeLayout(_ text: String, fontSize: Double) -> OpaquePointer {
        guard let layout = pango_cairo_create_layout(cr) else {
            preconditionFailure("pango could not create a layout")
        }
        let desc = pango_font_description_new()
        pango_font_description_set_family(desc, Canvas.fontFamily)
        pango_font_description_set_absolute_size(desc, max(1, fontSize) * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    private static func pixelSize(of layout: OpaquePointer) -> (Int, Int) {
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        return (Int(logical.x + logical.width), Int(logical.y + logical.height))
    }

    private static func backdropPadding(fontSize: Double) -> Double {
        (max(1, fontSize) * 0.25).rounded()
    }
}
