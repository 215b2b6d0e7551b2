import Foundation
import GStreamerKit
import Synchronization
import Timing

/// One saved clip as `clips.json` lists it.
public struct ClipRecord: Codable, Sendable, Equatable {
    /// The clip's number (the digits of CLIP_nnnnn.mp4).
    public var id: Int
    /// The file, relative to the directory.
    public var file: String
    /// Its thumbnail (`thumbs/CLIP_nnnnn.jpg`), when made.
    public var thumbnail: String?
    /// The first frame's presentation time and the last frame's (ns, the stream's clock).
    public var startPts: UInt64?
    public var endPts: UInt64?
    /// Seconds from the first frame to the last.
    public var duration: Double
    /// Wall-clock times of the first and the last frame (ISO 8601, UTC).
    public var startTime: String
    public var endTime: String
    /// The first trigger's kind (`photo`, `api`, `mqtt`, `signal`, `key`, `composition`; `found` for a complete file
    /// the index did not list).
    public var trigger: String
    /// Every trigger the clip covers.
    public var triggers: [ClipTrigger]
    /// The photo it belongs to (the first photo trigger).
    public var photo: ClipTrigger.Photo?
    /// Composition score per second of the clip (nil: no analysis in that second).
    public var timeline: [Double?]
    /// Frames and bytes of encoded video.
    public var frames: Int
    public var bytes: Int
    /// What the user should know (a short pre-roll, a start at the first keyframe).
    public var notes: [String]

    public init(
        id: Int, file: String, thumbnail: String?, startPts: UInt64?, endPts: UInt64?, duration: Double, startTime: String, endTime: String,
        trigger: String, triggers: [ClipTrigger], photo: ClipTrigger.Photo?, timeline: [Double?], frames: Int, bytes: Int, notes: [String]
    ) {
        self.id = id; self.file = file; self.thumbnail = thumbnail; self.startPts = startPts; self.endPts = endPts
        self.duration = duration; self.startTime = startTime; self.endTime = endTime; self.trigger = trigger
        self.triggers = triggers; self.photo = photo; self.timeline = timeline; self.frames = frames; self.bytes = bytes
        self.notes = notes
    }

    /// The file name of clip `id`.
    public static func fileName(_ id: Int) -> String { String(format: "CLIP_%05d.mp4", id) }
}

/// `clips.json`: the clips of one directory, replaced whole and atomically (`AtomicFile`) at every change, so a
/// reader or a process started after a kill -9 sees the old list or the new one. A clip is listed only once its file
/// is complete: it is written in `.partial/` and renamed into place after the muxer finished. Opening reconciles:
/// `.partial/` is emptied (a clip cut short by a kill is removed), listed clips whose file is gone are dropped, and a
/// complete `CLIP_nnnnn.mp4` the index missed (a kill between the rename and the index write) is listed as `found`.
public final class ClipIndex: @unchecked Sendable {
    struct Document: Codable {
        var version = 1
        var clips: [ClipRecord]
        /// The next clip's number (a deleted newest clip's number is not given again: URLs and caches stay true).
        var next: Int?
    }

    public let directory: String
    private let state = Mutex<[ClipRecord]>([])
    /// The next number to give, at least one past every number given (saved as `next`).
    private let next = Mutex<Int>(1)
    /// Records, oldest first.
    public var records: [ClipRecord] { state.withLock { $0 } }
    /// What opening found and mended.
    public private(set) var warnings: [String] = []
    public var path: String { FilePaths.join(directory, "clips.json") }
    public var partialDirectory: String { FilePaths.join(directory, ".partial") }

