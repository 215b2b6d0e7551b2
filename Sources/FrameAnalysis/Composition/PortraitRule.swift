/// Portrait framing: the eyes on the upper third line, headroom above the face, and room on the side the
/// face looks to.
///
/// With `s` the subject box, `c` its centre (`RuleInput.subjectCenter`), all normalised:
/// ```
/// eye line  e = mean y of the two eyes (RuleInput.eyes), else s.y + eyeDepth · s.height   (eyeDepth 0.4)
/// look room x* = 1/3 when look >= lookThreshold (looks right: room on the right)
///               2/3 when look <= -lookThreshold (looks left: room on the left)
///               else the nearest of 1/3, 1/2, 2/3 to c.x  (frontal or unknown: centred is fine too)
/// target    t = (x*, c.y + (1/3 - e))      the subject's centre where its eyes are on the line
/// d = |t - c|                               position = max(0, 1 - d / (√2/3))
/// headroom  h = s.y (empty frame above the face box)
///           factor = 0.5 when h < minHeadroom (0.01: the head touches or leaves the top edge)
///                    max(0.5, 1 - 1.5 · (h - maxHeadroom)) when h > maxHeadroom (1/3)
///                    1 otherwise
/// score = position · factor        wellComposed = d < tolerance (0.1) and minHeadroom <= h <= maxHeadroom
/// ```
/// Why these numbers:
/// - `eyeDepth` 0.4: the eyes sit 35-45 % down a brows-to-chin face box (astronaut's cnn box 63...175 has
///   its eyes at y 101-102: 0.34); a box without eyes is a cascade's or a group's, whose tops sit lower on
///   the forehead or at the tallest member.
/// - the distance scale `√2/3` is the thirds rule's (its farthest point), so `auto` compares like with like;
///   eyes more than 0.47 from their target score 0 on position.
/// - `tolerance` 0.1, a little under thirds' 0.12: the line is one line, not a point among four, and eyes in
///   the middle of the frame (0.167 below the line) must not count; eyes at 0.43 still do.
/// - `lookThreshold` 0.3: `look` is about `0.8 · tan(yaw)` (`CNNFaceEngine.look`), so 0.3 is a head turned
///   ~20°; below it a face reads as frontal and needs no look room.
/// - `minHeadroom` 0.01: engines cut boxes to the image, so a head out of the frame shows as a box top at 0.
/// - `maxHeadroom` 1/3: with the eyes on the line the box top is `1/3 - 0.4 · height`, always under 1/3, so
///   more than a third of the frame empty above the face means the subject sits low, whatever its size.
///
/// Kinds: faces, profile faces and groups (whose eye line is estimated from the union box and whose look is
/// the members' mean); a body or a salient region is not a portrait: "looking for a face" (score 0, key
/// `portrait.no-face`), and so is a subject of unknown kind (nil: an input built by hand must say it is a
/// face), so that in `auto` portrait competes only for people.
///
/// Advice, in order: "step back: the face fills the frame" (the eye line cannot reach 1/3 without cutting
/// the head, `portrait.step-back`); "leave headroom: move the subject down (the head touches the top
/// edge)" (`portrait.headroom.cut`); "hold: the eyes sit on the upper third line" (+ ", with room where they
/// look" for a turned face; `portrait.hold`); "too much headroom: move the subject up"
/// (`portrait.headroom.<dir>`); then by the larger error: "move the subject down so the eyes sit on the
/// upper third line" (`portrait.eyes.<dir>`), "leave room on the right where they look: move the subject
/// left" (`portrait.look-room.<dir>`) or "move the subject left" (`portrait.move.<dir>`).
/// Details: `eyeLine` (e), `eyeOffset` (e - 1/3, + = below the line), `eyesEstimated` (0/1), `headroom` (h),
/// `look` (-1...1; absent when unknown), `lookRoom` (share of the frame on the side looked to, `1 - c.x`
/// looking right, `c.x` looking left; -1 when the look is unknown or frontal), `distance` (d), `targetX`,
/// `targetY`.
public struct PortraitRule: CompositionRule {
    /// `"portrait"`.
    public let name = "portrait"
    /// Distance under which the frame counts as well composed (with headroom in range).
    public var tolerance: Double
    /// |look| from which the face needs room on the side it looks to.
    public var lookThreshold: Double
    /// Share of the frame height the face box top must keep from the top edge.
    public var minHeadroom: Double
    /// Largest share of the frame height left empty above the face box.
    public var maxHeadroom: Double
    /// Where the eye line lies in a box without eyes, as a share of its height from the top.
    public var eyeDepth: Double

