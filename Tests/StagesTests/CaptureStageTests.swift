import Foundation
import GStreamerKit
import StageTesting
import Stages
import TestTags
import Testing
import Timing

/// The capture stage fed frame by frame (no pipeline): triggers, state, the ring's choice, crop, timer.
@Suite(.tier) struct CaptureStageTests {
    static let info = try! VideoInfo(format: "I420", width: 160, height: 120, fpsN: 30, fpsD: 1)
    static let frameNs: UInt64 = 33_333_333

    /// A fresh photo directory.
    static func directory() -> String {
        let d = NSTemporaryDirectory() + "vf-capture-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// One capture stage named `cap` in a `StageHarness`, writing into a fresh directory.
    final class Rig {
        let h: StageHarness
        let stage: CaptureStage
        let directory = CaptureStageTests.directory()
        init(_ assignments: [(String, String)]) throws {
            h = try StageHarness(
                kind: "capture", name: "cap", properties: [("directory", directory)] + assignments, info: CaptureStageTests.info)
            stage = try #require(h.stage(CaptureStage.self))
            try h.open()
        }
        /// Feeds one frame of `bytes` (default black) with compose's meta when `score` is given.
        @discardableResult func feed(
            _ bytes: [UInt8]? = nil, score: Double? = nil, composed: Bool = false,
            subject: (Double, Double, Double, Double)? = nil
        ) throws -> VideoFrame {
            var metas: [MessageStructure] = []
            if let score {
                let b = subject ?? (-1, -1, 0, 0)
                metas.append(
                    MessageStructure(
                        ComposeStage.metaName,
                        [
                            ("analysis-pts", .uint64(UInt64(h.chain.frames) * CaptureStageTests.frameNs)), ("rule", .string("thirds")),
                            ("score", .double(score)),
                            ("well-composed", .bool(composed)), ("locked", .bool(false)),
                            ("x", .double(b.0)), ("y", .double(b.1)), ("width", .double(b.2)), ("height", .double(b.3)),
                            ("advice", .string(composed ? "hold it" : "move the subject left")),
                        ]))
            }
            return try h.push(bytes, metas: metas)
        }
        /// What the stage posted, in order.
        var messages: [MessageStructure] { h.messages.map(\.structure) }
        var captures: [MessageStructure] { messages.filter { $0.string("event") == "capture" } }
        var states: [String] { messages.filter { $0.string("event") == "state" }.compactMap { $0.string("state") } }
        /// Indexes of the frames pushed on `output`.
        func pushedIndexes(on output: String) -> [Int] { h.frames(on: output).map(\.index) }
    }

    /// I420 bytes whose luma is `luma(x, y)`, chroma neutral.
    static func frame(_ luma: (Int, Int) -> UInt8) -> [UInt8] {
        var b = StageHarness.blackBytes(info)
        for y in 0..<info.height { for x in 0..<info.width { b[y * info.stride(plane: 0) + x] = luma(x, y) } }
        return b
    }

    static func lumaPlane(_ f: VideoFrame) throws -> [UInt8] {
        let p = try f.planeBytes(plane: 0)
        return (0..<p.rows).flatMap { Array(p.bytes[($0 * p.rowBytes)..<($0 * p.rowBytes + f.info.width)]) }
    }

    @Test func autoCapturesOnceStableAndComposedForTheDelay() throws {
        let rig = try Rig([("delay", "1"), ("overlay", "false")])
        for _ in 0..<60 { try rig.feed(score: 0.9, composed: true, subject: (50, 40, 10, 10)) }
        // Stable after 10 steady steps (frame 10), then one stage per frame: ready at frame 13 (433 ms);
        // held 1 s -> the first frame at or after 1433 ms is frame 43.
        #expect(
            Array(rig.states.prefix(5)) == ["waitingForStability", "detectingRegion", "templateReady", "readyToCapture", "capturingPhoto"]
                || Array(rig.states.prefix(4)) == ["waitingForStability", "detectingRegion", "templateReady", "readyToCapture"])
        let c = try #require(rig.captures.first)
        #expect(c.string("trigger") == "auto")
        #expect(rig.captures.count == 1)  // cooldown 3 s
        // The frame chosen is from the ring around frame 43 (all equal: the newest wins the tie).
        #expect(c.uint64("frame") == 43)
        #expect(rig.pushedIndexes(on: "snapshot") == [43])
        #expect(rig.pushedIndexes(on: "thumbnail") == [43])
        let tags = try #require(rig.h.tags(on: "snapshot").first)
        #expect(tags.names == ["datetime", "application-name", "description", "image-orientation"])
        #expect(tags.string("description") == "Viewfinder photo 1 (auto): thirds, score 0.90, hold it")
        #expect(tags.string("image-orientation") == "rotate-0")
    }