    /// Opens `directory` (creating it, `thumbs/` and `.partial/`) and reconciles.
    public init(directory: String, clock: any HostClock = SystemClock.shared) throws(HostError) {
        self.directory = directory
        let fm = FileManager.default
        for path in [FilePaths.join(directory, "thumbs"), partialDirectory] {
            if let reason = Self.makeDirectories(path) { throw HostError(.runtime, "clips: cannot create '\(path)': \(reason)") }
        }
        guard fm.isWritableFile(atPath: directory) else { throw HostError(.runtime, "clips: directory '\(directory)' is not writable") }
        for name in (try? fm.contentsOfDirectory(atPath: partialDirectory)) ?? [] {
            unlink(FilePaths.join(partialDirectory, name))
            warnings.append("removed an unfinished clip left by an interrupted run: .partial/\(name)")
        }
        var records: [ClipRecord] = []
        if let data = fm.contents(atPath: path) {
            if let doc = try? JSONDecoder().decode(Document.self, from: data) {
                records = doc.clips
                next.withLock { $0 = max($0, doc.next ?? 1) }
            } else {
                let aside = path + ".unreadable-\(Int(clock.wallNow.timeIntervalSince1970))"
                _ = rename(path, aside)
                warnings.append("clips.json could not be read: set aside as \(FilePaths.fileName(of: aside)), rebuilt from the files")
            }
        }
        let before = records.count
        records.removeAll { !fm.fileExists(atPath: FilePaths.join(directory, $0.file)) }
        if records.count < before { warnings.append("\(before - records.count) clip(s) listed without a file were dropped from clips.json") }
        let listed = Set(records.map(\.file))
        for name in ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).sorted() where !listed.contains(name) {
            guard let id = Self.id(ofFile: name), let attributes = try? fm.attributesOfItem(atPath: FilePaths.join(directory, name)) else { continue }
            let date = (attributes[.modificationDate] as? Date) ?? clock.wallNow
            let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
            let thumb = "thumbs/" + name.replacingOccurrences(of: ".mp4", with: ".jpg")
            records.append(
                ClipRecord(
                    id: id, file: name, thumbnail: fm.fileExists(atPath: FilePaths.join(directory, thumb)) ? thumb : nil, startPts: nil,
                    endPts: nil, duration: 0, startTime: Self.iso(date), endTime: Self.iso(date), trigger: "found",
                    triggers: [ClipTrigger(kind: "found")], photo: nil, timeline: [], frames: 0, bytes: bytes,
                    notes: ["found complete in the directory but not in clips.json (listed again)"]))
            warnings.append("listed \(name): complete but missing from clips.json")
        }
        records.sort { $0.id < $1.id }
        let highest = records.map(\.id).max() ?? 0
        next.withLock { $0 = max($0, highest + 1) }
        state.withLock { $0 = records }
        if !warnings.isEmpty { try save(records) }
    }

    /// One past the highest clip number ever listed here (kept in clips.json as `next`).
    public var nextID: Int { next.withLock { $0 } }

    /// Lists a complete clip.
    public func add(_ record: ClipRecord) throws(HostError) {
        try state.withLock { (list: inout [ClipRecord]) throws(HostError) in
            var updated = list
            updated.append(record)
            next.withLock { $0 = max($0, record.id + 1) }
            try save(updated)
            list = updated
        }
    }

    /// Removes clip `id`: its file and thumbnail, then its record; nil when it is not listed.
    public func remove(id: Int) throws(HostError) -> ClipRecord? {
        let removed = try state.withLock { (list: inout [ClipRecord]) throws(HostError) -> ClipRecord? in
            guard let i = list.firstIndex(where: { $0.id == id }) else { return nil }
            var updated = list
            let record = updated.remove(at: i)
            try save(updated)
            list = updated
            return record
        }
        guard let record = removed else { return nil }
        for file in [record.file, record.thumbnail].compactMap({ $0 }) {
            do throws(AtomicFile.Failure) { try AtomicFile.remove(FilePaths.join(directory, file)) } catch {
                throw HostError(.runtime, "clips: removed clip \(id) from clips.json but not \(file): \(error.reason)")
            }
        }
        return record
    }

    private func save(_ records: [ClipRecord]) throws(HostError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(Document(clips: records, next: next.withLock { $0 })) else { throw HostError(.runtime, "clips: cannot encode clips.json") }
        do { try AtomicFile.write(data, to: path) } catch { throw HostError(.runtime, "clips: cannot write \(path): \(error.reason)") }
    }

    /// `mkdir -p path`; nil when it exists, else the reason (strerror's words).
    static func makeDirectories(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? nil : "'\(path)' is a file, not a directory"
        }
        let parent = FilePaths.directory(of: path)
        if parent != path, !parent.isEmpty, let reason = makeDirectories(parent) { return reason }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
        return nil
    }

    /// The number in `CLIP_nnnnn.mp4`, nil for any other name.
    public static func id(ofFile name: String) -> Int? {
        guard name.hasPrefix("CLIP_"), name.hasSuffix(".mp4") else { return nil }
        let digits = name.dropFirst(5).dropLast(4)
        guard !digits.isEmpty, digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }

    /// ISO 8601 in UTC with milliseconds.
    public static func iso(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}
