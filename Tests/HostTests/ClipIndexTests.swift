import Foundation
import Testing
import Timing

@testable import Host

/// `clips.json`: written whole and atomically, reconciled with the directory when opened (what a kill -9 leaves).
struct ClipIndexTests {
    private static let fm = FileManager.default

    /// A fresh directory; removed by the caller's `defer`.
    private static func directory() throws -> String {
        let dir = fm.temporaryDirectory.appendingPathComponent("vf-clips-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes `bytes` bytes at `name` in `dir`.
    private static func file(_ dir: String, _ name: String, bytes: Int = 16) throws {
        try Data(repeating: 0x2A, count: bytes).write(to: URL(fileURLWithPath: "\(dir)/\(name)"))
    }

    private static func record(_ id: Int, thumbnail: Bool = true) -> ClipRecord {
        let name = ClipRecord.fileName(id)
        let photo = ClipTrigger.Photo(stage: "cap", id: id * 10)
        return ClipRecord(
            id: id, file: name, thumbnail: thumbnail ? "thumbs/CLIP_\(String(format: "%05d", id)).jpg" : nil, startPts: 1_500_000_000,
            endPts: 4_466_666_666, duration: 2.967, startTime: "2026-01-01T00:00:01.500Z", endTime: "2026-01-01T00:00:04.467Z",
            trigger: "photo",
            triggers: [
                ClipTrigger(kind: "photo", capture: "manual", pts: 2_500_000_000, photo: photo),
                ClipTrigger(kind: "api", pts: 3_000_000_000),
            ],
            photo: photo, timeline: [0.5, nil, 0.812], frames: 90, bytes: 123_456, notes: ["pre-roll short: 0.5 s of 1.0 s were kept"])
    }

    @Test func recordsRoundTripThroughClipsJSON() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        let index = try ClipIndex(directory: dir)
        #expect(index.records.isEmpty)
        #expect(index.warnings.isEmpty)
        #expect(index.nextID == 1)
        // Opening made thumbs/ and .partial/, and wrote nothing else.
        #expect(try Self.fm.contentsOfDirectory(atPath: dir).sorted() == [".partial", "thumbs"])
        for id in [1, 2] {
            try Self.file(dir, ClipRecord.fileName(id))
            try Self.file(dir, "thumbs/CLIP_0000\(id).jpg")
            try index.add(Self.record(id))
        }
        #expect(index.records == [Self.record(1), Self.record(2)])
        // Replaced atomically: no temp file is left next to it.
        #expect(
            try Self.fm.contentsOfDirectory(atPath: dir).sorted() == [
                ".partial", "CLIP_00001.mp4", "CLIP_00002.mp4", "clips.json", "thumbs",
            ])
        let data = try Data(contentsOf: URL(fileURLWithPath: index.path))
        let doc = try JSONDecoder().decode(ClipIndex.Document.self, from: data)
        #expect(doc.version == 1)
        #expect(doc.clips == [Self.record(1), Self.record(2)])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"file\" : \"CLIP_00001.mp4\""))
        #expect(text.contains("\"timeline\" : [\n        0.5,\n        null,\n        0.812\n      ]"))

        let again = try ClipIndex(directory: dir)
        #expect(again.records == [Self.record(1), Self.record(2)])
        #expect(again.warnings.isEmpty)
        #expect(again.nextID == 3)
    }

