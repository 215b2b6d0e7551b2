import Foundation
import GStreamerKit
import Synchronization
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// One photo in `records.json`.
public struct PhotoRecord: Codable, Sendable, Equatable {
    /// A box in photo-source pixels.
    public struct Rect: Codable, Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double
        /// Creates a rectangle.
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x; self.y = y; self.width = width; self.height = height
        }
    }
    /// Photo number (the digits of IMG_nnnnn.jpg).
    public var id: Int
    /// File name, relative to the directory (absolute for a branch of the user's own writing elsewhere).
    public var file: String
    /// Thumbnail, relative to the directory (`thumbs/IMG_nnnnn.jpg`), when made.
    public var thumbnail: String?
    /// The uncropped frame beside a cropped photo (`keep-full`).
    public var full: String?
    /// Wall-clock time of the capture (ISO 8601, UTC).
    public var time: String
    /// Buffer timestamp of the frame (ns), when known.
    public var pts: UInt64?
    /// Photo width in pixels (read back from the JPEG).
    public var width: Int
    /// Photo height in pixels.
    public var height: Int
    /// Composition rule at capture time.
    public var rule: String?
    /// Composition score at capture time.
    public var score: Double?
    /// Advice at capture time.
    public var advice: String?
    /// Subject box in the saved photo's pixels (after the crop), from the analysis of that very frame;
    /// nil when that frame was not analysed or the subject lies outside the crop. (Records written
    /// before `analysisPts` existed hold it in the full frame's pixels.)
    public var subject: Rect?
    /// The pts of the frame rule, score, advice and subject were analysed on (the photo's own frame).
    public var analysisPts: UInt64?
    /// The subject's track id from that analysis (compose's `subject-id`: one face or person, the same id in every
    /// photo of them while compose follows them); nil for a group, a salient subject or none.
    public var subjectID: Int?

    /// The photo's path: `file` as it is when absolute (a user's own branch), else inside `directory`.
    public func path(in directory: String) -> String { file.hasPrefix("/") ? file : FilePaths.join(directory, file) }
    /// What triggered it (auto, manual, event, at, interval, timer; `found` for files added on reconcile).
    public var trigger: String
    /// Crop aspect (`none`, `3:4`...) and window in full-frame pixels.
    public var crop: String
    /// The crop window, when cropped.
    public var cropWindow: Rect?
    /// EXIF read back from the written file (GStreamer tag names -> text).
    public var exif: [String: String]

    /// Creates a record.
    public init(
        id: Int, file: String, thumbnail: String? = nil, full: String? = nil, time: String, pts: UInt64? = nil,
        width: Int, height: Int, rule: String? = nil, score: Double? = nil, advice: String? = nil, subject: Rect? = nil,
        analysisPts: UInt64? = nil, subjectID: Int? = nil, trigger: String, crop: String = "none", cropWindow: Rect? = nil, exif: [String: String] = [:]
    ) {
        self.id = id; self.file = file; self.thumbnail = thumbnail; self.full = full; self.time = time; self.pts = pts
        self.width = width; self.height = height; self.rule = rule; self.score = score; self.advice = advice; self.subject = subject
        self.analysisPts = analysisPts; self.subjectID = subjectID
        self.trigger = trigger; self.crop = crop; self.cropWindow = cropWindow; self.exif = exif
    }
}

/// `DIR/records.json`: the photo index, rewritten atomically (temp file, fsync, rename, fsync of the
/// directory) after each complete photo, and reconciled with the files on disk when opened.
///
/// Threads: the records live in memory and the whole file is rewritten from them, so every change
/// (`add` from capture's writer queue, `remove` from the control server) takes the one `records` mutex
/// around the change *and* the write: a photo deleted while the stage saves another is never written
/// back. Every open index is listed, weakly, by canonical directory (`live(directory:)`), so a change
/// from outside the stage goes through the stage's own instance while it is open.
public final class PhotoIndex: @unchecked Sendable {
    /// The file's top level.
    struct Document: Codable { var version = 1; var photos: [PhotoRecord] }

