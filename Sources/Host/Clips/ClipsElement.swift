import Foundation
import GStreamerKit
import Stages

/// The `clips` description element: a sink on an encoded stream that keeps its last seconds and writes clips of them
/// on triggers (`ClipsService`). `... ! x264enc ! h264parse ! tee name=t ! queue ! clips pre=5 post=5 t. ! queue ! ...`;
/// an encoded audio stream joins it by reference: `clips name=c ... audiotestsrc ! avenc_aac ! aacparse ! c.audio`.
public struct ClipsSettings: Sendable, Equatable {
    public static let factory = "clips"

    /// Where clips, `clips.json` and `thumbs/` go.
    public var directory: String
    /// Seconds before the trigger and after it.
    public var pre: Double
    public var post: Double
    /// Seconds a clip extended by overlapping triggers may reach in all.
    public var maxLength: Double
    /// Bytes the ring holds at most.
    public var ringBytes: Int
    /// Capture's photos trigger clips.
    public var photos: Bool
    /// Thumbnails (`thumbs/CLIP_nnnnn.jpg`, the first frame) are made.
    public var thumbnails: Bool
    /// The composition trigger: compose's score at or above this (0: off) for `scoreSeconds` while steady.
    public var score: Double
    public var scoreSeconds: Double

    public static let spec = ServiceElementSpec(
        factory: factory,
        properties: [
            PropertySpec("directory", "Directory of the clips, clips.json and thumbs/", .string, default: "clips"),
            PropertySpec("pre", "Seconds kept before the trigger (the ring holds at most 60)", .double(0...60), default: "5"),
            PropertySpec("post", "Seconds written after the trigger", .double(0...300), default: "5"),
            PropertySpec("max-length", "Seconds a clip extended by overlapping triggers may reach", .double(1...3600), default: "300"),
            PropertySpec("ring-size", "MiB of encoded video the ring holds at most (the oldest second goes first)", .int(1...1024), default: "64"),
            PropertySpec("photos", "Capture's photos trigger clips centred on the photo's frame", .bool, default: "true"),
            PropertySpec("thumbnails", "Make thumbs/CLIP_nnnnn.jpg from each clip's first frame", .bool, default: "true"),
            PropertySpec("score", "Composition trigger: compose's score at or above this while steady (0: off)", .double(0...1), default: "0"),
            PropertySpec("score-seconds", "Seconds the score must hold for the composition trigger", .double(0.1...60), default: "2"),
        ],
        feed: "an encoded video stream, e.g. '... ! x264enc ! h264parse ! clips'", maxBuffers: 512, sinkPrefix: "vf_clips", inputs: ["audio"])

    init(_ v: PropertyValues) {
        directory = v.string("directory"); pre = v.double("pre"); post = v.double("post"); maxLength = v.double("max-length")
        ringBytes = v.int("ring-size") << 20; photos = v.bool("photos"); thumbnails = v.bool("thumbnails"); score = v.double("score")
        scoreSeconds = v.double("score-seconds")
    }
}

/// Makes one `ClipsService` per `clips` element. A directory that cannot be made or written, or two recorders
/// writing into one directory, are usage errors (exit 2, nothing created).
struct ClipsFactory: ServiceFactory {
    var elements: [ServiceElementSpec] { [ClipsSettings.spec] }

    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        var out: [ClipsService] = []
        let hasCapture = build.plan.groups.contains { $0.stages.contains { $0.kind == CaptureStage.descriptor.kind } }
        for claim in build.claims(of: ClipsSettings.factory) {
            let settings = ClipsSettings(claim.values)
            if settings.directory.isEmpty { throw HostError(.usage, "\(claim.appSink): empty directory=: expected a directory, e.g. directory=clips") }
            if let problem = PathCheck.creatableDirectory(settings.directory) {
                throw HostError(.usage, "\(claim.appSink): cannot use clips directory '\(Echo.value(settings.directory))': \(problem)")
            }
            if let other = out.first(where: { FilePaths.sameLocation($0.settings.directory, settings.directory) }) {
                throw HostError(
                    .usage, "\(claim.appSink): directory '\(Echo.value(settings.directory))' is \(other.element)'s already: expected a directory of its own")
            }
            out.append(
                ClipsService(
                    element: claim.appSink, settings: settings, sink: try build.appSink(of: claim),
                    audioSink: claim.inputs["audio"].flatMap(build.appSink(named:)), measuresSteadiness: hasCapture,
                    clock: build.options.clock))
        }
        return out
    }
}

extension FilePaths {
    /// Whether two directory paths name one place (lexically, after standardising; for directories not made yet).
    static func sameLocation(_ a: String, _ b: String) -> Bool {
        let cwd = FileManager.default.currentDirectoryPath
        func full(_ p: String) -> String { ((p.hasPrefix("/") ? p : join(cwd, p)) as NSString).standardizingPath }
        return full(a) == full(b)
    }
}