    @Test func openingRemovesUnfinishedClipsWithAWarning() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        try Self.fm.createDirectory(atPath: "\(dir)/.partial", withIntermediateDirectories: true)
        try Self.file(dir, ".partial/CLIP_00003.mp4", bytes: 4096)
        let index = try ClipIndex(directory: dir)
        #expect(index.warnings == ["removed an unfinished clip left by an interrupted run: .partial/CLIP_00003.mp4"])
        #expect(try Self.fm.contentsOfDirectory(atPath: "\(dir)/.partial").isEmpty)
        #expect(index.records.isEmpty)
        // The mended index was written.
        let doc = try JSONDecoder().decode(ClipIndex.Document.self, from: Data(contentsOf: URL(fileURLWithPath: index.path)))
        #expect(doc.clips.isEmpty)
    }

    @Test func openingDropsRecordsWhoseFileIsGone() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        let index = try ClipIndex(directory: dir)
        for id in [1, 2, 3] {
            try Self.file(dir, ClipRecord.fileName(id))
            try index.add(Self.record(id, thumbnail: false))
        }
        try Self.fm.removeItem(atPath: "\(dir)/CLIP_00002.mp4")
        try Self.fm.removeItem(atPath: "\(dir)/CLIP_00003.mp4")
        let again = try ClipIndex(directory: dir)
        #expect(again.warnings == ["2 clip(s) listed without a file were dropped from clips.json"])
        #expect(again.records == [Self.record(1, thumbnail: false)])
        // Numbers are never given twice: clips.json keeps the next one.
        #expect(again.nextID == 4)
        let third = try ClipIndex(directory: dir)
        #expect(third.warnings.isEmpty)
        #expect(third.records.map(\.id) == [1])
    }

    @Test func aCompleteClipMissingFromTheIndexIsListedAsFound() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        let index = try ClipIndex(directory: dir)
        try Self.file(dir, ClipRecord.fileName(1))
        try index.add(Self.record(1, thumbnail: false))
        // A kill between the rename into place and the index write: the file and its thumbnail, no record.
        try Self.file(dir, "CLIP_00004.mp4", bytes: 1234)
        try Self.file(dir, "thumbs/CLIP_00004.jpg")
        let date = Date(timeIntervalSince1970: 1_748_779_200.25)  // 2025-06-01T12:00:00.250Z
        try Self.fm.setAttributes([.modificationDate: date], ofItemAtPath: "\(dir)/CLIP_00004.mp4")
        // Without a thumbnail, and names that are no clip's.
        try Self.file(dir, "CLIP_00006.mp4", bytes: 10)
        for other in ["notes.txt", "CLIP_00005.mov", "IMG_00001.jpg", "CLIP_x.mp4"] { try Self.file(dir, other) }
        let again = try ClipIndex(directory: dir)
        #expect(
            again.warnings == [
                "listed CLIP_00004.mp4: complete but missing from clips.json",
                "listed CLIP_00006.mp4: complete but missing from clips.json",
            ])
        #expect(again.records.map(\.id) == [1, 4, 6])
        let found = try #require(again.records.first { $0.id == 4 })
        #expect(
            found
                == ClipRecord(
                    id: 4, file: "CLIP_00004.mp4", thumbnail: "thumbs/CLIP_00004.jpg", startPts: nil, endPts: nil, duration: 0,
                    startTime: "2025-06-01T12:00:00.250Z", endTime: "2025-06-01T12:00:00.250Z", trigger: "found",
                    triggers: [ClipTrigger(kind: "found")], photo: nil, timeline: [], frames: 0, bytes: 1234,
                    notes: ["found complete in the directory but not in clips.json (listed again)"]))
        #expect(again.records.last?.thumbnail == nil)
        #expect(again.records.last?.bytes == 10)
        #expect(again.nextID == 7)
        // Listed for good: the next opening has nothing to mend.
        let third = try ClipIndex(directory: dir)
        #expect(third.warnings.isEmpty)
        #expect(third.records == again.records)
    }

    @Test func anUnreadableIndexIsSetAsideAndRebuiltFromTheFiles() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        let garbage = Data("{\"version\": 1, \"clips\": [{\"id\": ".utf8)
        try garbage.write(to: URL(fileURLWithPath: "\(dir)/clips.json"))
        try Self.file(dir, "CLIP_00002.mp4", bytes: 77)
        let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_767_225_600))
        clock.advance(by: 90.75)
        let index = try ClipIndex(directory: dir, clock: clock)
        #expect(
            index.warnings == [
                "clips.json could not be read: set aside as clips.json.unreadable-1767225690, rebuilt from the files",
                "listed CLIP_00002.mp4: complete but missing from clips.json",
            ])
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/clips.json.unreadable-1767225690")) == garbage)
        #expect(index.records.map(\.id) == [2])
        #expect(index.records.first?.trigger == "found")
        #expect(index.records.first?.bytes == 77)
        let doc = try JSONDecoder().decode(ClipIndex.Document.self, from: Data(contentsOf: URL(fileURLWithPath: index.path)))
        #expect(doc.clips == index.records)
        let again = try ClipIndex(directory: dir, clock: clock)
        #expect(again.warnings.isEmpty)
        #expect(again.records == index.records)
    }

    @Test func removeDeletesTheFileTheThumbnailAndTheRecord() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        let index = try ClipIndex(directory: dir)
        for id in [1, 2] {
            try Self.file(dir, ClipRecord.fileName(id))
            try Self.file(dir, "thumbs/CLIP_0000\(id).jpg")
            try index.add(Self.record(id))
        }
        let removed = try index.remove(id: 1)
        #expect(removed == Self.record(1))
        #expect(!Self.fm.fileExists(atPath: "\(dir)/CLIP_00001.mp4"))
        #expect(!Self.fm.fileExists(atPath: "\(dir)/thumbs/CLIP_00001.jpg"))
        #expect(Self.fm.fileExists(atPath: "\(dir)/CLIP_00002.mp4"))
        #expect(Self.fm.fileExists(atPath: "\(dir)/thumbs/CLIP_00002.jpg"))
        #expect(index.records == [Self.record(2)])
        #expect(try index.remove(id: 1) == nil)
        #expect(try index.remove(id: 9) == nil)
        let again = try ClipIndex(directory: dir)
        #expect(again.records == [Self.record(2)])
        #expect(again.warnings.isEmpty)
        // A record without a thumbnail.
        try Self.file(dir, ClipRecord.fileName(3))
        try again.add(Self.record(3, thumbnail: false))
        #expect(try again.remove(id: 3)?.id == 3)
        #expect(!Self.fm.fileExists(atPath: "\(dir)/CLIP_00003.mp4"))
        #expect(again.records.map(\.id) == [2])
    }

    @Test func nextIDIsOnePastTheHighest() throws {
        let dir = try Self.directory()
        defer { try? Self.fm.removeItem(atPath: dir) }
        let index = try ClipIndex(directory: dir)
        #expect(index.nextID == 1)
        for id in [7, 3] {
            try Self.file(dir, ClipRecord.fileName(id))
            try index.add(Self.record(id))
        }
        #expect(index.nextID == 8)
        // Deleting the newest clip does not give its number again, in this run or the next.
        _ = try index.remove(id: 7)
        #expect(index.nextID == 8)
        #expect(try ClipIndex(directory: dir).nextID == 8)
    }

    @Test func fileNamesAndTheirNumbers() {
        #expect(ClipRecord.fileName(1) == "CLIP_00001.mp4")
        #expect(ClipRecord.fileName(123_456) == "CLIP_123456.mp4")
        #expect(ClipIndex.id(ofFile: "CLIP_00012.mp4") == 12)
        #expect(ClipIndex.id(ofFile: "CLIP_123456.mp4") == 123_456)
        #expect(ClipIndex.id(ofFile: ClipRecord.fileName(99_999)) == 99_999)
        for other in [
            "CLIP_.mp4", "CLIP_00012.jpg", "clip_00012.mp4", "CLIP_000a2.mp4", "IMG_00001.jpg", "CLIP_00012.mp4.partial", "CLIP_-0001.mp4",
            "CLIP_+0001.mp4", "CLIP_00 12.mp4", "xCLIP_00012.mp4", "CLIP_00012.MP4", "clips.json", "",
        ] {
            #expect(ClipIndex.id(ofFile: other) == nil, "\(other)")
        }
    }

    @Test func isoDatesAreUTCWithMilliseconds() {
        #expect(ClipIndex.iso(Date(timeIntervalSince1970: 1_767_225_600)) == "2026-01-01T00:00:00.000Z")
        #expect(ClipIndex.iso(Date(timeIntervalSince1970: 1_767_225_601.5)) == "2026-01-01T00:00:01.500Z")
    }
}