    @Test func withoutComposeMetaAutoNeverFiresAndSaysWhy() throws {
        let rig = try Rig([("delay", "0")])
        for _ in 0..<95 { try rig.feed() }
        #expect(rig.captures.isEmpty)
        #expect(rig.stage.phase == .detectingRegion)
        #expect(rig.messages.contains { $0.string("event") == "warning" && ($0.string("text") ?? "").contains("needs 'compose'") })
    }

    @Test func theSharpWellPlacedFrameOfTheRingIsTheOneSaved() throws {
        let rig = try Rig([("auto", "false"), ("overlay", "false")])
        // Soft frames (a smooth ramp) with a poor score, one sharp checkerboard with a high score.
        let soft = Self.frame { x, y in UInt8(60 + (x + y) / 4) }
        let sharp = Self.frame { x, y in ((x / 2 + y / 2) % 2 == 0) ? 40 : 220 }
        for i in 0..<14 { try rig.feed(i == 6 ? sharp : soft, score: i == 6 ? 0.95 : 0.3, composed: false, subject: (60, 40, 20, 20)) }
        rig.h.fireTrigger()
        try rig.feed(soft, score: 0.3)
        let push = try #require(rig.h.frames(on: "snapshot").first)
        #expect(push.index == 6)
        #expect(try Self.lumaPlane(push) == Self.lumaPlane(try #require(rig.h.frames(on: "snapshot").first)))
        let y = try Self.lumaPlane(push)
        #expect(y[0] == 40 && y[2] == 220 && y[2 * 160] == 220)  // the checkerboard, untouched
        #expect(rig.captures.first?.string("trigger") == "manual")
    }

    @Test func ringIsBoundedByTimeAndByMemory() throws {
        let rig = try Rig([("auto", "false")])
        for _ in 0..<60 { try rig.feed() }
        // 500 ms at 30 fps: the newest frame and the 15 before it.
        #expect(rig.stage.ring.frames == 16)
        #expect(rig.stage.ring.bytes == 16 * Self.info.size)
        let big = try VideoInfo(format: "I420", width: 1280, height: 720)
        let small = try Rig([("auto", "false"), ("ring-mb", "3")])
        try small.h.setCaps(big)
        for _ in 0..<20 { try small.feed() }
        #expect(small.stage.ring.frames == 2)  // 1.38 MB each, 3 MiB budget
        #expect(small.stage.ring.bytes <= 3 << 20)
    }

