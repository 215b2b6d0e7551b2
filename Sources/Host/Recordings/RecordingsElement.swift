import Foundation
import GStreamerKit
import Stages

/// `recordings`: a description element the host provides for a recording in segments with retention.
///
/// `... ! x264enc key-int-max=60 ! h264parse ! recordings directory=rec segment=60 max-age=7d max-size=20G` is
/// rewritten, before the description is planned, into a real `splitmuxsink` (what `--print-expanded` shows):
/// `location=DIR/REC_%05d.EXT`, `max-size-time` = the segment, `send-keyframe-requests=true` (the encoder is asked
/// for a keyframe at each split), `muxer-factory` per format (`RecordingFormat`), and `start-index` one past the
/// highest `REC_` index already in the directory, so a restart never overwrites a segment. Properties: `directory`
/// (default `recordings`), `segment` (seconds, 1-3600, default 60), `max-age` (`RecordingLimits.duration`, 0 = no
/// limit), `max-size` (`RecordingLimits.size`, 0 = no limit), `format` (mp4, mkv, ts), `name`.
///
/// Nothing is created while the description is built (`--dry-run` writes nothing): the directory is only checked
/// (a file in the way, or a directory that cannot be written: exit 2), and made when the run starts
/// (`RecordingsService.willPlay`). The retention is `RecordingsService`'s.
///
/// Threads and locks: none; pure functions of the description and a read of the directory.
public struct RecordingsElement: Equatable, Sendable {
    /// The name used in descriptions.
    public static let factory = "recordings"
    /// The splitmuxsink's name (`name=` as written, else `vf_rec0`, `vf_rec1`...).
    public var name: String
    /// Where its segments go (as written: relative to the working directory).
    public var directory: String
    /// Seconds per segment.
    public var segment: Int
    /// Seconds a segment is kept after it ended (0: no limit).
    public var maxAge: Int
    /// Bytes its segments may take together (0: no limit).
    public var maxSize: Int64
    /// The container.
    public var format: RecordingFormat

    /// Creates a plan.
    public init(name: String, directory: String, segment: Int, maxAge: Int, maxSize: Int64, format: RecordingFormat) {
        self.name = name; self.directory = directory; self.segment = segment; self.maxAge = maxAge; self.maxSize = maxSize
        self.format = format
    }

    /// `recordings` as a description element: its properties, parsed as a stage's are.
    public static let spec = ServiceElementSpec(
        factory: factory,
        properties: [
            PropertySpec(
                "directory", "directory of the segments (REC_nnnnn.EXT) and recordings.json; made when the run starts", .string,
                default: "recordings"),
            PropertySpec("segment", "seconds per segment (split at the next keyframe)", .int(1...3600), default: "60"),
            PropertySpec("max-age", "delete segments older than this (s, m, h, d; 0 = keep)", .string, default: "0"),
            PropertySpec(
                "max-size", "delete the oldest segments while all take more than this (K, M, G, T; 0 = no limit)", .string, default: "0"),
            PropertySpec(
                "format", "container: mp4 (unplayable if killed mid-segment), mkv or ts (play up to a kill)",
                .choice(RecordingFormat.allCases.map(\.rawValue)), default: "mp4"),
        ],
        feed: "encoded video, e.g. '... ! x264enc key-int-max=60 ! h264parse ! recordings directory=rec'", maxBuffers: 0,
        sinkPrefix: "vf_rec",
        replacement: { values, name throws(HostError) in try RecordingsElement(values: values, name: name).replacement() })

    /// The plan of a claim's validated values; usage errors name the bad property and what was expected.
    public init(values v: PropertyValues, name: String) throws(HostError) {
        let directory = v.string("directory")
        guard !directory.isEmpty else {
            throw HostError(.usage, "recordings: empty directory=: expected a directory, e.g. directory=recordings")
        }
        if let problem = PathCheck.creatableDirectory(directory) {
            throw HostError(.usage, "recordings: cannot use directory '\(Echo.value(directory))': \(problem)")
        }
        self.init(
            name: name, directory: directory, segment: v.int("segment"), maxAge: try RecordingLimits.duration(v.string("max-age")),
            maxSize: try RecordingLimits.size(v.string("max-size")), format: RecordingFormat(rawValue: v.string("format")) ?? .mp4)
    }

    /// The plan of a claimed element.
    init(claim: ClaimedElement) throws(HostError) { try self.init(values: claim.values, name: claim.elementName) }

    /// The splitmuxsink it becomes, numbered on from what lies in the directory now (read only).
    public func replacement() -> ElementReplacement {
        ElementReplacement(
            factory: "splitmuxsink",
            properties: [
                PropertyAssignment(key: "location", value: SegmentName.pattern(directory: directory, format: format)),
                PropertyAssignment(key: "max-size-time", value: String(UInt64(segment) * 1_000_000_000)),
                PropertyAssignment(key: "send-keyframe-requests", value: "true"),
                PropertyAssignment(key: "muxer-factory", value: format.muxer),
                PropertyAssignment(key: "start-index", value: String(SegmentName.nextIndex(in: directory))),
            ],
            createsDirectories: [directory])
    }

    /// The plans of the claimed elements; two writing into one directory are refused (each would delete the other's
    /// segments and their numbers would collide).
    static func plans(_ claims: [ClaimedElement]) throws(HostError) -> [RecordingsElement] {
        var out: [RecordingsElement] = []
        for c in claims {
            let plan = try RecordingsElement(claim: c)
            if let other = out.first(where: { Self.sameDirectory($0.directory, plan.directory) }) {
                throw HostError(
                    .usage,
                    "recordings: \(other.name) and \(plan.name) both write into '\(Echo.value(plan.directory))': expected a directory= of its own for each"
                )
            }
            out.append(plan)
        }
        return out
    }

    /// The same directory, by realpath when both exist, else as absolute paths (standardized).
    static func sameDirectory(_ a: String, _ b: String) -> Bool {
        if let ra = FilePaths.realPath(a), let rb = FilePaths.realPath(b) { return ra == rb }
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = { (p: String) in ((p.hasPrefix("/") ? p : FilePaths.join(cwd, p)) as NSString).standardizingPath }
        return absolute(a) == absolute(b)
    }

    /// The limits as the user reads them: `segment 60 s, max-age 7d, max-size 20G`.
    public var limitsText: String {
        "segment \(segment) s, max-age \(RecordingLimits.durationText(maxAge)), max-size \(RecordingLimits.sizeText(maxSize))"
    }
}
