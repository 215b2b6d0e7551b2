import Foundation

/// A point in normalised frame coordinates: x from the left edge, y from the top edge, both 0...1.
public struct Point2D: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// Horizontal position (0 = left edge, 1 = right edge).
    public var x: Double
    /// Vertical position (0 = top edge, 1 = bottom edge).
    public var y: Double
    /// Creates a point.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    /// Euclidean distance `sqrt(dx² + dy²)` in normalised units.
    public func distance(to o: Point2D) -> Double { ((x - o.x) * (x - o.x) + (y - o.y) * (y - o.y)).squareRoot() }
    /// "(x, y)" with three decimals.
    public var description: String { String(format: "(%.3f, %.3f)", x, y) }
}

/// A displacement in normalised frame units (dx to the right, dy downwards).
public struct Vector2D: Sendable, Equatable, Hashable, Codable {
    /// Rightwards component.
    public var dx: Double
    /// Downwards component.
    public var dy: Double
    /// Creates a vector.
    public init(dx: Double, dy: Double) { self.dx = dx; self.dy = dy }
    /// The zero vector.
    public static let zero = Vector2D(dx: 0, dy: 0)
    /// Length `sqrt(dx² + dy²)`.
    public var length: Double { (dx * dx + dy * dy).squareRoot() }
    /// `to - from`.
    public init(from a: Point2D, to b: Point2D) { dx = b.x - a.x; dy = b.y - a.y }
}

/// One of eight compass-like directions in the frame, as said in advice ("up and left").
public enum MoveDirection: String, Sendable, CaseIterable, Codable {
    /// Towards the top edge.
    case up
    /// Towards the bottom edge.
    case down
    /// Towards the left edge.
    case left
    /// Towards the right edge.
    case right
    /// Up and left.
    case upLeft = "up-left"
    /// Up and right.
    case upRight = "up-right"
    /// Down and left.
    case downLeft = "down-left"
    /// Down and right.
    case downRight = "down-right"

    /// The direction of a vector: its angle `atan2(-dy, dx)` (y flipped so up is positive) falls in one of
    /// eight 45° sectors centred on right (0°), up-right (45°), up (90°), ... Nil for the zero vector.
    public init?(_ v: Vector2D) {
        guard v.length > 1e-12 else { return nil }
        var a = atan2(-v.dy, v.dx) * 180 / Double.pi
        if a < 0 { a += 360 }
        let sector = Int(((a + 22.5) / 45).rounded(.down)) % 8
        self = [.right, .upRight, .up, .upLeft, .left, .downLeft, .down, .downRight][sector]
    }

    /// Words for advice: "up", "up and left", ...
    public var phrase: String {
        switch self {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .upLeft: "up and left"
        case .upRight: "up and right"
        case .downLeft: "down and left"
        case .downRight: "down and right"
        }
    }

    /// The opposite direction (where to aim the camera to move the subject this way).
    public var opposite: MoveDirection {
        switch self {
        case .up: .down
        case .down: .up
        case .left: .right
        case .right: .left
        case .upLeft: .downRight
        case .upRight: .downLeft
        case .downLeft: .upRight
        case .downRight: .upLeft
        }
    }
}

/// What a composition rule looks at for one analysed frame.
public struct RuleInput: Sendable {
    /// The chosen subject's box, normalised to the frame (0...1 on both axes); nil when there is none.
    public var subject: Box?
    /// Width of the analysed frame in pixels.
    public var frameWidth: Int
    /// Height of the analysed frame in pixels.
    public var frameHeight: Int
    /// Luma of the analysed frame, for rules that read pixels (center's symmetry, horizon).
    public var luma: GrayImage?
    /// Where the subject's centre lies inside `subject`, 0...1 of the box (a group's size-weighted centre,
    /// `Detection.anchor`); nil: the middle of the box.
    public var anchor: Point2D?
    /// For a group subject, its members' boxes, normalised like `subject` (empty otherwise): for rules
    /// that read the people themselves rather than their union (the gaps between faces are background).
    public var members: [Box]
    /// The subject's eyes, normalised like `subject` (0...1 of the frame); nil when the engine does not
    /// locate eyes (every engine but `cnn`) or the subject is a group.
    public var eyes: Detection.Eyes?
    /// Where the subject looks in the image, -1...1 (`Detection.look`: negative left, positive right);
    /// nil when unknown.
    public var look: Double?
    /// What the subject is (`Detection.kind`); nil when unknown (inputs built by hand). Portrait judges
    /// faces and groups only (not nil).
    public var kind: Detection.Kind?