    /// Creates the rule (0.1, 0.3, 0.01, 1/3, 0.4 by default).
    public init(
        tolerance: Double = 0.1, lookThreshold: Double = 0.3, minHeadroom: Double = 0.01, maxHeadroom: Double = 1.0 / 3,
        eyeDepth: Double = 0.4
    ) {
        self.tolerance = tolerance; self.lookThreshold = lookThreshold; self.minHeadroom = minHeadroom
        self.maxHeadroom = maxHeadroom; self.eyeDepth = eyeDepth
    }

    /// The upper third line and the two vertical third lines; points where the eyes go (the upper
    /// intersections).
    public var marks: RuleMarks {
        RuleMarks(
            points: [Point2D(x: 1.0 / 3, y: 1.0 / 3), Point2D(x: 2.0 / 3, y: 1.0 / 3)],
            lines: [.horizontal(y: 1.0 / 3), .vertical(x: 1.0 / 3), .vertical(x: 2.0 / 3)])
    }

    /// Judges the eye line, the headroom and the look room, as documented on the type.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let s = input.subject, let c = input.subjectCenter else { return .noSubject(rule: name) }
        guard let k = input.kind, [.face, .profileFace, .group].contains(k) else {
            return RuleResult(
                rule: name, score: 0, wellComposed: false, target: nil, direction: .zero,
                advice: "looking for a face", adviceKey: "portrait.no-face")
        }
        let line = 1.0 / 3
        let eyeLine = input.eyes.map { ($0.left.y + $0.right.y) / 2 } ?? (s.y + eyeDepth * s.height)
        let look = input.look
        let turned = look.map { abs($0) >= lookThreshold } ?? false
        let x: Double
        if let l = look, turned {
            x = l > 0 ? 1.0 / 3 : 2.0 / 3
        } else {
            x = [1.0 / 3, 0.5, 2.0 / 3].min { abs($0 - c.x) < abs($1 - c.x) } ?? 0.5
        }
        let t = Point2D(x: x, y: c.y + (line - eyeLine))
        let v = Vector2D(from: c, to: t)
        let d = v.length
        let headroom = s.y
        let cut = headroom < minHeadroom, low = headroom > maxHeadroom
        var factor = 1.0
        if cut { factor = 0.5 } else if low { factor = max(0.5, 1 - 1.5 * (headroom - maxHeadroom)) }
        let score = max(0, 1 - d / (2.0.squareRoot() / 3)) * factor
        let well = d < tolerance && !cut && !low
        var details: [String: Double] = [
            "eyeLine": eyeLine, "eyeOffset": eyeLine - line, "eyesEstimated": input.eyes == nil ? 1 : 0,
            "headroom": headroom, "distance": d, "targetX": t.x, "targetY": t.y,
            "lookRoom": turned ? ((look ?? 0) > 0 ? 1 - c.x : c.x) : -1,
        ]
        if let look { details["look"] = look }
        let (advice, key) = self.advice(v: v, well: well, cut: cut, low: low, look: turned ? look : nil, eyeDepthInBox: eyeLine - s.y)
        return RuleResult(
            rule: name, score: score, wellComposed: well, target: t, direction: v, advice: advice, adviceKey: key,
            details: details)
    }

    /// The advice for a subject that should move by `v`, in the order documented on the type; `look` only
    /// for a turned face.
    private func advice(
        v: Vector2D, well: Bool, cut: Bool, low: Bool, look: Double?, eyeDepthInBox: Double
    ) -> (String, String) {
        // The box top when the eyes are on the line: below minHeadroom means no placement keeps the head in.
        if 1.0 / 3 - eyeDepthInBox < minHeadroom { return ("step back: the face fills the frame", "portrait.step-back") }
        if cut { return ("leave headroom: move the subject down (the head touches the top edge)", "portrait.headroom.cut") }
        guard !well, let dir = MoveDirection(v) else {
            return (look != nil ? "hold: the eyes sit on the upper third line, with room where they look"
                : "hold: the eyes sit on the upper third line", "portrait.hold")
        }
        if low { return ("too much headroom: move the subject \(dir.phrase)", "portrait.headroom.\(dir.rawValue)") }
        if abs(v.dy) >= abs(v.dx) {
            return ("move the subject \(dir.phrase) so the eyes sit on the upper third line", "portrait.eyes.\(dir.rawValue)")
        }
        if let look {
            let side = look > 0 ? "right" : "left"
            return ("leave room on the \(side) where they look: move the subject \(dir.phrase)", "portrait.look-room.\(dir.rawValue)")
        }
        return ("move the subject \(dir.phrase)", "portrait.move.\(dir.rawValue)")
    }
}
