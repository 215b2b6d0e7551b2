import Foundation

/// What the guidance overlay shows, in normalised frame coordinates (0...1), independent of how
/// the analysis produced it.
public struct GuidanceDrawing: Sendable, Equatable {
    /// The subject's box, normalised (x, y, width, height), if there is a subject.
    public var subject: (x: Double, y: Double, width: Double, height: Double)?
    /// Where the rule wants the subject's centre, normalised.
    public var target: (x: Double, y: Double)?
    /// One line of advice ("move the subject left"), or empty.
    public var advice: String
    /// Rule name shown next to the score.
    public var rule: String
    /// Score 0...1.
    public var score: Double
    /// Whether the frame follows the rule now.
    public var wellComposed: Bool
    /// Whether it has been well composed for long enough to count as locked.
    public var locked: Bool
    /// Grid lines drawn under everything (the rule's own lines by default).
    public var grid: [GridLine]
    /// The rule's reference points (e.g. the four thirds intersections), normalised, drawn as small crosses.
    public var points: [(x: Double, y: Double)]
    /// The rule's own guide lines (normalised), drawn with the grid.
    public var guides: [GuideSegment]

    /// Creates a drawing.
    public init(
        subject: (x: Double, y: Double, width: Double, height: Double)?, target: (x: Double, y: Double)?,
        advice: String, rule: String, score: Double, wellComposed: Bool, locked: Bool, grid: [GridLine],
        points: [(x: Double, y: Double)] = [], guides: [GuideSegment] = []
    ) {
        self.subject = subject; self.target = target; self.advice = advice; self.rule = rule
        self.score = score; self.wellComposed = wellComposed; self.locked = locked; self.grid = grid; self.points = points
        self.guides = guides
    }

    /// Equal when every drawn value is equal (tuples compared field by field).
    public static func == (a: GuidanceDrawing, b: GuidanceDrawing) -> Bool {
        a.advice == b.advice && a.rule == b.rule && a.score == b.score && a.wellComposed == b.wellComposed && a.locked == b.locked
            && a.grid == b.grid && a.guides == b.guides && a.points.map { [$0.x, $0.y] } == b.points.map { [$0.x, $0.y] }
            && a.subject.map { [$0.x, $0.y, $0.width, $0.height] } == b.subject.map { [$0.x, $0.y, $0.width, $0.height] }
            && a.target.map { [$0.x, $0.y] } == b.target.map { [$0.x, $0.y] }
    }
}

/// A small image placed at (x, y) in the frame.
public struct Sprite: Sendable, Equatable {
    /// Left edge in frame pixels.
    public var x: Int
    /// Top edge in frame pixels.
    public var y: Int
    /// The pixels.
    public var image: BGRAImage
    /// Creates a sprite.
    public init(x: Int, y: Int, image: BGRAImage) { self.x = x; self.y = y; self.image = image }
}

