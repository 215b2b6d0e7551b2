/// Headroom and edges: the subject must not be cut by the frame edge, nor crowd it, nor fill the frame.
///
/// With the normalised subject box and its margins `left = x`, `top = y`, `right = 1 - x - w`,
/// `bottom = 1 - y - h`:
/// - a side is *cut* when its margin is `<= cut` (0.01: the box touches the edge);
/// - a side is *tight* when its margin is `< margin` (0.05) — on top, this is the headroom;
/// - the subject *does not fit* when `max(w, h) > maxFill` (0.8), or when it cannot get `margin` on
///   both sides of an axis (`w > 1 - 2·margin` with both left and right tight, same for height).
/// ```
/// clearance = min(1, min(left, top, right, bottom) / margin)
/// fill = max(w, h) <= maxFill ? 1 : max(0, 1 - (max(w, h) - maxFill) / (1 - maxFill))
/// score = clearance · fill          wellComposed = no side tight and the subject fits
/// ```
/// Advice, first that applies: does not fit -> "step back or zoom out: the subject does not fit the
/// frame"; cut -> "step back: the subject is cut at the top edge" when the box is larger than half the
/// frame on that axis, else "move the subject down: it is cut at the top edge"; tight ->
/// "leave headroom: move the subject down" (top) or "give the subject room: move it right (too close to
/// the left edge)"; otherwise "the subject is clear of the edges".
/// Target: the centre moved so every tight side gets `margin` (the frame centre when it does not
/// fit). Details: `left`, `top`, `right`, `bottom`, `clearance`, `fill`, `cut` (number of cut sides).
public struct EdgesRule: CompositionRule {
    /// `"edges"`.
    public let name = "edges"
    /// A check: in `auto`, a cut or crowded subject overrides the placement advice.
    public var role: RuleRole { .check }
    /// Comfortable gap to every edge (normalised).
    public var margin: Double
    /// Gap at or below which the subject counts as cut.
    public var cut: Double
    /// Largest subject width or height share before "step back".
    public var maxFill: Double

    /// Creates the rule (margin 0.05, cut 0.01, maxFill 0.8 by default).
    public init(margin: Double = 0.05, cut: Double = 0.01, maxFill: Double = 0.8) {
        self.margin = margin; self.cut = cut; self.maxFill = maxFill
    }

    /// Judges the subject's clearance from the frame edges.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let s = input.subject, let c = input.subjectCenter else { return .noSubject(rule: name) }
        let left = s.x, top = s.y, right = 1 - s.x - s.width, bottom = 1 - s.y - s.height
        let clearance = max(0, min(1, min(left, top, right, bottom) / margin))
        let big = max(s.width, s.height)
        let fill = big <= maxFill ? 1 : max(0, 1 - (big - maxFill) / (1 - maxFill))
        let tight = (left: left < margin, top: top < margin, right: right < margin, bottom: bottom < margin)
        let cutSides = [left, top, right, bottom].filter { $0 <= cut }.count
        let fits =
            big <= maxFill
            && !(tight.left && tight.right && s.width > 1 - 2 * margin)
            && !(tight.top && tight.bottom && s.height > 1 - 2 * margin)
        let details = [
            "left": left, "top": top, "right": right, "bottom": bottom,
            "clearance": clearance, "fill": fill, "cut": Double(cutSides),
        ]
        let score = clearance * fill
        guard fits else {
            let t = Point2D(x: 0.5, y: 0.5)
            return RuleResult(
                rule: name, score: score, wellComposed: false, target: t, direction: Vector2D(from: c, to: t),
                advice: "step back or zoom out: the subject does not fit the frame", adviceKey: "edges.zoom-out",
                details: details)
        }
        // Move the centre so each tight side gets the margin.
        var dx = 0.0, dy = 0.0
        if tight.left { dx += margin - left }
        if tight.right { dx -= margin - right }
        if tight.top { dy += margin - top }
        if tight.bottom { dy -= margin - bottom }
        let t = Point2D(x: c.x + dx, y: c.y + dy)
        let v = Vector2D(dx: dx, dy: dy)
        guard let dir = MoveDirection(v) else {
            return RuleResult(
                rule: name, score: score, wellComposed: true, target: c, direction: .zero,
                advice: "the subject is clear of the edges", adviceKey: "edges.clear", details: details)
        }
        // The edge that matters most: a cut one first, then the tightest.
        let sides: [(String, Double, Bool, Double)] = [
            ("left", left, tight.left, s.width), ("top", top, tight.top, s.height),
            ("right", right, tight.right, s.width), ("bottom", bottom, tight.bottom, s.height),
        ]
        let worst = sides.filter { $0.2 }.min { $0.1 < $1.1 }!
        let advice: String, key: String
        if worst.1 <= cut {
            if worst.3 > 0.5 {
                advice = "step back: the subject is cut at the \(worst.0) edge"; key = "edges.step-back"
            } else {
                advice = "move the subject \(dir.phrase): it is cut at the \(worst.0) edge"; key = "edges.cut.\(dir.rawValue)"
            }
        } else if worst.0 == "top" && dir == .down {
            advice = "leave headroom: move the subject down"; key = "edges.headroom"
        } else {
            advice = "give the subject room: move it \(dir.phrase) (too close to the \(worst.0) edge)"; key = "edges.close.\(dir.rawValue)"
        }
        return RuleResult(
            rule: name, score: score, wellComposed: false, target: t, direction: v,
            advice: advice, adviceKey: key, details: details)
    }
}
