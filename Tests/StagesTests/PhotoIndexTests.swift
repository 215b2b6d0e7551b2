import Foundation
import Stages
import TestTags
import Testing

/// records.json: atomic writes and reconciliation with the files on disk (real JPEGs from gst-launch).
@Suite(.tags(.process), .tier) struct PhotoIndexTests {
    static func dir() -> String {
        let d = NSTemporaryDirectory() + "vf-index-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// A real JPEG written by jpegenc ! jifmux.
    static func jpeg(_ path: String, width: Int = 96, height: Int = 64) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = [
            "-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=\(width),height=\(height)", "!", "jpegenc", "!",
            "taginject", "tags=description=found", "!", "jifmux", "!", "filesink", "location=\(path)",
        ]
        try p.run(); p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    static func readBack(_ d: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: d + "/records.json"))
        let top = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(top["version"] as? Int == 1)
        return try #require(top["photos"] as? [[String: Any]])
    }

    @Test func opensAnEmptyDirectoryWithoutWritingAnything() throws {
        let d = Self.dir() + "/new/photos"
        let idx = try PhotoIndex(directory: d)
        #expect(idx.records.isEmpty && idx.warnings.isEmpty)
        #expect(idx.nextNumber == 1)
        #expect(FileManager.default.fileExists(atPath: d + "/thumbs"))
        #expect(!FileManager.default.fileExists(atPath: d + "/records.json"))
    }

    @Test func addWritesAtomicallyAndKeepsOrder() throws {
        let d = Self.dir()
        try Self.jpeg(d + "/IMG_00002.jpg"); try Self.jpeg(d + "/IMG_00001.jpg")
        let idx = try PhotoIndex(directory: d)  // both found on disk
        #expect(idx.records.map(\.file) == ["IMG_00001.jpg", "IMG_00002.jpg"])
        #expect(idx.records.allSatisfy { $0.trigger == "found" && $0.width == 96 && $0.height == 64 && $0.exif["description"] == "found" })
        try Self.jpeg(d + "/IMG_00003.jpg", width: 120, height: 80)
        try idx.add(
            PhotoRecord(
                id: 3, file: "IMG_00003.jpg", time: "2026-11-22T05:00:00.000Z", pts: 42, width: 120, height: 80,
                rule: "thirds", score: 0.8, trigger: "manual"))
        let photos = try Self.readBack(d)
        #expect(photos.map { $0["file"] as? String } == ["IMG_00001.jpg", "IMG_00002.jpg", "IMG_00003.jpg"])
        #expect(photos[2]["score"] as? Double == 0.8 && photos[2]["pts"] as? Int == 42)
        #expect(idx.nextNumber == 4)
        // No temp file left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: d).filter { $0.contains("tmp") }.isEmpty)
    }

    @Test func reconcileDropsMissingAddsCompleteIgnoresBrokenAndClearsLeftovers() throws {
        let d = Self.dir()
        try Self.jpeg(d + "/IMG_00001.jpg"); try Self.jpeg(d + "/IMG_00002.jpg")
        _ = try PhotoIndex(directory: d)
        try FileManager.default.removeItem(atPath: d + "/IMG_00001.jpg")  // listed, now missing
        try Self.jpeg(d + "/IMG_00007.jpg")  // complete, unlisted
        let whole = try Data(contentsOf: URL(fileURLWithPath: d + "/IMG_00002.jpg"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: d + "/IMG_00009.jpg"))  // cut short
        try whole.write(to: URL(fileURLWithPath: d + "/.partial/IMG_00010.jpg"))  // an interrupted save
        try whole.write(to: URL(fileURLWithPath: d + "/.partial/IMG_00010.jpg.X1Y2Z3"))
        let idx = try PhotoIndex(directory: d)
        #expect(idx.records.map(\.file) == ["IMG_00002.jpg", "IMG_00007.jpg"])
        #expect(idx.warnings.contains("IMG_00001.jpg is listed but missing: dropped from records.json"))
        #expect(idx.warnings.contains("IMG_00007.jpg was on disk but not listed: added to records.json"))
        #expect(idx.warnings.contains("IMG_00009.jpg is not a complete JPEG: not listed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: d + "/.partial") == ["thumbs"])
        #expect(try Self.readBack(d).map { $0["file"] as? String } == ["IMG_00002.jpg", "IMG_00007.jpg"])
        #expect(idx.nextNumber == 10)  // after the broken IMG_00009 too: never overwrite a file
    }

    @Test func anUnreadableIndexIsSetAsideAndRebuilt() throws {
        let d = Self.dir()
        try Self.jpeg(d + "/IMG_00001.jpg")
        try Data("{\"photos\": [".utf8).write(to: URL(fileURLWithPath: d + "/records.json"))
        let idx = try PhotoIndex(directory: d)
        #expect(idx.records.map(\.file) == ["IMG_00001.jpg"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: d).contains { $0.hasPrefix("records.json.unreadable-") })
        #expect(try Self.readBack(d).count == 1)
    }

    @Test func aDirectoryThatCannotBeMadeIsAnError() throws {
        let f = Self.dir() + "/file"
        FileManager.default.createFile(atPath: f, contents: Data())
        #expect(throws: StageError.self) { _ = try PhotoIndex(directory: f + "/photos") }
        #expect(PhotoIndex.number(of: "IMG_00042.jpg") == 42)
        #expect(PhotoIndex.number(of: "thumbs/IMG_00042.jpg") == 42)
        #expect(PhotoIndex.number(of: "IMG_00042_full.jpg") == nil)
    }

    /// capture's branches number from here before the index is opened: same as the opened index, nothing written.
    @Test func plannedNextNumberMatchesTheOpenedIndexAndWritesNothing() throws {
        let d = Self.dir()
        try Self.jpeg(d + "/IMG_00003.jpg")
        #expect(PhotoIndex.plannedNextNumber(directory: d) == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d) == ["IMG_00003.jpg"])
        #expect(try PhotoIndex(directory: d).nextNumber == 4)
        #expect(PhotoIndex.plannedNextNumber(directory: d + "/not/yet") == 1)
    }

    /// A file in the way is named in words, not as Foundation's error number.
    @Test func aFileInTheWayIsNamed() throws {
        let f = Self.dir() + "/file"
        FileManager.default.createFile(atPath: f, contents: Data())
        do {
            _ = try PhotoIndex(directory: f + "/photos")
            Issue.record("opened under a file")
        } catch {
            #expect(error.message.contains("'\(f)' is a file, not a directory"), "\(error.message)")
            #expect(!error.message.contains("NSCocoaErrorDomain"))
        }
    }

    // MARK: remove, and the open indexes

    /// A photo with its thumbnail, indexed with a record naming both.
    static func photo(_ idx: PhotoIndex, _ n: Int) throws {
        let name = String(format: "IMG_%05d.jpg", n)
        try jpeg(idx.directory + "/" + name)
        try jpeg(idx.directory + "/thumbs/" + name, width: 48, height: 32)
        try idx.add(
            PhotoRecord(
                id: n, file: name, thumbnail: "thumbs/" + name, time: "2026-11-22T05:00:0\(n).000Z", width: 96, height: 64,
                trigger: "manual"))
    }

    @Test func removeRewritesTheIndexThenRemovesTheFiles() throws {
        let d = Self.dir()
        let idx = try PhotoIndex(directory: d)
        try Self.photo(idx, 1); try Self.photo(idx, 2)
        let removal = try idx.remove(id: 1)
        #expect(removal.record.file == "IMG_00001.jpg" && removal.record.thumbnail == "thumbs/IMG_00001.jpg")
        #expect(removal.removed == ["IMG_00001.jpg", "thumbs/IMG_00001.jpg"] && removal.warnings.isEmpty)
        #expect(try Self.readBack(d).map { $0["id"] as? Int } == [2])
        #expect(idx.records.map(\.id) == [2])
        let fm = FileManager.default
        #expect(!fm.fileExists(atPath: d + "/IMG_00001.jpg") && !fm.fileExists(atPath: d + "/thumbs/IMG_00001.jpg"))
        #expect(fm.fileExists(atPath: d + "/IMG_00002.jpg") && fm.fileExists(atPath: d + "/thumbs/IMG_00002.jpg"))
        // The next photo rewrites the whole file from memory: the removed record stays out.
        try Self.photo(idx, 3)
        #expect(try Self.readBack(d).map { $0["id"] as? Int } == [2, 3])
        // And a second removal of the same id is refused as unknown, naming it.
        do {
            _ = try idx.remove(id: 1)
            Issue.record("removed twice")
        } catch {
            #expect(error.domain == .usage && error.message.contains("no photo with id 1"), "\(error.message)")
        }
    }

    /// A record naming a file outside the directory (a user's branch, or a forged one) loses its record only;
    /// a symlink inside is removed itself, never the file it points to.
    @Test func removeNeverTouchesFilesOutsideTheDirectory() throws {
        let d = Self.dir(), outside = Self.dir()
        let fm = FileManager.default
        try Self.jpeg(outside + "/mine.jpg")
        try Self.jpeg(outside + "/target.jpg")
        try fm.createSymbolicLink(atPath: d + "/IMG_00005.jpg", withDestinationPath: outside + "/target.jpg")
        let idx = try PhotoIndex(directory: d)  // the symlink is found and listed (it resolves to a complete JPEG)
        let time = "2026-11-22T05:00:00.000Z"
        try idx.add(PhotoRecord(id: 7, file: outside + "/mine.jpg", time: time, width: 96, height: 64, trigger: "manual"))
        let dotted = "../" + (outside as NSString).lastPathComponent + "/mine.jpg"
        try idx.add(PhotoRecord(id: 8, file: dotted, time: time, width: 96, height: 64, trigger: "manual"))
        let absolute = try idx.remove(id: 7)
        #expect(absolute.removed.isEmpty && absolute.warnings == ["\(outside)/mine.jpg: not removed: it lies outside \(d)"])
        let up = try idx.remove(id: 8)
        #expect(up.removed.isEmpty && up.warnings.count == 1 && up.warnings[0].contains("lies outside"))
        #expect(fm.fileExists(atPath: outside + "/mine.jpg"))
        let link = try idx.remove(id: 5)
        #expect(link.removed == ["IMG_00005.jpg"] && link.warnings.isEmpty)
        #expect((try? fm.destinationOfSymbolicLink(atPath: d + "/IMG_00005.jpg")) == nil)
        #expect(fm.fileExists(atPath: outside + "/target.jpg"))
        #expect(try Self.readBack(d).isEmpty)
    }

    /// A file that cannot be removed is reported; the record stays removed.
    @Test func aFileThatCannotBeRemovedIsReportedAndTheRecordStaysRemoved() throws {
        let d = Self.dir()
        let idx = try PhotoIndex(directory: d)
        try Self.photo(idx, 1)
        // A directory where the thumbnail should be: unlink(2) fails with EISDIR.
        try FileManager.default.removeItem(atPath: d + "/thumbs/IMG_00001.jpg")
        try FileManager.default.createDirectory(atPath: d + "/thumbs/IMG_00001.jpg/x", withIntermediateDirectories: true)
        let removal = try idx.remove(id: 1)
        #expect(removal.removed == ["IMG_00001.jpg"])
        #expect(removal.warnings.count == 1 && removal.warnings[0].hasPrefix("thumbs/IMG_00001.jpg: not removed: "), "\(removal.warnings)")
        #expect(try Self.readBack(d).isEmpty)
    }

    /// The control server finds the capture stage's own instance by any spelling of the directory; once
    /// released it is gone from the list, and `opened` then opens one that leaves `.partial/` alone.
    @Test func openIndexesAreFoundByCanonicalDirectoryAndHeldWeakly() throws {
        let d = Self.dir()
        let alias = Self.dir() + "/alias"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: d)
        var idx: PhotoIndex? = try PhotoIndex(directory: d)
        #expect(PhotoIndex.live(directory: d) === idx)
        #expect(PhotoIndex.live(directory: alias + "/./") === idx)
        #expect(try PhotoIndex.opened(directory: alias) === idx)
        idx = nil
        #expect(PhotoIndex.live(directory: d) == nil)
        let busy = d + "/.partial/IMG_00009.jpg"  // a running branch's file
        FileManager.default.createFile(atPath: busy, contents: Data([1, 2, 3]))
        let other = try PhotoIndex.opened(directory: d)
        #expect(FileManager.default.fileExists(atPath: busy))
        #expect(PhotoIndex.live(directory: d) === other)
        #expect(PhotoIndex.live(directory: d + "/missing") == nil)
    }

    /// Adds from one thread while another removes: the file always ends as memory says, no removed photo back.
    @Test func concurrentAddsAndRemovesNeverResurrectARecord() throws {
        let d = Self.dir()
        let idx = try PhotoIndex(directory: d)
        try Self.jpeg(d + "/IMG_00001.jpg")
        @Sendable func record(_ n: Int) -> PhotoRecord {
            PhotoRecord(
                id: n, file: String(format: "IMG_%05d.jpg", n), time: "2026-11-22T05:00:00.000Z", width: 96, height: 64, trigger: "manual")
        }
        for n in 1...20 { try idx.add(record(n)) }
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for n in 1...20 {
                if lane == 0 { _ = try? idx.remove(id: n) } else { try? idx.add(record(100 + n)) }
            }
        }
        #expect(idx.records.map(\.id) == Array(101...120))
        #expect(try Self.readBack(d).compactMap { $0["id"] as? Int } == Array(101...120))
    }
}
