import Foundation
import GStreamerKit

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
        analysisPts: UInt64? = nil, trigger: String, crop: String = "none", cropWindow: Rect? = nil, exif: [String: String] = [:]
    ) {
        self.id = id; self.file = file; self.thumbnail = thumbnail; self.full = full; self.time = time; self.pts = pts
        self.width = width; self.height = height; self.rule = rule; self.score = score; self.advice = advice; self.subject = subject
        self.analysisPts = analysisPts
        self.trigger = trigger; self.crop = crop; self.cropWindow = cropWindow; self.exif = exif
    }
}

/// `DIR/records.json`: the photo index, rewritten atomically (temp file, fsync, rename, fsync of the
/// directory) after each complete photo, and reconciled with the files on disk when opened.
public final class PhotoIndex: @unchecked Sendable {
    /// The file's top level.
    struct Document: Codable { var version = 1; var photos: [PhotoRecord] }

    /// The directory.
    public let directory: String
    /// Records, oldest first.
    public private(set) var records: [PhotoRecord] = []
    /// Problems found while opening (missing files dropped, unreadable index set aside...).
    public private(set) var warnings: [String] = []
    /// Path of records.json.
    public var path: String { FilePaths.join(directory, "records.json") }
    /// Where branches write before a photo is complete (never listed, emptied on open).
    public var partialDirectory: String { FilePaths.join(directory, ".partial") }

    /// Opens (creating the directory and its `.partial/thumbs` work area) and reconciles.
    public init(directory: String) throws(StageError) {
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
        try reconcile()
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

    private func reconcile() throws(StageError) {
        let fm = FileManager.default
        // Left-overs of a run that was killed while saving: never complete by construction.
        for sub in ["", "thumbs"] {
            let d = FilePaths.join(partialDirectory, sub)
            // multifilesink writes through a temp file and a rename (g_file_set_contents): either may be here.
            for f in (try? fm.contentsOfDirectory(atPath: d)) ?? [] where f != "thumbs" {
                try? fm.removeItem(atPath: FilePaths.join(d, f))
                warnings.append("removed unfinished \(sub.isEmpty ? "" : sub + "/")\(f) left by an interrupted run")
            }
        }
        var changed = false
        if fm.fileExists(atPath: path) {
            if let data = fm.contents(atPath: path), let doc = try? JSONDecoder().decode(Document.self, from: data) {
                records = doc.photos
            } else {
                let aside = path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
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
            let date = (attrs?[.modificationDate] as? Date) ?? Date()
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
        if changed { try write() }
    }

    /// Adds a record for a complete photo and rewrites the index.
    public func add(_ record: PhotoRecord) throws(StageError) {
        records.removeAll { $0.file == record.file }
        records.append(record)
        records.sort { $0.id < $1.id }
        try write()
    }

    /// ISO 8601 UTC with milliseconds.
    public static func timeText(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    /// Writes records.json atomically: a temp file in the same directory, fsync, rename, fsync the directory.
    func write() throws(StageError) {
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
