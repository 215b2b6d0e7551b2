/// The result of analysing one frame: who the subject is, what the rule says, what to do next.
///
/// Data only; drawing is the Overlay's job. Boxes are given in the analysed image's pixels and
/// normalised (0...1); `subjectBox(width:height:)` maps them to any other frame size (e.g. the input
/// frame when the analysis ran at 320 px).
public struct Guidance: Sendable, Equatable {
    /// Time spent in one step of the analysis.
    public struct Timing: Sendable, Equatable {
        /// Step name: `luma`, `detect`, `select`, `rule`, `smooth`.
        public var step: String
        /// Wall-clock milliseconds.
        public var ms: Double
        /// Creates a timing.
        public init(step: String, ms: Double) { self.step = step; self.ms = ms }
    }

    /// Presentation timestamp of the analysed frame, nanoseconds (nil when unknown).
    public var pts: UInt64?
    /// Width of the analysed image, pixels.
    public var frameWidth: Int
    /// Height of the analysed image, pixels.
    public var frameHeight: Int
    /// The chosen subject (box in analysed pixels), nil when nothing was found.
    public var subject: Detection?
    /// The subject's box as detected in this frame, before any smoothing across frames (analysed pixels).
    /// `subject` is what is drawn and judged (smoothed in a stream); this is where the subject really is
    /// in these pixels, for anything saved with the frame (a photo's record).
    public var measuredBox: Box?
    /// Engine that produced the subject (`faces`, `bodies`, `saliency`, ...), nil without a subject.
    public var engine: String?
    /// Every detection of that engine, best first, in analysed pixels (the faces list, for faces).
    public var detections: [Detection]
    /// Rule that produced the advice (for `auto`, the placement rule it picked).
    public var rule: String
    /// Score 0...1 under that rule.
    public var score: Double
    /// Whether the frame follows the rule now.
    public var wellComposed: Bool
    /// Whether it has been well composed for long enough (see `GuidanceSmoother`).
    public var locked: Bool
    /// Where the rule wants the subject's centre, normalised.
    public var target: Point2D?
    /// How the subject should move in the frame, normalised (`target - subject centre`).
    public var direction: Vector2D
    /// One line of advice.
    public var advice: String
    /// The advice's stable identity (no numbers), see `RuleResult.adviceKey`.
    public var adviceKey: String
    /// The rule's measurements, see each rule.
    public var details: [String: Double]
    /// Per-step timings, in order.
    public var timings: [Timing]

    /// Creates a guidance value.
    public init(
        pts: UInt64? = nil, frameWidth: Int, frameHeight: Int, subject: Detection? = nil, engine: String? = nil,
        detections: [Detection] = [], rule: String, score: Double = 0, wellComposed: Bool = false,
        locked: Bool = false, target: Point2D? = nil, direction: Vector2D = .zero, advice: String = "",
        adviceKey: String = "", details: [String: Double] = [:], timings: [Timing] = []
    ) {
        self.pts = pts; self.frameWidth = frameWidth; self.frameHeight = frameHeight; self.subject = subject
        self.measuredBox = subject?.box
        self.engine = engine; self.detections = detections; self.rule = rule; self.score = score
        self.wellComposed = wellComposed; self.locked = locked; self.target = target; self.direction = direction
        self.advice = advice; self.adviceKey = adviceKey; self.details = details; self.timings = timings
    }

    /// Copies a rule's verdict (rule, score, wellComposed, target, direction, advice, key, details).
    public mutating func apply(_ r: RuleResult) {
        rule = r.rule; score = r.score; wellComposed = r.wellComposed; target = r.target
        direction = r.direction; advice = r.advice; adviceKey = r.adviceKey; details = r.details
    }

    /// The subject's box normalised to the analysed frame (x / frameWidth, ...).
    public var subjectNormalized: Box? {
        subject.map {
            Box(
                x: $0.box.x / Double(frameWidth), y: $0.box.y / Double(frameHeight),
                width: $0.box.width / Double(frameWidth), height: $0.box.height / Double(frameHeight))
        }
    }

    /// The subject's box in a `width` x `height` frame (the normalised box times the size).
    public func subjectBox(width: Int, height: Int) -> Box? {
        subjectNormalized.map { $0.scaled(Double(width), Double(height)) }
    }

    /// `measuredBox` normalised to the analysed frame.
    public var measuredNormalized: Box? {
        measuredBox.map {
            Box(
                x: $0.x / Double(frameWidth), y: $0.y / Double(frameHeight),
                width: $0.width / Double(frameWidth), height: $0.height / Double(frameHeight))
        }
    }

    /// The target in analysed pixels.
    public var targetPixels: Point2D? { target.map { Point2D(x: $0.x * Double(frameWidth), y: $0.y * Double(frameHeight)) } }

    /// Sum of the step timings, milliseconds.
    public var totalMs: Double { timings.reduce(0) { $0 + $1.ms } }

    /// The timing of one step, if measured.
    public func ms(_ step: String) -> Double? { timings.first { $0.step == step }?.ms }
}
