import FrameAnalysis

/// `reframe`'s descriptor, its property keys and their value types.
extension ReframeStage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "reframe",
        blurb: "Crops and scales to another shape (9:16, 1:1...) framing the subject like a camera operator: rule, look room, whole groups, smooth pans and cuts",
        properties: [
            aspect.spec, width.spec, height.spec, rule.spec, subjectSize.spec, maxZoom.spec, deadZone.spec, maxPan.spec, pad.spec, analysis.spec,
            engine.spec, cutAnalysis.spec,
        ],
        formats: overlayFormats + ["GRAY8"])

    /// `rule=`.
    public enum Rule: String, PropertyChoice {
        /// One face: `portrait`; a group: `center`.
        case auto
        /// The subject's box centre on an upper thirds intersection, on the side away from where it looks.
        case thirds
        /// The subject in the middle.
        case center
        /// The eyes on the upper third line, look room where the face looks.
        case portrait
        /// Across from where compose's leading line (`rule=lines`) comes from, so the line runs into the subject.
        case lines

        var framing: ReframeSettings.Rule {
            switch self {
            case .auto: .auto
            case .thirds: .thirds
            case .center: .center
            case .portrait: .portrait
            case .lines: .lines
            }
        }
    }

    /// `analysis=`: where the subject comes from.
    public enum Analysis: String, PropertyChoice {
        /// A compose before the stage (its `ViewfinderComposition` meta) when the frames carry one, else its own.
        case auto
        /// Only a compose before the stage (no engine is loaded).
        case upstream
        /// Always its own (a compose of its own, drawing nothing).
        case own
    }

    /// `aspect`: the output's shape.
    public static let aspect = Property<String>(
        "aspect", "Output shape W:H (9:16, 1:1, 4:5...); width and height, when both set, decide it", .string, default: "9:16")
    /// `width`: output width.
    public static let width = Property<Int>(
        "width", "Output width in pixels (0: from height and aspect, or the input's height and aspect)", .int(0...7680), default: 0)
    /// `height`: output height.
    public static let height = Property<Int>(
        "height", "Output height in pixels (0: from width and aspect, or the input's height)", .int(0...7680), default: 0)
    /// `rule`: where the subject goes.
    public static let rule = Property<Rule>(
        "rule", "Where the subject goes: auto (portrait for one face, center for a group), thirds, center, portrait, lines (compose rule=lines)",
        default: .auto, mutability: .playing)
    /// `subject-size`: the zoom for one face.
    public static let subjectSize = Property<Double>(
        "subject-size", "A single face's height as a fraction of the output's height", .double(0.05...0.8), default: 0.2,
        mutability: .playing)
    /// `max-zoom`: the tightest window.
    public static let maxZoom = Property<Double>(
        "max-zoom", "Tightest window: the widest one divided by this", .double(1...8), default: 3, mutability: .playing)
    /// `dead-zone`: how far the subject may drift before the frame follows.
    public static let deadZone = Property<Double>(
        "dead-zone", "How far the wanted window may drift (fraction of the window) before the frame moves", .double(0...0.5),
        default: 0.08, mutability: .playing)
    /// `max-pan`: fastest pan.
    public static let maxPan = Property<Double>(
        "max-pan", "Fastest pan, input heights per second (farther jumps are cuts)", .double(0.05...5), default: 0.5,
        mutability: .playing)
    /// `pad`: how much of the output may be bars.
    public static let pad = Property<Double>(
        "pad",
        "Most of the output (fraction of its height, and of its width) that may be black bars past the frame, only for "
            + "faces no crop holds (a group wider than a 9:16 crop, a face too close); 0: never bars",
        .double(0...0.5), default: 0.2, mutability: .playing)
    /// `analysis`: whose subject.
    public static let analysis = Property<Analysis>(
        "analysis", "Subject from: auto (a compose before it, else its own), upstream (compose only), own", default: .auto)
    /// `engine`: the own analysis's detector (compose's `engine=`).
    public static let engine = Property<ComposeStage.Engine>(
        "engine", "Detector of its own analysis (as compose's engine=)", default: .auto)

    /// `cut-analysis`: look at once when the shot changes.
    public static let cutAnalysis = Property<Bool>(
        "cut-analysis",
        "On the first frame and on a scene change, analyse that frame at once on the video thread (the stream waits one "
            + "analysis, 30-60 ms) so the new shot is framed from its first frame; false: wait for the next analysis",
        .bool, default: true)

    /// Output width / height from `W:H` text; nil when it is not two positive whole numbers of at most 4 digits.
    static func ratio(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...9999).contains(w), (1...9999).contains(h) else { return nil }
        return Double(w) / Double(h)
    }
}
