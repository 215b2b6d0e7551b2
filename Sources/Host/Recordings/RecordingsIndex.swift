import Foundation
import GStreamerKit

/// One segment as `recordings.json` lists it.
public struct RecordingSegment: Codable, Sendable, Equatable {
    /// The file name in the element's directory (`REC_00042.mp4`).
    public var file: String
    /// Its size in bytes (when last looked at; grows while open).
    public var bytes: Int64
    /// Wall-clock time it was opened (ISO 8601, UTC); nil for a file found on disk that no index dated.
    public var start: String?
    /// Its end: the file's modification time (ISO 8601, UTC) when closed or found; nil while open.
    public var end: String?
    /// Seconds of stream it holds (from splitmuxsink's running times), when known.
    public var duration: Double?
    /// True while splitmuxsink writes it (the last opened, not closed): never deleted.
    public var open: Bool
    /// Why a leftover may not play (`empty`: zero bytes; `unreadable`; `interrupted`: it was being written when the
    /// index was last written, a kill mid-segment); nil when nothing is known against it. Listed, never deleted for it.
    public var problem: String?

    /// Creates one.
    public init(
        file: String, bytes: Int64, start: String? = nil, end: String? = nil, duration: Double? = nil, open: Bool = false,
        problem: String? = nil
    ) {
        self.file = file; self.bytes = bytes; self.start = start; self.end = end; self.duration = duration; self.open = open
        self.problem = problem
    }
}

/// `DIR/recordings.json`: a `recordings` element's segments, oldest first, rewritten atomically (`AtomicFile`)
/// whenever one opens, closes or is deleted, and rebuilt from the directory when the run starts: every `REC_`
/// file found is listed (dates and durations kept from the old index when it names the file), a zero-byte or
/// unreadable leftover is listed as such and never deleted for it, a listed file that is gone is dropped.
///
/// Threads and locks: none; pure functions but for the files they read and write. `Recorder` serialises its writes.
public enum RecordingsIndex {
    /// The file's top level.
    struct Document: Codable {
        var version = 1
        var element: String
        var directory: String
        var segments: [RecordingSegment]
    }

    /// The index file of `directory`.
    public static func path(in directory: String) -> String { FilePaths.join(directory, "recordings.json") }

    /// The segments `directory`'s recordings.json lists, nil when it is absent or unreadable.
    public static func load(directory: String) -> [RecordingSegment]? {
        guard let data = FileManager.default.contents(atPath: path(in: directory)) else { return nil }
        return try? JSONDecoder().decode(Document.self, from: data).segments
    }

    /// Writes the index atomically; the reason when it could not.
    public static func write(_ segments: [RecordingSegment], element: String, directory: String) throws(AtomicFile.Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(Document(element: element, directory: directory, segments: segments)) } catch {
            throw AtomicFile.Failure(reason: "cannot encode recordings.json: \(error)")
        }
        try AtomicFile.write(data, to: path(in: directory))
    }

    /// The segments lying in `directory` now, oldest first, with what the old index knew of each; and a line for each
    /// leftover that may not play.
    public static func rebuild(directory: String) -> (segments: [RecordingSegment], warnings: [String]) {
        let old = Dictionary((load(directory: directory) ?? []).map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a })
        var segments: [RecordingSegment] = []
        var warnings: [String] = []
        for name in SegmentName.list(in: directory) {
            let path = FilePaths.join(directory, name)
            var segment = look(at: path, name: name) ?? RecordingSegment(file: name, bytes: 0, problem: "unreadable")
            if let known = old[name] {
                segment.start = known.start
                segment.duration = known.duration
                if known.open && segment.problem == nil { segment.problem = "interrupted" }
            }
            if access(path, R_OK) != 0 { segment.problem = "unreadable" }
            if let p = segment.problem { warnings.append("\(name): \(describe(p)): listed, not deleted for it") }
            segments.append(segment)
        }
        return (segments, warnings)
    }

    /// A segment file's size and modification time (`problem` empty for zero bytes), nil when it cannot be stat'ed.
    static func look(at path: String, name: String) -> RecordingSegment? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        let modified = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
        return RecordingSegment(file: name, bytes: Int64(st.st_size), end: timeText(modified), problem: st.st_size == 0 ? "empty" : nil)
    }

    /// A file's modification time, nil when it cannot be stat'ed.
    static func modified(_ path: String) -> Date? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }

    /// ISO 8601 UTC with milliseconds.
    public static func timeText(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    private static func describe(_ problem: String) -> String {
        switch problem {
        case "empty": "zero bytes (a run that ended before its first frame, or a kill)"
        case "interrupted": "was being written when the last run ended (a kill mid-segment: an mp4 has no moov)"
        default: "cannot be read"
        }
    }
}
