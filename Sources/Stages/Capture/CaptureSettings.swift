import FrameAnalysis

/// Self-timer seconds (`timer=`), in the order `inspect` lists them.
public enum SelfTimerChoice: String, PropertyChoice, Sendable {
    case off = "0"
    case three = "3"
    case five = "5"
    case ten = "10"
    /// The seconds counted down (0: no self-timer).
    public var seconds: Int { Int(rawValue) ?? 0 }
}

/// The photo's aspect (`crop=`), in the order `inspect` lists them.
public enum CropChoice: String, PropertyChoice, Sendable {
    case none
    case portrait = "3:4"
    case landscape = "4:3"
    case square = "1:1"
    case wide = "16:9"
    /// The aspect to crop to, nil for `none`.
    public var aspect: CaptureChoice.Aspect? { CaptureChoice.Aspect.parse(rawValue) ?? nil }
}

/// EXIF orientation written with each photo (`orientation=`), GStreamer's image-orientation words.
public enum OrientationChoice: String, PropertyChoice, Sendable {
    case rotate0 = "rotate-0"
    case rotate90 = "rotate-90"
    case rotate180 = "rotate-180"
    case rotate270 = "rotate-270"
    case flipRotate0 = "flip-rotate-0"
    case flipRotate90 = "flip-rotate-90"
    case flipRotate180 = "flip-rotate-180"
    case flipRotate270 = "flip-rotate-270"
}

/// `capture`'s properties, declared once, and the values a stage instance reads from them.
///
/// A value: the stage keeps it in a mutex and copies it out per frame; `update` (any thread) changes
/// the fields marked `.playing`, the schedule's own among them.
struct CaptureSettings: Sendable {
    static let auto = Property("auto", "Capture when stable and well composed for 'delay'", .bool, default: true, mutability: .playing)
    static let delay = Property(
        "delay", "Seconds the shot must stay ready before an auto capture", .double(0...60), default: 1.0, mutability: .playing)
    static let cooldown = Property("cooldown", "Seconds between two auto captures", .double(0...3600), default: 3.0, mutability: .playing)
    static let maxPending = Property(
        "max-pending", "Photos that may be saving at once; further triggers are refused (busy)", .int(1...8), default: 4)
    static let timer = Property<SelfTimerChoice>(
        "timer", "Self-timer seconds for manual, event, at and interval triggers (0: off)", default: .off, mutability: .playing)
    static let ringMs = Property(
        "ring-ms", "Milliseconds of recent clean frames kept to pick the best from (0: the current frame)", .int(0...5000), default: 500)
    static let ringMb = Property("ring-mb", "Memory budget of that ring in MiB", .int(1...4096), default: 64)
    static let directory = Property(
        "directory", "Where the default branches write IMG_nnnnn.jpg, thumbs/ and records.json", .string, default: "photos")
    static let crop = Property<CropChoice>(
        "crop", "Crop the photo to this aspect, placing the subject for the rule", default: CropChoice.none)
    static let keepFull = Property("keep-full", "With a crop, also save the uncropped frame as IMG_nnnnn_full.jpg", .bool, default: false)
    static let thumbnails = Property("thumbnails", "Make thumbs/IMG_nnnnn.jpg (<= 300 px, by videoscale + jpegenc)", .bool, default: true)
    static let index = Property("index", "Keep DIR/records.json", .bool, default: true)
    static let orientation = Property<OrientationChoice>("orientation", "EXIF orientation written with each photo", default: .rotate0)
    static let overlay = Property(
        "overlay", "Draw the state, its reason and the countdown on the preview (never on photos)", .bool, default: true,
        mutability: .playing)
    static let analysisWidth = Property(
        "analysis-width", "Width of the luma image used for stability and sharpness", .int(64...640), default: 160)
    static let stableAfter = Property(
        "stable-after", "Consecutive steady frames before the camera counts as stable", .int(1...300), default: 10)
    static let unstableAfter = Property(
        "unstable-after", "Consecutive unsteady frames before it counts as unstable", .int(1...300), default: 5)
    static let steadyPixels = Property(
        "steady-pixels", "Largest global motion (analysis pixels per frame) that is still steady", .int(0...20), default: 1)
    static let resetPixels = Property("reset-pixels", "Motion (analysis pixels) that resets stability at once", .int(1...50), default: 5)
    /// interval, at, manual, max-shots and quality, shared with `snapshot`.
    static let schedule = ShotSchedule.Keys(
        interval: "Seconds of stream time between triggered captures (0: off)",
        at: "Frame numbers (from 0) that trigger a capture, comma-separated",
        maxShots: "Stop capturing after this many photos (0: no limit)",
        quality: "JPEG quality of the default branches")

    /// Every property, in the order `inspect` lists them.
    /// The stability estimator set from stable-after, unstable-after, steady-pixels and reset-pixels.
    static func estimator(_ p: PropertyValues) -> StabilityEstimator {
        var e = StabilityEstimator()
        e.stableAfter = p[stableAfter]
        e.unstableAfter = p[unstableAfter]
        e.steadyPixels = p[steadyPixels]
        e.resetPixels = p[resetPixels]
        return e
    }

    static let specs: [PropertySpec] = [
        auto.spec, delay.spec, cooldown.spec, schedule.maxShots.spec, maxPending.spec, schedule.manual.spec, schedule.at.spec,
        schedule.interval.spec, timer.spec, ringMs.spec, ringMb.spec, directory.spec, schedule.quality.spec, crop.spec,
        keepFull.spec, thumbnails.spec, index.spec, orientation.spec, overlay.spec, analysisWidth.spec,
        stableAfter.spec, unstableAfter.spec, steadyPixels.spec, resetPixels.spec,
    ]

    var auto: Bool, delay: Double, cooldown: Double, timer: Int, overlay: Bool
    let maxPending: Int, ringMs: Int, ringBytes: Int, directory: String
    let crop: CaptureChoice.Aspect?, keepFull: Bool, thumbnails: Bool, index: Bool, orientation: String
    let analysisWidth: Int

    /// Reads the values (the schedule reads its own).
    init(_ p: PropertyValues) {
        auto = p[Self.auto]; delay = p[Self.delay]; cooldown = p[Self.cooldown]; timer = p[Self.timer].seconds
        overlay = p[Self.overlay]; maxPending = p[Self.maxPending]; ringMs = p[Self.ringMs]; ringBytes = p[Self.ringMb] << 20
        directory = p[Self.directory]; crop = p[Self.crop].aspect; keepFull = p[Self.keepFull]; thumbnails = p[Self.thumbnails]
        index = p[Self.index]; orientation = p[Self.orientation].rawValue; analysisWidth = p[Self.analysisWidth]
    }

    /// Applies a change made while playing to auto, delay, cooldown, timer or overlay; false for any other property.
    mutating func update(_ property: String, value v: PropertyValue, stage: String) throws(StageError) -> Bool {
        switch property {
        case Self.auto.name: auto = try Self.auto.value(v, stage: stage)
        case Self.delay.name: delay = try Self.delay.value(v, stage: stage)
        case Self.cooldown.name: cooldown = try Self.cooldown.value(v, stage: stage)
        case Self.timer.name: timer = try Self.timer.value(v, stage: stage).seconds
        case Self.overlay.name: overlay = try Self.overlay.value(v, stage: stage)
        default: return false
        }
        return true
    }
}