    /// The directory.
    public let directory: String
    /// Records, oldest first, and the lock held around every change and write of records.json.
    private let state = Mutex<[PhotoRecord]>([])
    /// Records, oldest first (a copy taken under the lock).
    public var records: [PhotoRecord] { state.withLock { $0 } }
    /// Problems found while opening (missing files dropped, unreadable index set aside...). Set by `init` only.
    public private(set) var warnings: [String] = []
    /// The canonical (realpath) directory this index is listed under in `registry`.
    private var canonicalDirectory: String?
    /// Path of records.json.
    public var path: String { FilePaths.join(directory, "records.json") }
    /// Where branches write before a photo is complete (never listed, emptied on open).
    public var partialDirectory: String { FilePaths.join(directory, ".partial") }

    /// Opens (creating the directory and its `.partial/thumbs` work area) and reconciles.
    /// `ownsWorkArea`: remove what `.partial/` holds (left by an interrupted run); false when the index is
    /// opened from outside a capture stage (the control server), whose running branches may be writing there.
    /// `clock`'s wall time names an unreadable records.json set aside and dates a photo whose file has no
    /// modification date.
    public init(directory: String, ownsWorkArea: Bool = true, clock: any HostClock = SystemClock.shared) throws(StageError) {
        self.directory = directory
        let fm = FileManager.default
        // Say what is wrong in words (a file in the way, no permission), not as Foundation's error number.
        if let problem = PathCheck.creatableDirectory(directory) {
            throw StageError(.resource, "cannot use photo directory '\(Echo.value(directory))': \(problem)")
        }
        do {
            try fm.createDirectory(atPath: FilePaths.join(directory, "thumbs"), withIntermediateDirectories: true)
            try fm.createDirectory(atPath: FilePaths.join(partialDirectory, "thumbs"), withIntermediateDirectories: true)
        } catch {
            throw StageError(.resource, "cannot create photo directory '\(directory)': \(error.localizedDescription)")
        }
        guard fm.isWritableFile(atPath: directory) else { throw StageError(.resource, "photo directory '\(directory)' is not writable") }
        try reconcile(ownsWorkArea: ownsWorkArea, now: clock.wallNow)
        canonicalDirectory = FilePaths.realPath(directory)
        if let key = canonicalDirectory { Self.register(self, key) }
    }

    deinit {
        guard let key = canonicalDirectory else { return }
        let me = ObjectIdentifier(self)
        Self.registry.withLock { r in
            if let entry = r[key], entry.id == me || entry.index == nil { r[key] = nil }
        }
    }

    // MARK: open indexes

    /// A weak reference to an open index (the registry must not keep a stage's index alive). A class:
    /// the weak reference stays at one heap address (a struct holding it inside the Mutex's dictionary
    /// crashed in swift_weakLoadStrong on a null reference, Swift 6.3 on Linux).
    private final class WeakIndex: @unchecked Sendable {
        weak var index: PhotoIndex?
        let id: ObjectIdentifier
        init(index: PhotoIndex, id: ObjectIdentifier) { self.index = index; self.id = id }
    }

    /// Open indexes by canonical directory, newest open wins; dead entries are dropped on each open.
    private static let registry = Mutex<[String: WeakIndex]>([:])

    private static func register(_ index: PhotoIndex, _ key: String) {
        registry.withLock { r in
            r = r.filter { $0.value.index != nil }
            r[key] = WeakIndex(index: index, id: ObjectIdentifier(index))
        }
    }

    /// The index open in this process for `directory` (compared by realpath), if any.
    public static func live(directory: String) -> PhotoIndex? {
        guard let key = FilePaths.realPath(directory) else { return nil }
        return registry.withLock { $0[key]?.index }
    }

    /// The index open for `directory` (a running capture stage's), or a new one opened without touching
    /// `.partial/` when none is: changes from outside a stage go through the instance that rewrites the file.
    public static func opened(directory: String) throws(StageError) -> PhotoIndex {
        if let open = live(directory: directory) { return open }
        return try PhotoIndex(directory: directory, ownsWorkArea: false)
    }

    /// The records of `DIR/records.json`, read only (nil when absent or unreadable).
    public static func load(directory: String) -> [PhotoRecord]? {
        let path = FilePaths.join(directory, "records.json")
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(Document.self, from: data).photos
    }