    /// Creates an input.
    public init(
        subject: Box?, frameWidth: Int, frameHeight: Int, luma: GrayImage? = nil, anchor: Point2D? = nil, members: [Box] = [],
        eyes: Detection.Eyes? = nil, look: Double? = nil, kind: Detection.Kind? = nil
    ) {
        self.subject = subject; self.frameWidth = frameWidth; self.frameHeight = frameHeight; self.luma = luma
        self.anchor = anchor; self.members = members; self.eyes = eyes; self.look = look; self.kind = kind
    }

    /// The subject's centre, normalised, if there is a subject: the box's middle, or its `anchor` (a
    /// group's size-weighted centre) when set. Placement rules (thirds, golden, center) move this point.
    public var subjectCenter: Point2D? {
        subject.map {
            let a = anchor ?? Point2D(x: 0.5, y: 0.5)
            return Point2D(x: $0.x + a.x * $0.width, y: $0.y + a.y * $0.height)
        }
    }
}

/// How one rule judges one frame.
public struct RuleResult: Sendable, Equatable {
    /// Name of the rule that produced the result ("thirds", "center", ...).
    public var rule: String
    /// 0...1, higher is better (each rule documents its formula).
    public var score: Double
    /// Whether the frame follows the rule now.
    public var wellComposed: Bool
    /// Where the rule wants the subject's centre, normalised; nil for rules without a target (horizon).
    public var target: Point2D?
    /// How the subject should move in the frame: `target - subject centre` (zero when there is no target).
    public var direction: Vector2D
    /// One line for the user ("move the subject up and left").
    public var advice: String
    /// A stable identity of the advice without numbers ("thirds.move.up-left"), for hysteresis: two
    /// results with the same key give the same instruction.
    public var adviceKey: String
    /// Rule-specific measurements (distance, symmetry, angle, ...), named in each rule's documentation.
    public var details: [String: Double]

    /// Creates a result; `score` is clamped to 0...1.
    public init(
        rule: String, score: Double, wellComposed: Bool, target: Point2D?, direction: Vector2D,
        advice: String, adviceKey: String, details: [String: Double] = [:]
    ) {
        self.rule = rule; self.score = max(0, min(1, score)); self.wellComposed = wellComposed; self.target = target
        self.direction = direction; self.advice = advice; self.adviceKey = adviceKey; self.details = details
    }

    /// The result of a subject rule when there is no subject: score 0, not well composed.
    public static func noSubject(rule: String) -> RuleResult {
        RuleResult(
            rule: rule, score: 0, wellComposed: false, target: nil, direction: .zero,
            advice: "looking for a subject", adviceKey: "\(rule).no-subject")
    }
}

/// What a rule is about, which decides its part in `rule=auto`.
public enum RuleRole: String, Sendable {
    /// Places the subject (thirds, golden, center): `auto` picks the best of these.
    case placement
    /// Checks the frame as a whole (edges, horizon): in `auto`, a failing check overrides the advice.
    case check
    /// Remarks on something framing does not fix (exposure): in `auto`, a failing note's advice is added
    /// after the framing advice, and the framing verdict (score, well composed, target) is left alone.
    case note
}

