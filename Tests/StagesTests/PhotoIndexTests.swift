import Foundation
import Stages
import Testing

/// records.json: atomic writes and reconciliation with the files on disk (real JPEGs from gst-launch).
@Suite struct PhotoIndexTests {
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
}