    @Test func selfTimerTakesTheFrameThreeSecondsLaterWithCountdownOnlyOnThePreview() throws {
        let rig = try Rig([("at", "30"), ("timer", "3"), ("auto", "false")])
        var previews: [VideoFrame] = []
        for _ in 0..<130 { previews.append(try rig.feed()) }
        let push = try #require(rig.h.frames(on: "snapshot").first)
        #expect(push.index == 120)  // 1 s + 3 s at 30 fps
        #expect(push.pts == 120 * Self.frameNs)
        #expect(rig.captures.first?.string("trigger") == "timer")
        let timer = try #require(rig.messages.first { $0.string("event") == "timer" })
        #expect(timer.int("seconds") == 3 && timer.uint64("fires-at") == 30 * Self.frameNs + 3_000_000_000)
        // Countdown: a large white digit in the middle third of the preview from frame 30 to 119.
        func centreMax(_ f: VideoFrame) throws -> UInt8 {
            let y = try Self.lumaPlane(f)
            var m: UInt8 = 0
            for r in 40..<80 { for c in 53..<107 { m = max(m, y[r * 160 + c]) } }
            return m
        }
        #expect(try centreMax(previews[29]) < 40)
        for i in [30, 60, 100, 119] { #expect(try centreMax(previews[i]) > 200) }
        #expect(try centreMax(previews[125]) < 40)
        // The photo is clean: black everywhere (no digit, no state label).
        #expect(try Self.lumaPlane(push).allSatisfy { $0 == 16 })
    }

    @Test func selfTimerChoosesOnlyBetweenTheFramesAtItsDeadline() throws {
        let rig = try Rig([("at", "0"), ("timer", "3"), ("auto", "false"), ("overlay", "false")])
        let soft = Self.frame { x, y in UInt8(60 + (x + y) / 4) }
        let sharp = Self.frame { x, y in ((x / 2 + y / 2) % 2 == 0) ? 40 : 220 }
        // The sharpest frame of the ring is 85 (15 frames before the deadline), the sharper of the last two is 89.
        for i in 0..<91 { try rig.feed(i == 85 || i == 89 ? sharp : soft, score: i == 85 ? 0.9 : 0.2) }
        #expect(rig.pushedIndexes(on: "snapshot") == [89])  // deadline frame 90, one frame early at most
    }

    @Test func customEventTriggersAndMayCarryItsOwnTimer() throws {
        let rig = try Rig([("auto", "false"), ("overlay", "false")])
        for _ in 0..<5 { try rig.feed() }
        rig.h.pushEvent(MessageStructure("viewfinder-capture"))
        rig.h.pushEvent(MessageStructure("something-else"))
        try rig.feed()
        #expect(rig.captures.map { $0.string("trigger") } == ["event"])
        rig.h.pushEvent(MessageStructure("viewfinder-capture", [("timer", .int(3))]))
        for _ in 0..<100 { try rig.feed() }
        #expect(rig.captures.map { $0.string("trigger") } == ["event", "timer"])
        #expect(rig.captures.last?.uint64("frame") == 96)  // the event is seen with frame 6; + 90 frames
    }

    @Test func cropFollowsTheSubjectForTheRule() throws {
        let rig = try Rig([("auto", "false"), ("crop", "3:4"), ("keep-full", "true"), ("overlay", "false")])
        let ramp = Self.frame { x, _ in UInt8(x) }  // luma = column
        // Subject centred at x=100: at 3:4 the window is 90x120 and puts it on the left third line: x = 100 - 30 = 70.
        for _ in 0..<3 { try rig.feed(ramp, score: 0.5, subject: (90, 30, 20, 20)) }
        rig.h.fireTrigger()
        try rig.feed(ramp, score: 0.5, subject: (90, 30, 20, 20))
        let photo = try #require(rig.h.frames(on: "snapshot").first)
        #expect(photo.info.width == 90 && photo.info.height == 120)
        let y = try Self.lumaPlane(photo)
        #expect(y[0] == 70 && y[89] == 159)
        let full = try #require(rig.h.frames(on: "full").first)
        #expect(full.info.width == 160)
        #expect(rig.h.frames(on: "thumbnail").first?.info.width == 90)
        #expect(rig.h.tags(on: "full").count == 1)
    }

    @Test func maxShotsAndRefusalsAreReported() throws {
        let rig = try Rig([("auto", "false"), ("max-shots", "1"), ("overlay", "false")])
        try rig.feed(); rig.h.fireTrigger(); try rig.feed()
        rig.h.fireTrigger(); try rig.feed()
        #expect(rig.captures.count == 1)
        let refused = try #require(rig.messages.first { $0.string("event") == "refused" })
        #expect(refused.string("reason") == "max-shots (1) reached")
    }

    @Test func playingPropertiesTakeEffectOnTheNextFrame() throws {
        let rig = try Rig([("auto", "false"), ("overlay", "false"), ("delay", "0"), ("cooldown", "0")])
        for _ in 0..<20 { try rig.feed(score: 0.9, composed: true, subject: (50, 40, 10, 10)) }
        #expect(rig.captures.isEmpty && rig.stage.phase == .readyToCapture)
        try rig.stage.update("auto", value: .bool(true))
        try rig.feed(score: 0.9, composed: true, subject: (50, 40, 10, 10))
        #expect(rig.captures.map { $0.string("trigger") } == ["auto"])
        try rig.stage.update("auto", value: .bool(false))
        try rig.stage.update("timer", value: .choice("5"))
        rig.h.fireTrigger()
        try rig.feed()
        let timer = try #require(rig.messages.first { $0.string("event") == "timer" })
        #expect(timer.int("seconds") == 5)
        #expect(throws: StageError.self) { try rig.stage.update("crop", value: .choice("1:1")) }
    }

    /// A harness of a manual capture (no auto, no thumbnails, no overlay) into `dir/photos` whose snapshot branch
    /// writes a real JPEG (made by gst-launch-1.0: videotestsrc ! jpegenc ! jifmux) and reports it inside push().
    static func manualCapture(in dir: String) throws -> StageHarness {
        let jpegPath = dir + "/source.jpg"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = [
            "-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=160,height=120", "!", "jpegenc", "!", "jifmux", "!", "filesink",
            "location=\(jpegPath)",
        ]
        try p.run(); p.waitUntilExit()
        let h = try StageHarness(
            kind: "capture", name: "cap",
            properties: [("directory", dir + "/photos"), ("auto", "false"), ("thumbnails", "false"), ("overlay", "false")], info: Self.info)
        h.planOutputs(defaultBranches: ["snapshot"])
        try #require(h.writeFiles(on: "snapshot", content: .fixed(try Data(contentsOf: URL(fileURLWithPath: jpegPath)))) != nil)
        return h
    }

    /// A branch that writes and reports its file inside push() (as a fast one may, from its own thread,
    /// before push returns): the save is registered before the push, so the photo is still indexed.
    @Test(.tags(.process)) func aFileReportedBeforePushReturnsIsStillIndexed() throws {
        let dir = Self.directory()
        let h = try Self.manualCapture(in: dir)
        let stage = try #require(h.stage(CaptureStage.self))
        try h.open()
        for i in 0..<4 {
            if i == 2 { h.fireTrigger() }
            try h.push()
        }
        h.close()
        #expect(h.frames(on: "snapshot").count == 1)
        #expect(stage.records.map(\.file) == ["IMG_00001.jpg"])
        #expect(stage.phase == .waitingForStability || stage.phase == .detectingRegion)  // saved, not stuck in savingPhoto
        #expect(FileManager.default.fileExists(atPath: dir + "/photos/IMG_00001.jpg"))
    }

    /// A photo is dated by the host's clock (`StageContext.clock`): its EXIF date-time tag and its record say the
    /// same instant, the clock's wall time when it was taken.
    @Test(.tags(.process)) func aPhotoIsDatedByTheHostsClock() throws {
        let h = try Self.manualCapture(in: Self.directory())
        let clock = ManualClock(now: 0, wall: Date(timeIntervalSince1970: 1_767_225_600))  // 2026-01-01T00:00:00Z
        h.clock = clock
        let stage = try #require(h.stage(CaptureStage.self))
        try h.open()
        try h.push()
        clock.advance(by: 90.25)
        h.fireTrigger()
        try h.push()
        try h.push()
        h.close()
        let taken = Date(timeIntervalSince1970: 1_767_225_690.25)
        let tags = try #require(h.tags(on: "snapshot").first)
        let dates = tags.entries.compactMap { e -> Date? in
            if case .dateTime(let d) = e.value, e.tag == TagList.dateTime { return d }
            return nil
        }
        #expect(dates == [taken])
        #expect(stage.records.map(\.time) == ["2026-01-01T00:01:30.250Z"])
        #expect(stage.records.map(\.time) == [PhotoIndex.timeText(taken)])
    }

    @Test func badCropAndUnusableDirectoryAreUsageErrors() throws {
        let file = Self.directory() + "/not-a-dir"
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        #expect(throws: StageError.self) {
            _ = try CaptureStage(
                name: "cap", properties: try StageHarness.values(kind: "capture", name: "cap", properties: [("directory", file)]))
        }
        do {
            _ = try StageHarness.values(kind: "capture", name: "cap", properties: [("crop", "2:3")])
            Issue.record("crop=2:3 accepted")
        } catch let e as StageError {
            #expect(e.message.contains("2:3") && e.message.contains("3:4"))
        }
    }

