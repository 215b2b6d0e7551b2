import FrameAnalysis

/// `compose`'s descriptor, its property keys and their value types.
extension ComposeStage {

    /// Descriptor. Computed, not stored: the `rule` choices are the rules registered in `RuleRegistry`
    /// at the time it is read, so a rule registered at run time can be named in a description.
    public static var descriptor: StageDescriptor {
        StageDescriptor(
            kind: "compose",
            blurb: "Finds the subject, judges the composition (\(RuleRegistry.all.map(\.name).joined(separator: ", "))) and draws guidance",
            properties: [
                engine.spec, rule.spec, overlay.spec, grid.spec, analysisWidth.spec, analysisFPS.spec, warmup.spec, minFace.spec,
                textScale.spec, verify.spec, profiles.spec, rotations.spec, cnnThreads.spec, fallbacks.spec, fallbackEvery.spec, sync.spec,
                metadataLocation.spec,
            ],
            formats: overlayFormats)
    }

    /// `engine=`: how the subject is found.
    public enum Engine: String, PropertyChoice {
        /// The CNN when its library is installed, then the face cascades, then people (HOG), then the
        /// upper-body cascade, then saliency.
        case auto
        /// Face cascades only.
        case faces
        /// YuNet, the CNN face detector (libfacedetection, installed by launch/setup) only.
        case cnn
        /// The upper- and full-body cascades only.
        case bodies
        /// OpenCV's HOG people detector only (whole persons, from behind or far away).
        case people
        /// The saliency map only.
        case saliency
        /// A `facedetect` element before the stage.
        case upstream
    }

    /// `fallbacks=`: how `engine=auto` runs its fallbacks on a frame where its first engine finds no face.
    public enum Fallbacks: String, PropertyChoice {
        /// One fallback per analysis in turn, each one's result kept for a while of stream time
        /// (`FallbackRotation`): a bounded cost per analysis.
        case staggered
        /// Every fallback on every analysis without a face, until one finds something (each analysis is
        /// judged on its own frame alone: offline files, stills).
        case all
    }

    /// A word of `grid=`: `points` (the rule's target points), `auto` (the rule's own lines), then every
    /// `GridLine` name in `GridLine.allCases` order (kept equal by `ComposeStageTests`).
    public enum GridMark: String, PropertyChoice, Hashable {
        case points, auto
        case thirds, golden, crosshair, center, diagonals
        case spiralTopLeft = "spiral-tl"
        case spiralTopRight = "spiral-tr"
        case spiralBottomLeft = "spiral-bl"
        case spiralBottomRight = "spiral-br"
        case none
    }

    /// `rule=`: a rule name. Not a `PropertyChoice` enum: the choices are `auto` plus whatever
    /// `RuleRegistry` holds when the descriptor is read (rules can be registered at run time), so the value
    /// is a name checked against the registry.
    public struct RuleName: PropertyRepresentable, Equatable {
        /// The name as written (`thirds`, `auto`).
        public let name: String
        /// A name `RuleRegistry` knows; nil otherwise.
        public init?(_ name: String) {
            guard RuleRegistry.rule(named: name) != nil else { return nil }
            self.name = name
        }
        public init?(propertyValue v: PropertyValue) {
            guard case .choice(let c) = v else { return nil }
            self.init(c)
        }
        public var propertyValue: PropertyValue { .choice(name) }
        /// `auto`.
        public static let auto = RuleName(unchecked: "auto")
        private init(unchecked name: String) { self.name = name }
    }

