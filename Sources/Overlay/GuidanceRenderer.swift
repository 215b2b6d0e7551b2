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

    /// Creates a drawing.
    public init(subject: (x: Double, y: Double, width: Double, height: Double)?, target: (x: Double, y: Double)?,
                advice: String, rule: String, score: Double, wellComposed: Bool, locked: Bool, grid: [GridLine]) {
        self.subject = subject; self.target = target; self.advice = advice; self.rule = rule
        self.score = score; self.wellComposed = wellComposed; self.locked = locked; self.grid = grid
    }

    /// Equal when every drawn value is equal (tuples compared field by field).
    public static func == (a: GuidanceDrawing, b: GuidanceDrawing) -> Bool {
        a.advice == b.advice && a.rule == b.rule && a.score == b.score && a.wellComposed == b.wellComposed &&
            a.locked == b.locked && a.grid == b.grid &&
            a.subject.map { [$0.x, $0.y, $0.width, $0.height] } == b.subject.map { [$0.x, $0.y, $0.width, $0.height] } &&
            a.target.map { [$0.x, $0.y] } == b.target.map { [$0.x, $0.y] }
    }
}

/// Draws guidance with cairo/pango: the rule's grid, the subject box, the target point, an arrow
/// from subject to target, the advice on a readable backdrop and a score bar. Sizes scale with the
/// frame height (reference 1080 px) and `textScale`.
public enum GuidanceRenderer {
    /// Colour of the box and arrow while the frame does not follow the rule.
    public static let adjustColor = RGBAColor(red: 1, green: 0.78, blue: 0.1, alpha: 0.95)
    /// Colour once the frame follows the rule.
    public static let goodColor = RGBAColor(red: 0.2, green: 0.9, blue: 0.35, alpha: 0.95)
    /// Backdrop behind text.
    public static let backdrop = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.6)

    /// Renders the drawing into a transparent image of the frame's size.
    public static func render(_ d: GuidanceDrawing, width: Int, height: Int, textScale: Double = 1) -> BGRAImage {
        let canvas = Canvas(width: width, height: height)
        draw(d, on: canvas, textScale: textScale)
        return canvas.image()
    }

    /// Line width in pixels for this frame height (3 px at 1080p, at least 1).
    public static func lineWidth(height: Int) -> Double { max(1, (3 * Double(height) / 1080).rounded()) }

    /// Draws onto an existing canvas.
    public static func draw(_ d: GuidanceDrawing, on canvas: Canvas, textScale: Double = 1) {
        let w = Double(canvas.width), h = Double(canvas.height)
        let lw = lineWidth(height: canvas.height)
        if !d.grid.isEmpty {
            GridRenderer.draw(GridStyle(lines: d.grid, color: RGBAColor(red: 1, green: 1, blue: 1, alpha: 0.5), width: 2), on: canvas)
        }
        let color = d.wellComposed ? goodColor : adjustColor
        var center: (Double, Double)?
        if let s = d.subject {
            canvas.strokeRect(x: s.x * w, y: s.y * h, width: s.width * w, height: s.height * h, color: color, lineWidth: lw)
            center = ((s.x + s.width / 2) * w, (s.y + s.height / 2) * h)
        }
        if let t = d.target {
            let r = max(4, 10 * h / 1080)
            canvas.strokeCircle(center: (t.x * w, t.y * h), radius: r, color: color, width: lw)
            if let c = center, !d.wellComposed {
                arrow(on: canvas, from: c, to: (t.x * w, t.y * h), color: color, width: lw, head: max(8, 24 * h / 1080))
            }
        }
        let font = max(10, 36 * h / 1080 * textScale)
        let pad = font / 2
        // Score bar, top left: the bar's filled length is the score.
        let label = "\(d.rule) \(Int((d.score * 100).rounded()))%\(d.locked ? " locked" : "")"
        let size = canvas.drawText(label, x: pad, y: pad, fontSize: font * 0.75, color: .white, backdrop: backdrop)
        let barY = pad + size.height + pad / 2, barW = max(40, 300 * h / 1080 * textScale), barH = max(4, 12 * h / 1080 * textScale)
        canvas.fillRect(x: pad, y: barY, width: barW, height: barH, color: backdrop)
        canvas.fillRect(x: pad, y: barY, width: barW * min(1, max(0, d.score)), height: barH, color: color)
        if !d.advice.isEmpty {
            let m = canvas.measureText(d.advice, fontSize: font, backdrop: true)
            canvas.drawText(d.advice, x: max(pad, (w - m.width) / 2), y: h - m.height - pad, fontSize: font, color: .white, backdrop: backdrop)
        }
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