/// Draws guidance with cairo/pango: the rule's grid, the subject box, the target point, an arrow
/// from subject to target, the advice on a readable backdrop and a score bar. Sizes scale with the
/// frame height (reference 1080 px) and `textScale`.
public enum GuidanceRenderer {
    /// Colour of the box and arrow while the frame does not follow the rule.
    public static let adjustColor = RGBAColor(red: 1, green: 0.78, blue: 0.1, alpha: 0.95)
    /// Colour once the frame follows the rule.
    public static let goodColor = RGBAColor(red: 0.2, green: 0.9, blue: 0.35, alpha: 0.95)
    /// Colour of the rule's reference points.
    public static let pointColor = RGBAColor(red: 1, green: 1, blue: 1, alpha: 0.7)
    /// Backdrop behind text.
    public static let backdrop = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.6)

    /// Renders the drawing into a transparent image of the frame's size (tests, share cards).
    public static func render(_ d: GuidanceDrawing, width: Int, height: Int, textScale: Double = 1) -> BGRAImage {
        let canvas = Canvas(width: width, height: height)
        if !d.grid.isEmpty || !d.guides.isEmpty { GridRenderer.draw(gridStyle(d.grid, guides: d.guides), on: canvas) }
        for s in sprites(d, width: width, height: height, textScale: textScale) {
            canvas.translate(dx: Double(s.x), dy: Double(s.y))
            canvas.drawImage(s.image)
            canvas.translate(dx: -Double(s.x), dy: -Double(s.y))
        }
        return canvas.image()
    }

    /// The grid style used under guidance (white at half opacity, 2 px at 1080p).
    public static func gridStyle(_ lines: [GridLine], guides: [GuideSegment] = []) -> GridStyle {
        GridStyle(lines: lines, guides: guides, color: RGBAColor(red: 1, green: 1, blue: 1, alpha: 0.5), width: 2)
    }

    /// Line width in pixels for this frame height (3 px at 1080p, at least 1).
    public static func lineWidth(height: Int) -> Double { max(1, (3 * Double(height) / 1080).rounded()) }

    /// The guidance (without the grid) as small positioned images: the box's four edges, the target
    /// ring, the arrow, the score label with its bar, the advice. Only the pixels under them are
    /// drawn and later blended, so a change of advice or box costs little even at 4K.
    /// `advice: false` leaves the advice line out (a stage that places it itself, see `adviceSprite`).
    public static func sprites(_ d: GuidanceDrawing, width: Int, height: Int, textScale: Double = 1, advice: Bool = true) -> [Sprite] {
        let w = Double(width), h = Double(height)
        let lw = lineWidth(height: height)
        let color = d.wellComposed ? goodColor : adjustColor
        var out: [Sprite] = []
        func sprite(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ draw: (Canvas) -> Void) {
            // Clip to the frame; draw in frame coordinates through a translation.
            let ix0 = max(0, Int(x0.rounded(.down))), iy0 = max(0, Int(y0.rounded(.down)))
            let ix1 = min(width, Int(x1.rounded(.up))), iy1 = min(height, Int(y1.rounded(.up)))
            guard ix1 > ix0, iy1 > iy0 else { return }
            let c = Canvas(width: ix1 - ix0, height: iy1 - iy0)
            c.translate(dx: -Double(ix0), dy: -Double(iy0))
            draw(c)
            out.append(Sprite(x: ix0, y: iy0, image: c.image()))
        }
        // The rule's points: small crosses, so the rule shows without full-height lines (each frame row a
        // line crosses costs a row of GStreamer's blender).
        let arm = max(4, 14 * h / 1080)
        for p in d.points {
            let c = (p.x * w, p.y * h)
            sprite(c.0 - arm - lw, c.1 - arm - lw, c.0 + arm + lw, c.1 + arm + lw) { canvas in
                canvas.strokeLine(from: (c.0 - arm, c.1), to: (c.0 + arm, c.1), color: pointColor, width: lw)
                canvas.strokeLine(from: (c.0, c.1 - arm), to: (c.0, c.1 + arm), color: pointColor, width: lw)
            }
        }
        var center: (Double, Double)?
        if let s = d.subject {
            let (bx, by, bw, bh) = (s.x * w, s.y * h, s.width * w, s.height * h)
            let half = lw / 2
            // Four edges, each its own thin sprite (a box's inside stays untouched).
            for (x0, y0, x1, y1) in [
                (bx - half, by - half, bx + bw + half, by + half), (bx - half, by + bh - half, bx + bw + half, by + bh + half),
                (bx - half, by + half, bx + half, by + bh - half), (bx + bw - half, by + half, bx + bw + half, by + bh - half),
            ] {
                sprite(x0, y0, x1, y1) { $0.fillRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0, color: color) }
            }
            center = (bx + bw / 2, by + bh / 2)
        }
        if let t = d.target {
            let r = max(4, 10 * h / 1080), c = (t.x * w, t.y * h)
            sprite(c.0 - r - lw, c.1 - r - lw, c.0 + r + lw, c.1 + r + lw) {
                $0.strokeCircle(center: c, radius: r, color: color, width: lw)
            }
            if let from = center, !d.wellComposed {
                let head = max(8, 24 * h / 1080)
                sprite(min(from.0, c.0) - head, min(from.1, c.1) - head, max(from.0, c.0) + head, max(from.1, c.1) + head) {
                    arrow(on: $0, from: from, to: c, color: color, width: lw, head: head)
                }
            }
        }
        let font = max(10, 36 * h / 1080 * textScale)
        let pad = font / 2
        // Score label and bar, top left: the bar's filled length is the score.
        let label = scoreLabel(d)
        let measure = Canvas(width: 1, height: 1)
        let size = measure.measureText(label, fontSize: font * 0.75, backdrop: true)
        let barY = pad + size.height + pad / 2, barW = max(40, 300 * h / 1080 * textScale), barH = max(4, 12 * h / 1080 * textScale)
        sprite(pad, pad, pad + max(size.width, barW), barY + barH) { c in
            c.drawText(label, x: pad, y: pad, fontSize: font * 0.75, color: .white, backdrop: backdrop)
            c.fillRect(x: pad, y: barY, width: barW, height: barH, color: backdrop)
            c.fillRect(x: pad, y: barY, width: barW * min(1, max(0, d.score)), height: barH, color: color)
        }
        if advice, let a = adviceSprite(d.advice, width: width, height: height, textScale: textScale) {
            out.append(Sprite(x: a.x, y: max(0, height - a.image.height - a.gap), image: a.image))
        }
        return out
    }

    /// The score label ("thirds 91% locked").
    static func scoreLabel(_ d: GuidanceDrawing) -> String { "\(d.rule) \(Int((d.score * 100).rounded()))%\(d.locked ? " locked" : "")" }

    /// Where `sprites` draws the score label and its bar (top left), clipped to the frame: the text
    /// block a layout must keep other text out of.
    public static func scoreBlock(_ d: GuidanceDrawing, width: Int, height: Int, textScale: Double = 1) -> (
        x: Int, y: Int, width: Int, height: Int
    ) {
        let h = Double(height)
        let font = max(10, 36 * h / 1080 * textScale), pad = font / 2
        let size = Canvas(width: 1, height: 1).measureText(scoreLabel(d), fontSize: font * 0.75, backdrop: true)
        let barY = pad + size.height + pad / 2, barW = max(40, 300 * h / 1080 * textScale), barH = max(4, 12 * h / 1080 * textScale)
        let x0 = Int(pad.rounded(.down)), y0 = Int(pad.rounded(.down))
        let x1 = min(width, Int((pad + max(size.width, barW)).rounded(.up))), y1 = min(height, Int((barY + barH).rounded(.up)))
        return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))
    }

    /// The advice line on its backdrop, centred across: the image, its left edge and the gap it keeps
    /// from the bottom edge (or from the row below it). Nil for empty advice. The caller places it
    /// (`VideoFrame.reserveTextRow`), so other stages' text rows stack instead of overlapping.
    public static func adviceSprite(_ advice: String, width: Int, height: Int, textScale: Double = 1) -> (
        image: BGRAImage, x: Int, gap: Int
    )? {
        guard !advice.isEmpty, width > 0, height > 0 else { return nil }
        let font = max(10, 36 * Double(height) / 1080 * textScale)
        let pad = font / 2
        let m = Canvas(width: 1, height: 1).measureText(advice, fontSize: font, backdrop: true)
        let x = Int(max(pad, (Double(width) - m.width) / 2).rounded(.down))
        let iw = min(width - x, Int(m.width.rounded(.up))), ih = min(height, Int(m.height.rounded(.up)))
        guard iw > 0, ih > 0 else { return nil }
        let c = Canvas(width: iw, height: ih)
        c.drawText(advice, x: 0, y: 0, fontSize: font, color: .white, backdrop: backdrop)
        return (c.image(), x, Int(pad.rounded()))
    }

    /// A line with a filled arrowhead at `to`.
    static func arrow(on canvas: Canvas, from a: (Double, Double), to b: (Double, Double), color: RGBAColor, width: Double, head: Double) {
        let dx = b.0 - a.0, dy = b.1 - a.1
        let len = (dx * dx + dy * dy).squareRoot()
        guard len > head else { return }
        let ux = dx / len, uy = dy / len
        let base = (b.0 - ux * head, b.1 - uy * head)
        canvas.strokeLine(from: a, to: base, color: color, width: width)
        let px = -uy * head / 2, py = ux * head / 2
        canvas.fillPolygon(points: [b, (base.0 + px, base.1 + py), (base.0 - px, base.1 - py)], color: color)
    }
}