    /// `engine`: subject detection.
    public static let engine = Property<Engine>(
        "engine",
        "Subject detection: auto (cnn when installed, then faces, people, upper bodies, saliency), faces (cascades), "
            + "cnn (YuNet, installed by launch/setup), people (OpenCV's HOG people detector: whole persons, backs too), "
            + "bodies (upper/full-body cascades), saliency, upstream (a facedetect element before the stage)",
        default: .auto)
    /// `rule`: the composition rule. Computed for the same reason as `descriptor`.
    public static var rule: Property<RuleName> {
        Property(
            "rule", "Composition rule; auto picks the one the subject is closest to satisfying", .choice(RuleRegistry.names),
            default: .auto,
            mutability: .playing)
    }
    /// `overlay`: draw the guidance.
    public static let overlay = Property<Bool>(
        "overlay", "Draw the guidance (false: analyse and publish only)", .bool, default: true, mutability: .playing)
    /// `grid`: the rule marks and grid lines drawn.
    public static let grid = Property<PropertyFlags<GridMark>>(
        "grid", "Rule marks: points (the rule's target points), auto (the rule's full lines), none, or grid lines joined by '+'",
        default: [.points], mutability: .playing)
    /// `analysis-width`: width the analysis runs at.
    public static let analysisWidth = Property<Int>(
        "analysis-width", "Width in pixels the analysis runs at (height keeps the aspect)", .int(64...1920), default: 320)
    /// `analysis-fps`: analyses per second of stream time.
    public static let analysisFPS = Property<Double>(
        "analysis-fps", "Analyses per second of stream time; the latest result is drawn on every frame", .double(0.1...120),
        default: 10, mutability: .playing)
    /// `warmup`: seconds before the first analysis.
    public static let warmup = Property<Double>("warmup", "Seconds of stream time before the first analysis", .double(0...3600), default: 1)
    /// `min-face`: smallest face looked for, in input pixels.
    public static let minFace = Property<Int>(
        "min-face", "Smallest face to look for, in input pixels (the search floor is 24 px at analysis-width)", .int(8...4096), default: 24)
    /// `text-scale`: size of the advice and score text.
    public static let textScale = Property<Double>(
        "text-scale", "Size of the advice and score text (1 = 36 px at 1080p)", .double(0.25...4), default: 1, mutability: .playing)
    /// `verify`: second-stage check of face hits.
    public static let verify = Property<Bool>(
        "verify", "Second-stage check of face hits (eyes, a second cascade, skin) against false faces", .bool, default: true)
    /// `profiles`: also look for faces in profile.
    public static let profiles = Property<Bool>("profiles", "Also look for faces in profile (both sides)", .bool, default: true)
    /// `rotations`: also look for tilted faces.
    public static let rotations = Property<Bool>(
        "rotations", "Also look for faces tilted about 20 degrees in-plane (two more passes)", .bool, default: false)
    /// `cnn-threads`: OpenMP threads of the cnn engine.
    public static let cnnThreads = Property<Int>(
        "cnn-threads", "Threads the cnn engine's network uses per analysis (OpenMP; 1 leaves the other cores to the video)",
        .int(1...16), default: 1)
    /// `fallbacks`: engine=auto's fallbacks per analysis.
    public static let fallbacks = Property<Fallbacks>(
        "fallbacks",
        "engine=auto on a frame without a face: staggered (one slice of a fallback's search per turn, in turn: the face "
            + "cascades' passes, parts of the people search, upper bodies; each result kept until searched again) or all "
            + "(every fallback, every analysis)",
        default: .staggered)
    /// `fallback-every`: how often a staggered fallback takes its turn.
    public static let fallbackEvery = Property<Int>(
        "fallback-every",
        "With fallbacks=staggered: a fallback's turn on every Nth analysis without a face (1: every one); the others run "
            + "the cnn and, when no kept fallback result stands, saliency", .int(1...10), default: 2)
    /// `sync`: analyse on the video thread.
    public static let sync = Property<Bool>(
        "sync", "Analyse on the video thread so no due frame is skipped (offline files, benchmarks); the stream waits", .bool,
        default: false)
    /// `metadata-location`: the JSON-lines file.
    public static let metadataLocation = Property<String>(
        "metadata-location", "File to append one JSON line per analysed frame to (empty: none)", .string, default: "")
}
