/// Draws `GridStyle` guide lines with cairo.
///
/// Axis-aligned lines (thirds, golden, crosshair, center) are drawn crisp, without antialiasing, and
/// always cover the pixel column/row containing their exact position (`Int(w/3)` for a third); see
/// `Canvas.strokeVerticalLine`. Diagonals and spirals are antialiased.
public enum GridRenderer {
    /// Renders `style` onto a new transparent `width` x `height` image.
    public static func render(_ style: GridStyle, width: Int, height: Int) -> BGRAImage {
        let canvas = Canvas(width: width, height: height)
        draw(style, on: canvas)
        return canvas.image()
    }

    /// Draws `style` over whatever `canvas` already holds, sized to the whole canvas.
    public static func draw(_ style: GridStyle, on canvas: Canvas) {
        let w = Double(canvas.width), h = Double(canvas.height)
        let lw = style.lineWidth(forHeight: canvas.height)
        let color = style.color
        for line in style.lines {
            switch line {
            case .thirds:
                axisLines(fractions: [1.0 / 3, 2.0 / 3], on: canvas, color: color, width: lw)
            case .golden:
                let small = 1 / (GoldenSpiral.phi * GoldenSpiral.phi)
                axisLines(fractions: [small, 1 - small], on: canvas, color: color, width: lw)
            case .center:
                axisLines(fractions: [0.5], on: canvas, color: color, width: lw)
            case .crosshair:
                let half = crosshairLength(width: canvas.width, height: canvas.height) / 2
                canvas.strokeVerticalLine(x: w / 2, from: h / 2 - half, to: h / 2 + half, color: color, width: lw)
                // Leave the vertical bar's pixels alone so a translucent colour does not double up.
                let (start, span) = Canvas.alignedSpan(at: w / 2, width: lw)
                canvas.strokeHorizontalLine(y: h / 2, from: w / 2 - half, to: start, color: color, width: lw)
                canvas.strokeHorizontalLine(y: h / 2, from: start + span, to: w / 2 + half, color: color, width: lw)
            case .diagonals:
                canvas.strokeLine(from: (0, 0), to: (w, h), color: color, width: lw)
                canvas.strokeLine(from: (w, 0), to: (0, h), color: color, width: lw)
            case .spiralTopLeft, .spiralTopRight, .spiralBottomLeft, .spiralBottomRight:
                if let spiral = line.spiral {
                    canvas.strokeGoldenSpiral(
                        spiral, width: w, height: h, color: color, lineWidth: lw,
                        subdivisionColor: color.withAlpha(color.alpha / 2))
                }
            case .none:
                break
            }
        }
        if !style.guides.isEmpty { drawGuides(style.guides, on: canvas, color: color, width: lw) }
    }

    /// Draws guide segments: full-height verticals and full-width horizontals crisp, exactly as the
    /// `GridLine` families are drawn (horizontals split around the verticals), any other segment antialiased.
    private static func drawGuides(_ guides: [GuideSegment], on canvas: Canvas, color: RGBAColor, width lw: Double) {
        let w = Double(canvas.width), h = Double(canvas.height)
        let xs = guides.filter(\.isFullVertical).map(\.x0).sorted()
        let ys = guides.filter(\.isFullHorizontal).map(\.y0).sorted()
        axisLines(xs: xs, ys: ys, on: canvas, color: color, width: lw)
        for g in guides where !g.isFullVertical && !g.isFullHorizontal {
            canvas.strokeLine(from: (g.x0 * w, g.y0 * h), to: (g.x1 * w, g.y1 * h), color: color, width: lw)
        }
    }

    /// Length in pixels of each crosshair bar: 4% of the shorter side, at least 3 pixels.
    public static func crosshairLength(width: Int, height: Int) -> Double {
        max(3, (Double(min(width, height)) * 0.04).rounded())
    }

    /// Full-length vertical and horizontal lines at `fractions` of each axis.
    private static func axisLines(fractions: [Double], on canvas: Canvas, color: RGBAColor, width lw: Double) {
        axisLines(xs: fractions, ys: fractions, on: canvas, color: color, width: lw)
    }

    /// Full-height vertical lines at fractions `xs` of the width, then full-width horizontal lines at
    /// fractions `ys` of the height (`xs` ascending).
    private static func axisLines(xs: [Double], ys: [Double], on canvas: Canvas, color: RGBAColor, width lw: Double) {
        let w = Double(canvas.width), h = Double(canvas.height)
        for f in xs {
            canvas.strokeVerticalLine(x: w * f, from: 0, to: h, color: color, width: lw)
        }
        for f in ys {
            // Split horizontal lines around the vertical ones so translucent crossings are not doubled.
            var x = 0.0
            for g in xs {
                let (start, span) = Canvas.alignedSpan(at: w * g, width: lw)
                canvas.strokeHorizontalLine(y: h * f, from: x, to: start, color: color, width: lw)
                x = start + span
            }
            canvas.strokeHorizontalLine(y: h * f, from: x, to: w, color: color, width: lw)
        }
    }
}