    /// Making the stage only checks its directory; open() creates it (so --dry-run and exit 2 write nothing).
    @Test func initCreatesNothingOpenCreatesTheDirectory() throws {
        let dir = Self.directory() + "/new/a/b"
        let stage = try CaptureStage(
            name: "cap", properties: try StageHarness.values(kind: "capture", name: "cap", properties: [("directory", dir)]))
        #expect(!FileManager.default.fileExists(atPath: Self.directory() + "/new"))
        #expect(stage.createsDirectories == [dir, dir + "/thumbs", dir + "/.partial", dir + "/.partial/thumbs"])
        try stage.open()
        var isDir: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: dir + "/.partial/thumbs", isDirectory: &isDir) && isDir.boolValue)
    }

    /// A directory under a file says so (not "NSCocoaErrorDomain error 512").
    @Test func aDirectoryUnderAFileIsNamed() throws {
        let file = Self.directory() + "/passwd"
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        do {
            _ = try CaptureStage(
                name: "cap",
                properties: try StageHarness.values(kind: "capture", name: "cap", properties: [("directory", file + "/photos")]))
            Issue.record("accepted")
        } catch let e as StageError {
            #expect(e.domain == .usage)
            #expect(e.message.contains("cap: cannot use directory '\(file)/photos': '\(file)' is a file, not a directory"), "\(e.message)")
        }
    }
}
