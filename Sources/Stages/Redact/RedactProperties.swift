import FrameAnalysis

/// `redact`'s descriptor, its property keys and their value types.
extension RedactStage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "redact",
        blurb: "Covers every face and/or person on every frame (blur, pixelate, fill), tracked between detections; the whole frame while the detector is behind",
        properties: [what.spec, mode.spec, margin.spec, hold.spec, sync.spec, detectEvery.spec, maxDelay.spec, starved.spec, analysisWidth.spec],
        formats: [
            "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "YUY2", "UYVY", "YVYU", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB",
            "xBGR", "RGB", "BGR",
        ])

    /// `what=`: what is covered.
    public enum What: String, PropertyChoice {
        /// Faces (the cnn; the face cascades when it is not installed).
        case faces
        /// People's whole bodies (HOG).
        case persons
        /// Both.
        case both

        var kinds: Set<ObjectTracker.Kind> {
            switch self {
            case .faces: [.face]
            case .persons: [.person]
            case .both: [.face, .person]
            }
        }
    }

    /// `mode=`: how.
    public enum Mode: String, PropertyChoice {
        /// A strong blur (three box passes, a fifth of the box).
        case blur
        /// Blocks of an eighth of the box.
        case pixelate
        /// Black.
        case fill

        var cover: RegionCover.Mode {
            switch self {
            case .blur: .blur
            case .pixelate: .pixelate
            case .fill: .fill
            }
        }
    }

    /// `starved=`: what a detector behind does.
    public enum Starved: String, PropertyChoice {
        /// The whole frame covered until an analysis is fresh again.
        case frame
        /// The tracks' covers grow with their age.
        case grow

        var plan: RedactionPlan.Starved { self == .frame ? .frame : .grow }
    }

    /// `what`.
    public static let what = Property<What>("what", "What is covered: faces, persons (whole bodies), both", default: .faces)
    /// `mode`.
    public static let mode = Property<Mode>("mode", "How: blur, pixelate, fill (black)", default: .blur, mutability: .playing)
    /// `margin`.
    public static let margin = Property<Double>(
        "margin", "Room round each box, a fraction of its width and height on each side", .double(0...2), default: 0.25,
        mutability: .playing)
    /// `hold`.
    public static let hold = Property<Double>(
        "hold", "Seconds a face or person stays covered after the detector last saw it", .double(0...10), default: 1,
        mutability: .playing)
    /// `sync`.
    public static let sync = Property<Bool>(
        "sync",
        "Detect on the video thread, so a face is covered from the very frame the detector sees it (the frame waits for the "
            + "detector: 30-70 ms every detect-every frames); false: on a thread of its own, the video never waits, a new face "
            + "is covered 1-3 frames after the frame the detector looked at",
        .bool, default: true)
    /// `detect-every`.
    public static let detectEvery = Property<Int>(
        "detect-every", "With sync: detect on every Nth frame (the frames between are covered by tracking)", .int(1...30), default: 3)
    /// `max-delay`.
    public static let maxDelay = Property<Double>(
        "max-delay", "An analysis older than this (seconds) means the detector is behind (see starved)", .double(0.05...10),
        default: 0.5, mutability: .playing)
    /// `starved`.
    public static let starved = Property<Starved>(
        "starved", "While the detector is behind or has not looked yet: frame (cover it all), grow (grow each cover with its age)",
        default: .frame, mutability: .playing)
    /// `analysis-width`.
    public static let analysisWidth = Property<Int>(
        "analysis-width", "Width the detector looks at (a 24 px face of a 1920-wide frame is 12 px at 960)", .int(160...3840), default: 960)
}