/// A straight guide line in normalised frame coordinates.
public struct GuideLine: Sendable, Equatable, Hashable {
    /// One end.
    public var from: Point2D
    /// The other end.
    public var to: Point2D
    /// A line from `from` to `to`.
    public init(from: Point2D, to: Point2D) { self.from = from; self.to = to }
    /// The full-height vertical line at `x` (top to bottom).
    public static func vertical(x: Double) -> GuideLine { GuideLine(from: Point2D(x: x, y: 0), to: Point2D(x: x, y: 1)) }
    /// The full-width horizontal line at `y` (left to right).
    public static func horizontal(y: Double) -> GuideLine { GuideLine(from: Point2D(x: 0, y: y), to: Point2D(x: 1, y: y)) }
}

/// What a rule shows over the frame so the user sees what it asks for, in normalised coordinates.
/// A drawing stage draws these without knowing the rule (`compose grid=points` draws the points,
/// `grid=auto` the lines).
public struct RuleMarks: Sendable, Equatable {
    /// Where the rule wants the subject (drawn as small crosses).
    public var points: [Point2D]
    /// The rule's guide lines (full-frame lines are drawn crisp, others antialiased).
    public var lines: [GuideLine]
    /// Marks made of `points` and `lines`.
    public init(points: [Point2D] = [], lines: [GuideLine] = []) { self.points = points; self.lines = lines }
    /// Nothing to draw.
    public static let none = RuleMarks()
}

/// A composition rule: one small type per rule, registered in `RuleRegistry.all`.
///
/// Adding a rule means writing a type that conforms and appending it to the registry array; nothing
/// else changes (the analyzer, `auto`, the stage's `rule=` property and its listing read the registry,
/// and compose draws the rule's `marks`).
public protocol CompositionRule: Sendable {
    /// Name used by `rule=` ("thirds").
    var name: String { get }
    /// Whether `auto` treats it as a placement rule or as a check.
    var role: RuleRole { get }
    /// What the rule shows over the frame; `.none` for rules whose verdict has no fixed geometry.
    var marks: RuleMarks { get }
    /// Judges one frame.
    func evaluate(_ input: RuleInput) -> RuleResult
}

extension CompositionRule {
    /// Placement by default.
    public var role: RuleRole { .placement }
    /// No marks by default.
    public var marks: RuleMarks { .none }
}

/// Shared arithmetic for rules that pull the subject's centre towards the nearest of a set of points.
public struct TargetPoints: Sendable, Equatable {
    /// Candidate targets, normalised.
    public let points: [Point2D]
    /// The largest distance from any point of the unit square to its nearest target (sampled on a
    /// 201 x 201 grid, which includes the corners where the maximum lies for these layouts): the
    /// distance at which a linear score reaches 0.
    public let farthest: Double

    /// Targets `points`.
    public init(_ points: [Point2D]) {
        self.points = points
        var far = 0.0
        for j in 0...200 {
            for i in 0...200 {
                let p = Point2D(x: Double(i) / 200, y: Double(j) / 200)
                far = max(far, points.map { $0.distance(to: p) }.min() ?? 0)
            }
        }
        farthest = far
    }

    /// The target nearest to `p` and its distance.
    public func nearest(to p: Point2D) -> (point: Point2D, distance: Double) {
        var best = points[0], d = points[0].distance(to: p)
        for q in points.dropFirst() {
            let e = q.distance(to: p)
            if e < d { best = q; d = e }
        }
        return (best, d)
    }

    /// Linear score `max(0, 1 - d / farthest)`: 1 on a target, 0 at the farthest place in the frame.
    public func score(distance d: Double) -> Double { max(0, 1 - d / farthest) }

    /// Advice for moving the subject from `c` to `t`: "move the subject up and left", or `hold` when
    /// within `tolerance`.
    static func advice(rule: String, from c: Point2D, to t: Point2D, tolerance: Double, hold: String) -> (String, String) {
        let v = Vector2D(from: c, to: t)
        if v.length < tolerance { return (hold, "\(rule).hold") }
        guard let dir = MoveDirection(v) else { return (hold, "\(rule).hold") }
        return ("move the subject \(dir.phrase)", "\(rule).move.\(dir.rawValue)")
    }
}
