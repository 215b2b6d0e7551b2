import Foundation
import GStreamerKit
import Stages
import TestSupport
import Testing
import Timing

@testable import Host

/// One `recordings` element's retention on a temporary directory of real files, dated against a manual clock: the
/// size limit takes the oldest first, the age limit each segment's end, the segment being written and any other
/// file are never touched, a failed delete is reported and the sweep goes on; the index is rebuilt from the files.
@Suite struct RecorderTests {
    static let wall = Date(timeIntervalSince1970: 1_800_000_000)

    /// A directory holding `files` (name -> bytes, ended `ago` seconds before the clock's wall time).
    static func directory(_ files: [(String, Int, Double)]) throws -> String {
        let d = Tools.tempDir().path
        for (name, bytes, ago) in files {
            let path = d + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x42, count: bytes)))
            try FileManager.default.setAttributes([.modificationDate: wall.addingTimeInterval(-ago)], ofItemAtPath: path)
        }
        return d
    }

    static func recorder(
        _ directory: String, maxAge: Int = 0, maxSize: Int64 = 0, startIndex: Int = 100, clock: ManualClock = ManualClock(wall: wall),
        remove: @escaping @Sendable (String) throws(AtomicFile.Failure) -> Void = { p throws(AtomicFile.Failure) in try AtomicFile.remove(p)
        }
    ) -> Recorder {
        let plan = RecordingsElement(name: "rec", directory: directory, segment: 1, maxAge: maxAge, maxSize: maxSize, format: .mp4)
        return Recorder(plan: plan, startIndex: startIndex, clock: clock, remove: remove)
    }

    static func message(_ kind: String, _ directory: String, _ file: String, _ runningTime: UInt64) -> BusMessage {
        BusMessage(
            source: "rec",
            structure: MessageStructure(
                "splitmuxsink-fragment-\(kind)", [("location", .string(directory + "/" + file)), ("running-time", .uint64(runningTime))]))
    }

    static func names(_ d: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []).sorted() }

    @Test func theSizeLimitDeletesTheOldestSegmentsFirstAndNothingElse() throws {
        let others: [(String, Int, Double)] = [
            ("clip.mp4", 900_000, 9e6), ("IMG_00001.jpg", 5000, 9e6), ("notes.txt", 10, 9e6), ("REC_1.mp4", 900_000, 9e6),
        ]
        let d = try Self.directory((0..<5).map { (String(format: "REC_%05d.mp4", $0), 100 * 1024, Double(500 - $0 * 10)) } + others)
        let r = Self.recorder(d, maxSize: 250 * 1024)
        r.open()
        r.sweep()
        #expect(
            Self.names(d) == ["IMG_00001.jpg", "REC_00003.mp4", "REC_00004.mp4", "REC_1.mp4", "clip.mp4", "notes.txt", "recordings.json"])
        let messages = r.drainMessages()
        #expect(
            messages
                == (0..<3).map {
                    RecordingsMessage(
                        event: .deleted, element: "rec", file: String(format: "REC_%05d.mp4", $0), bytes: 100 * 1024, reason: .size)
                })
        #expect(r.drainMessages().isEmpty)
        #expect(RecordingsIndex.load(directory: d)?.map(\.file) == ["REC_00003.mp4", "REC_00004.mp4"])
        #expect(r.snapshot.segments.map(\.file) == ["REC_00003.mp4", "REC_00004.mp4"])
        #expect(r.deletions.bytes == 300 * 1024 && r.deletions.byReason == [.size: 3])
    }

    @Test func theAgeLimitReadsEachSegmentsEndAgainstTheClocksWallTime() throws {
        let d = try Self.directory([("REC_00000.mkv", 10, 3 * 3600), ("REC_00001.mkv", 10, 2 * 3600), ("REC_00002.mkv", 10, 1800)])
        let clock = ManualClock(wall: Self.wall)
        let r = Self.recorder(d, maxAge: 3600, clock: clock)
        r.open()
        r.sweep()
        #expect(r.drainMessages().map { "\($0.file) \($0.reason)" } == ["REC_00000.mkv age", "REC_00001.mkv age"])
        #expect(Self.names(d) == ["REC_00002.mkv", "recordings.json"])
        // Half an hour later the last one is older than an hour too (the newest is not spared for age).
        clock.advance(by: 1801)
        r.sweep()
        #expect(r.drainMessages().map(\.file) == ["REC_00002.mkv"])
        #expect(Self.names(d) == ["recordings.json"])
    }

    @Test func neverTheSegmentBeingWrittenNorOneThisRunHasNotSeenClosed() throws {
        let old = 86_400.0
        let d = try Self.directory((0..<5).map { (String(format: "REC_%05d.mp4", $0), 1000, old) })
        let r = Self.recorder(d, maxAge: 60, maxSize: 1, startIndex: 2)
        r.open()
        #expect(r.take(Self.message("opened", d, "REC_00002.mp4", 0)))
        #expect(r.take(Self.message("closed", d, "REC_00002.mp4", 1_000_000_000)))
        #expect(r.take(Self.message("opened", d, "REC_00003.mp4", 1_000_000_000)))
        #expect(
            !r.take(BusMessage(source: "other", structure: MessageStructure("splitmuxsink-fragment-opened", [("location", .string("x"))]))))
        r.sweep()
        #expect(r.drainMessages().map(\.file) == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mp4"])
        // REC_00003 is open; REC_00004 lies there but splitmuxsink has not said it closed.
        #expect(Self.names(d) == ["REC_00003.mp4", "REC_00004.mp4", "recordings.json"])
        #expect(r.snapshot.open == "REC_00003.mp4")
        #expect(r.delete(file: "REC_00003.mp4") == .failure(.open))
        #expect(r.delete(file: "REC_00004.mp4") == .failure(.open))
        #expect(r.delete(file: "recordings.json") == .failure(.notListed))
        // Once the run is over nothing is open: the limits apply (the newest is kept for size, not for age).
        r.finish()
        r.sweep()
        #expect(Self.names(d) == ["recordings.json"])
    }

    @Test func aSegmentsSizeEndAndDurationComeWithItsClose() throws {
        let d = try Self.directory([])
        let clock = ManualClock(wall: Self.wall)
        let r = Self.recorder(d, startIndex: 0, clock: clock)
        r.open()
        #expect(r.take(Self.message("opened", d, "REC_00000.mp4", 1_000_000_000)))
        #expect(r.snapshot.segments == [RecordingSegment(file: "REC_00000.mp4", bytes: 0, start: "2027-01-15T08:00:00.000Z", open: true)])
        FileManager.default.createFile(atPath: d + "/REC_00000.mp4", contents: Data(count: 4321))
        clock.advance(by: 2.5)
        #expect(r.take(Self.message("closed", d, "REC_00000.mp4", 3_500_000_000)))
        let s = try #require(r.snapshot.segments.first)
        #expect(s.bytes == 4321 && s.duration == 2.5 && !s.open && s.end != nil && s.start == "2027-01-15T08:00:00.000Z")
        r.sweep()
        #expect(RecordingsIndex.load(directory: d) == [s])
    }

    @Test func aFailedDeleteIsReportedAndTheSweepGoesOn() throws {
        let d = try Self.directory((0..<3).map { (String(format: "REC_%05d.ts", $0), 1000, 10) })
        let r = Self.recorder(d, maxSize: 1500) { path throws(AtomicFile.Failure) in
            if path.hasSuffix("REC_00000.ts") { throw AtomicFile.Failure(reason: "Operation not permitted") }
            try AtomicFile.remove(path)
        }
        r.open()
        r.sweep()
        #expect(
            r.drainMessages() == [
                RecordingsMessage(
                    event: .deleteFailed, element: "rec", file: "REC_00000.ts", bytes: 1000, reason: .size, text: "Operation not permitted"),
                RecordingsMessage(event: .deleted, element: "rec", file: "REC_00001.ts", bytes: 1000, reason: .size),
            ])
        #expect(r.snapshot.segments.map(\.file) == ["REC_00000.ts", "REC_00002.ts"])
        #expect(r.delete(file: "REC_00000.ts") == .failure(.failed("Operation not permitted")))
    }

    @Test func openingListsLeftoversAsTheyAreAndDeletesNothing() throws {
        let d = try Self.directory([
            ("REC_00000.mp4", 1000, 60), ("REC_00001.mp4", 0, 60), ("REC_00002.mkv", 500, 60), ("clip.mp4", 10, 60),
        ])
        try FileManager.default.createSymbolicLink(atPath: d + "/REC_00003.mp4", withDestinationPath: d + "/clip.mp4")
        try RecordingsIndex.write(
            [
                RecordingSegment(file: "REC_00002.mkv", bytes: 100, start: "2027-01-01T00:00:00.000Z", open: true),
                RecordingSegment(file: "REC_00009.mp4", bytes: 100),
            ], element: "rec", directory: d)
        let r = Self.recorder(d, maxSize: 1)
        r.open()
        let s = r.snapshot.segments
        #expect(s.map(\.file) == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mkv"])
        #expect(s.map(\.problem) == [nil, "empty", "interrupted"])
        #expect(s[2].start == "2027-01-01T00:00:00.000Z" && s[2].bytes == 500 && !s[2].open)
        #expect(RecordingsIndex.load(directory: d) == s)
        #expect(Self.names(d) == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mkv", "REC_00003.mp4", "clip.mp4", "recordings.json"])
    }

    @Test func aDeleteAskedForIsAnnouncedWithReasonRequest() throws {
        let d = try Self.directory([("REC_00000.mp4", 700, 60), ("REC_00001.mp4", 800, 60)])
        let r = Self.recorder(d)
        r.open()
        let end = r.snapshot.segments.first?.end
        #expect(end != nil)
        #expect(r.delete(file: "REC_00000.mp4") == .success(RecordingSegment(file: "REC_00000.mp4", bytes: 700, end: end)))
        #expect(
            r.drainMessages() == [RecordingsMessage(event: .deleted, element: "rec", file: "REC_00000.mp4", bytes: 700, reason: .request)])
        #expect(r.delete(file: "REC_00000.mp4") == .failure(.notListed))
        #expect(RecordingsIndex.load(directory: d)?.map(\.file) == ["REC_00001.mp4"])
    }
}