    /// Photo number from a file name `IMG_nnnnn.jpg`.
    public static func number(of file: String) -> Int? {
        let name = FilePaths.fileName(of: file)
        guard name.hasPrefix("IMG_"), name.hasSuffix(".jpg") else { return nil }
        return Int(name.dropFirst(4).dropLast(4))
    }

    /// The next free photo number (one past the highest listed or lying on disk).
    public var nextNumber: Int { max(records.map(\.id).max() ?? 0, Self.highestNumber(in: directory)) + 1 }

    /// The number `nextNumber` will have once the index in `directory` is opened and reconciled, found
    /// without writing anything: one past the highest of the listed photos still on disk and the photos
    /// lying in the directory.
    public static func plannedNextNumber(directory: String) -> Int {
        let fm = FileManager.default
        let listed = (load(directory: directory) ?? []).filter {
            fm.fileExists(atPath: $0.path(in: directory))
        }
        return max(listed.map(\.id).max() ?? 0, highestNumber(in: directory)) + 1
    }

    /// The highest photo number lying in `directory` (0 when none).
    public static func highestNumber(in directory: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { number(of: $0) }.max() ?? 0
    }

    private func reconcile(ownsWorkArea: Bool, now: Date) throws(StageError) {
        let fm = FileManager.default
        // Left-overs of a run that was killed while saving: never complete by construction.
        for sub in ["", "thumbs"] where ownsWorkArea {
            let d = FilePaths.join(partialDirectory, sub)
            // multifilesink writes through a temp file and a rename (g_file_set_contents): either may be here.
            for f in (try? fm.contentsOfDirectory(atPath: d)) ?? [] where f != "thumbs" {
                try? fm.removeItem(atPath: FilePaths.join(d, f))
                warnings.append("removed unfinished \(sub.isEmpty ? "" : sub + "/")\(f) left by an interrupted run")
            }
        }
        var changed = false
        var records: [PhotoRecord] = []
        if fm.fileExists(atPath: path) {
            if let data = fm.contents(atPath: path), let doc = try? JSONDecoder().decode(Document.self, from: data) {
                records = doc.photos
            } else {
                let aside = path + ".unreadable-\(Int(now.timeIntervalSince1970))"
                try? fm.moveItem(atPath: path, toPath: aside)
                warnings.append("records.json could not be read; set aside as \(FilePaths.fileName(of: aside)), rebuilt from the files")
                changed = true
            }
        }
        let before = records.count
        records.removeAll { r in
            let gone = !fm.fileExists(atPath: r.path(in: directory))
            if gone { warnings.append("\(r.file) is listed but missing: dropped from records.json") }
            return gone
        }
        changed = changed || records.count != before
        let listed = Set(records.map(\.file))
        let files = ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).filter { Self.number(of: $0) != nil }.sorted()
        for f in files where !listed.contains(f) {
            let full = FilePaths.join(directory, f)
            guard let info = JPEGFile.read(full), info.complete else {
                warnings.append("\(f) is not a complete JPEG: not listed")
                continue
            }
            let attrs = try? fm.attributesOfItem(atPath: full)
            let date = (attrs?[.modificationDate] as? Date) ?? now
            let thumb = "thumbs/" + f
            records.append(
                PhotoRecord(
                    id: Self.number(of: f)!, file: f,
                    thumbnail: fm.fileExists(atPath: FilePaths.join(directory, thumb)) ? thumb : nil,
                    time: Self.timeText(date), width: info.width, height: info.height, trigger: "found", exif: info.tags))
            warnings.append("\(f) was on disk but not listed: added to records.json")
            changed = true
        }
        records.sort { $0.id < $1.id }
        let found = records
        try state.withLock { (r: inout [PhotoRecord]) throws(StageError) in
            r = found
            if changed { try write(found) }
        }
    }

    /// Adds a record for a complete photo and rewrites the index (under the records lock; the record
    /// stays in memory when the write fails, so the next write lists it).
    public func add(_ record: PhotoRecord) throws(StageError) {
        try state.withLock { (records: inout [PhotoRecord]) throws(StageError) in
            records.removeAll { $0.file == record.file }
            records.append(record)
            records.sort { $0.id < $1.id }
            try write(records)
        }
    }

    /// What `remove(id:)` did.
    public struct Removal: Sendable, Equatable {
        /// The record taken out of records.json.
        public var record: PhotoRecord
        /// Files removed (as the record names them); a file already gone is in neither list.
        public var removed: [String]
        /// Files that could not be removed, each with the reason (the record stays removed).
        public var warnings: [String]
    }

    /// Removes photo `id`: records.json is rewritten without it first (atomically), then its photo,
    /// thumbnail and full file are removed, all under the records lock so a photo being saved at the
    /// same time cannot write it back. Only files lying inside the directory are removed (a symlink
    /// is removed itself, never its target); any other file, or one that cannot be removed, is named
    /// in `warnings`. Throws when no record has that id (`.usage`) or records.json cannot be written
    /// (`.resource`: then nothing changed).
    public func remove(id: Int) throws(StageError) -> Removal {
        try state.withLock { (records: inout [PhotoRecord]) throws(StageError) -> Removal in
            guard let i = records.firstIndex(where: { $0.id == id }) else {
                throw StageError(.usage, "no photo with id \(id) in \(path)")
            }
            var next = records
            let record = next.remove(at: i)
            try write(next)
            records = next
            var removal = Removal(record: record, removed: [], warnings: [])
            for file in [record.file, record.thumbnail, record.full].compactMap({ $0 }) {
                let full = file.hasPrefix("/") ? file : FilePaths.join(directory, file)
                guard isInside(full) else {
                    removal.warnings.append("\(file): not removed: it lies outside \(directory)")
                    continue
                }
                if unlink(full) == 0 {
                    removal.removed.append(file)
                } else if errno != ENOENT {  // already gone: nothing to report
                    removal.warnings.append("\(file): not removed: \(Self.errnoText())")
                }
            }
            return removal
        }
    }

    /// True when `path`'s parent resolves (realpath) inside the directory and its last component is a
    /// plain name: what `remove` may unlink (the entry itself, even a symlink pointing elsewhere).
    private func isInside(_ path: String) -> Bool {
        let name = FilePaths.fileName(of: path)
        guard !name.isEmpty, name != ".", name != "..", name != "/",
            let dir = FilePaths.realPath(directory), let parent = FilePaths.realPath(FilePaths.directory(of: path))
        else { return false }
        return parent == dir || parent.hasPrefix(dir.hasSuffix("/") ? dir : dir + "/")
    }

    /// ISO 8601 UTC with milliseconds.
    public static func timeText(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    /// Writes `records` as records.json atomically: a temp file in the same directory, fsync, rename,
    /// fsync the directory. Called with the records lock held.
    private func write(_ records: [PhotoRecord]) throws(StageError) {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try enc.encode(Document(photos: records)) } catch {
            throw StageError(.resource, "cannot encode records.json: \(error)")
        }
        try Self.writeAtomically(data, to: path)
    }

    /// Temp file + fsync + rename + directory fsync; on failure the old file is untouched and the temp removed.
    public static func writeAtomically(_ data: Data, to path: String) throws(StageError) {
        let dir = FilePaths.directory(of: path)
        let tmp = FilePaths.join(dir, ".\(FilePaths.fileName(of: path)).tmp-\(getpid())")
        do {
            guard FileManager.default.createFile(atPath: tmp, contents: nil), let h = FileHandle(forWritingAtPath: tmp) else {
                throw StageError(.resource, "cannot create '\(tmp)'")
            }
            do {
                try h.write(contentsOf: data)
                try h.synchronize()
                try h.close()
            } catch {
                try? h.close()
                throw StageError(.resource, "cannot write '\(tmp)': \(error.localizedDescription)")
            }
            guard rename(tmp, path) == 0 else { throw StageError(.resource, "cannot rename '\(tmp)' to '\(path)': \(errnoText())") }
        } catch let e as StageError {
            unlink(tmp)
            throw e
        } catch {
            unlink(tmp)
            throw StageError(.resource, "cannot write '\(path)': \(error)")
        }
        syncDirectory(dir)
    }

    static func errnoText() -> String {
        POSIXErrorCode(rawValue: errno).map { POSIXError($0).localizedDescription } ?? "errno \(errno)"
    }

    /// fsync of a file's data (before it is listed).
    public static func syncFile(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        return (try? h.synchronize()) != nil
    }

    /// fsync of a directory (so a rename in it is durable).
    public static func syncDirectory(_ dir: String) {
        let fd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
