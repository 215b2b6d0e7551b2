/// Rule of thirds: the subject's centre belongs on one of the four intersections of the lines at 1/3
/// and 2/3 of the frame.
///
/// With `c` the subject box's centre and `p` the nearest intersection (normalised coordinates):
/// ```
/// d = |c - p|          wellComposed = d < tolerance (0.12)
/// score = max(0, 1 - d / (√2/3))
/// ```
/// `√2/3 ≈ 0.471` is the farthest any point of the frame can be from its nearest intersection (a
/// corner), so the score spans 0...1: 1 on an intersection, 0 with the centre in a corner. (The issue's
/// `1 - d/√0.5` cannot fall below 0.33 anywhere in the frame, contradicting its own "corner <= 0.3".)
///
/// Target: `p`. Direction: `p - c`. Advice: "move the subject up and left" (eight directions, see
/// `MoveDirection`), or "hold: the subject sits on a thirds point" once well composed.
/// Details: `distance` (d), `targetX`, `targetY`.
public struct ThirdsRule: CompositionRule {
    /// `"thirds"`.
    public let name = "thirds"
    /// Distance under which the frame counts as well composed.
    public var tolerance: Double
    /// The four intersections (1/3 | 2/3, 1/3 | 2/3).
    public static let targets = TargetPoints([
        Point2D(x: 1.0 / 3, y: 1.0 / 3), Point2D(x: 2.0 / 3, y: 1.0 / 3),
        Point2D(x: 1.0 / 3, y: 2.0 / 3), Point2D(x: 2.0 / 3, y: 2.0 / 3),
    ])

    /// The four intersections, and the lines at 1/3 and 2/3 of each axis.
    public var marks: RuleMarks {
        RuleMarks(
            points: Self.targets.points,
            lines: [1.0 / 3, 2.0 / 3].map { GuideLine.vertical(x: $0) } + [1.0 / 3, 2.0 / 3].map { GuideLine.horizontal(y: $0) })
    }

    /// Creates the rule (tolerance 0.12 by default).
    public init(tolerance: Double = 0.12) { self.tolerance = tolerance }

    /// Scores the subject's distance to the nearest intersection.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let c = input.subjectCenter else { return .noSubject(rule: name) }
        let (p, d) = Self.targets.nearest(to: c)
        let (advice, key) = TargetPoints.advice(
            rule: name, from: c, to: p, tolerance: tolerance,
            hold: "hold: the subject sits on a thirds point")
        return RuleResult(
            rule: name, score: Self.targets.score(distance: d), wellComposed: d < tolerance, target: p,
            direction: Vector2D(from: c, to: p), advice: advice, adviceKey: key,
            details: ["distance": d, "targetX": p.x, "targetY": p.y])
    }
}
