/// Golden ratio placement: the subject's centre belongs on a phi-grid intersection (lines at
/// 1/φ² ≈ 0.382 and 1/φ ≈ 0.618 of each side) or on the eye of a golden spiral.
///
/// The spiral's eye (the pole where its quarter arcs converge) lies on the frame's diagonal at
/// `1/(φ²+1) ≈ 0.2764` of each side from the corner it curls into; the four orientations give eyes at
/// (0.276 | 0.724, 0.276 | 0.724) (the same convention as the Overlay's `GoldenSpiral`). With `c` the
/// subject's centre and `p` the nearest of these eight points:
/// ```
/// d = |c - p|          wellComposed = d < tolerance (0.12)
/// score = max(0, 1 - d / D)     D = farthest distance from any point of the frame to its nearest target
/// ```
/// (`D` ≈ 0.39, at a corner; see `TargetPoints.farthest`). Advice as for thirds. Details: `distance`,
/// `targetX`, `targetY`, `spiralEye` (1 when the nearest target is a spiral eye, 0 for the phi grid).
public struct GoldenRule: CompositionRule {
    /// `"golden"`.
    public let name = "golden"
    /// Distance under which the frame counts as well composed.
    public var tolerance: Double
    /// φ = (1 + √5)/2.
    public static let phi = (1 + 5.0.squareRoot()) / 2
    /// The four phi-grid intersections (0.382 | 0.618, 0.382 | 0.618).
    public static let phiPoints: [Point2D] = {
        let a = 1 / (phi * phi), b = 1 / phi
        return [Point2D(x: a, y: a), Point2D(x: b, y: a), Point2D(x: a, y: b), Point2D(x: b, y: b)]
    }()
    /// The four spiral eyes (0.276 | 0.724, 0.276 | 0.724).
    public static let spiralEyes: [Point2D] = {
        let e = 1 / (phi * phi + 1)
        return [Point2D(x: e, y: e), Point2D(x: 1 - e, y: e), Point2D(x: e, y: 1 - e), Point2D(x: 1 - e, y: 1 - e)]
    }()
    /// All eight targets.
    public static let targets = TargetPoints(phiPoints + spiralEyes)

    /// The four phi-grid intersections, and the phi grid: lines at 1/φ² and 1 - 1/φ² of each axis
    /// (written as the Overlay's phi grid writes them, so both draw the same pixels).
    public var marks: RuleMarks {
        let small = 1 / (Self.phi * Self.phi)
        return RuleMarks(
            points: Self.phiPoints,
            lines: [small, 1 - small].map { GuideLine.vertical(x: $0) } + [small, 1 - small].map { GuideLine.horizontal(y: $0) })
    }

    /// Creates the rule (tolerance 0.12 by default).
    public init(tolerance: Double = 0.12) { self.tolerance = tolerance }

    /// Scores the subject's distance to the nearest phi point or spiral eye.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let c = input.subjectCenter else { return .noSubject(rule: name) }
        let (p, d) = Self.targets.nearest(to: c)
        let eye = Self.spiralEyes.contains(p)
        let (advice, key) = TargetPoints.advice(
            rule: name, from: c, to: p, tolerance: tolerance,
            hold: eye
                ? "hold: the subject sits on the golden spiral's eye"
                : "hold: the subject sits on a golden point")
        return RuleResult(
            rule: name, score: Self.targets.score(distance: d), wellComposed: d < tolerance, target: p,
            direction: Vector2D(from: c, to: p), advice: advice, adviceKey: key,
            details: ["distance": d, "targetX": p.x, "targetY": p.y, "spiralEye": eye ? 1 : 0])
    }
}
