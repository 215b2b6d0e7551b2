import GStreamerKit
import StageTesting
import Foundation
import Stages
import Testing
import Timing

@Suite struct SnapshotStageTests {
    static let info = try! VideoInfo(format: "I420", width: 64, height: 48, fpsN: 30, fpsD: 1)

    /// A snapshot stage on its own `Triggers`, wrapped in a harness.
    private func harness(
        _ assignments: [(String, String)] = [], triggers: Triggers = Triggers(),
        pushResult: Bool = true
    ) throws -> (StageHarness, SnapshotStage) {
        let stage = try SnapshotStage(
            name: "snap", properties: StageHarness.values(kind: "snapshot", name: "snap", properties: assignments),
            triggers: triggers)
        let h = try StageHarness(stage: stage, name: "snap", info: Self.info, triggers: triggers)
        if !pushResult { h.refusePushes(on: "snapshot") }
        return (h, stage)
    }

    @Test func harnessStampsFramesAt30fps() throws {
        let (h, _) = try harness()
        let outs = try h.push(count: 3)
        #expect(outs.map(\.pts) == [0, 33_333_333, 66_666_666])
        #expect(outs.map(\.index) == [0, 1, 2])
    }

    @Test func intervalOfOneSecondShootsFrames0_30_60() throws {
        let (h, stage) = try harness([("interval", "1")])
        try h.push(count: 90)
        #expect(h.frames(on: "snapshot").map(\.index) == [0, 30, 60])
        #expect(h.frames(on: "snapshot").map(\.pts) == [0, 30 * 33_333_333, 60 * 33_333_333])
        #expect(stage.shots == 3)
        // `/metrics`: the same count as `viewfinder_photos_total`.
        #expect(stage.metricSamples.map(\.name) == ["viewfinder_photos_total"] && stage.metricSamples.first?.value == 3)
        #expect(stage.metricSamples.first?.kind == .counter)
        let m = h.messages.map(\.structure)
        #expect(m.map(\.name) == Array(repeating: "viewfinder/snapshot", count: 3))
        #expect(m.map { $0.int("shot") } == [1, 2, 3])
        #expect(m.map { $0.uint64("frame") } == [0, 30, 60])
        #expect(m.map { $0.uint64("pts") } == [0, 999_999_990, 1_999_999_980])
        #expect(m.map { $0.string("reason") } == ["interval", "interval", "interval"])
        #expect(m.map { $0.string("stage") } == ["snap", "snap", "snap"])
        #expect(m.map { $0.bool("pushed") } == [true, true, true])
    }

    /// The interval is stream time (the frames' pts), not the host's clock; the EXIF date is the host's clock.
    @Test func intervalsFollowTheStreamAndDatesFollowTheHostsClock() throws {
        let (h, _) = try harness([("interval", "1")])
        let clock = ManualClock(now: 0, wall: Date(timeIntervalSince1970: 1_767_225_600))
        h.clock = clock
        var dates: [Date] = []
        for i in 0..<61 {
            try h.push()
            if i == 0 || i == 30 { clock.advance(by: 3600) }  // an hour of host time per shot: no effect on the schedule
        }
        for t in h.tags(on: "snapshot") {
            for e in t.entries where e.tag == TagList.dateTime { if case .dateTime(let d) = e.value { dates.append(d) } }
        }
        #expect(h.frames(on: "snapshot").map(\.index) == [0, 30, 60])
        #expect(dates == [0, 3600, 7200].map { Date(timeIntervalSince1970: 1_767_225_600 + $0) })
    }

    @Test func halfSecondIntervalShootsEvery15Frames() throws {
        let (h, _) = try harness([("interval", "0.5")])
        try h.push(count: 61)
        #expect(h.frames(on: "snapshot").map(\.index) == [0, 15, 30, 45, 60])
    }

    @Test func atListShootsExactlyThoseFrames() throws {
        let (h, _) = try harness([("at", "10,3")])
        try h.push(count: 20)
        #expect(h.frames(on: "snapshot").map(\.index) == [3, 10])
        #expect(h.messages.map(\.structure).map { $0.string("reason") } == ["at", "at"])
        #expect(h.messages.map(\.structure).map { $0.int("shot") } == [1, 2])
    }

    @Test func nothingFiresWithoutATrigger() throws {
        let (h, stage) = try harness()
        try h.push(count: 40)
        #expect(h.frames(on: "snapshot").isEmpty)
        #expect(h.messages.map(\.structure).isEmpty)
        #expect(stage.shots == 0)
    }

    @Test func manualFireShootsTheNextFrameOnly() throws {
        let triggers = Triggers()
        let (h, _) = try harness(triggers: triggers)
        try h.push(count: 5)
        triggers.fire()
        try h.push(count: 5)
        #expect(h.frames(on: "snapshot").map(\.index) == [5])
        let m = try #require(h.messages.map(\.structure).first)
        #expect(m.string("reason") == "manual")
        #expect(m.int("shot") == 1)
        #expect(m.uint64("frame") == 5)
        // Two fires before one frame still make one shot.
        triggers.fire(); triggers.fire()
        try h.push(count: 3)
        #expect(h.frames(on: "snapshot").map(\.index) == [5, 10])
    }

    @Test func manualOffIgnoresFires() throws {
        let triggers = Triggers()
        let (h, stage) = try harness([("manual", "false")], triggers: triggers)
        triggers.fire()
        try h.push(count: 3)
        #expect(h.frames(on: "snapshot").isEmpty)
        // Turned on while playing: only fires from then on count.
        try stage.update("manual", value: .bool(true))
        try h.push(count: 1)
        #expect(h.frames(on: "snapshot").isEmpty)
        triggers.fire()
        try h.push(count: 2)
        #expect(h.frames(on: "snapshot").map(\.index) == [4])
    }

    @Test func firesBeforeTheStageExistedAreIgnored() throws {
        let triggers = Triggers()
        triggers.fire()
        let (h, _) = try harness(triggers: triggers)
        try h.push(count: 3)
        #expect(h.frames(on: "snapshot").isEmpty)
    }

    @Test func maxShotsStopsAfterTwo() throws {
        let triggers = Triggers()
        let (h, stage) = try harness([("max-shots", "2"), ("interval", "1")], triggers: triggers)
        try h.push(count: 120)
        triggers.fire()
        try h.push(count: 1)
        #expect(h.frames(on: "snapshot").map(\.index) == [0, 30])
        #expect(h.messages.map(\.structure).map { $0.int("shot") } == [1, 2])
        #expect(stage.shots == 2)
        // Raising the limit while playing lets the interval continue.
        try stage.update("max-shots", value: .int(3))
        try h.push(count: 1)
        #expect(h.frames(on: "snapshot").map(\.index) == [0, 30, 121])
    }

    @Test func tagsTravelAheadOfEachSnapshot() throws {
        let (h, _) = try harness([("at", "2,4")])
        try h.push(count: 6)
        let order: [String] = h.items(on: "snapshot").map {
            switch $0 {
            case .frame(let f): "frame \(f.index) on snapshot"
            case .tags: "tags on snapshot"
            case .event(let e): "event \(e.name) on snapshot"
            case .endOfStream: "eos on snapshot"
            }
        }
        #expect(order == ["tags on snapshot", "frame 2 on snapshot", "tags on snapshot", "frame 4 on snapshot"])
        let tags = h.tags(on: "snapshot")
        #expect(tags.map { $0.string("application-name") } == ["Viewfinder", "Viewfinder"])
        #expect(tags.allSatisfy { $0.names.contains("datetime") })
        let descriptions = tags.compactMap { $0.string("description") }
        #expect(descriptions.count == 2)
        #expect(descriptions[0].contains("snapshot 1") && descriptions[0].contains("frame 2"), "\(descriptions[0])")
        #expect(descriptions[1].contains("snapshot 2") && descriptions[1].contains("frame 4"), "\(descriptions[1])")
    }

    @Test func unlinkedOutputIsReportedInTheMessage() throws {
        let (h, stage) = try harness([("at", "0")], pushResult: false)
        try h.push(count: 2)
        #expect(h.messages.map(\.structure).map { $0.bool("pushed") } == [false])
        #expect(stage.shots == 1)
    }

    @Test func pushedFramesAreClean() throws {
        // The snapshot pushes the very frame (its buffer, not a copy), before any overlay is blended.
        let (h, _) = try harness([("at", "1")])
        let outs = try h.push(count: 2)
        let push = try #require(h.frames(on: "snapshot").first)
        #expect(push.buffer.identity == outs[1].buffer.identity)  // the very buffer (the harness holds its own reference, as an appsrc does)
        #expect(push.buffer.bytes() == StageHarness.blackBytes(Self.info))
        #expect(h.overlays(ofFrame: outs[1].index).isEmpty)
    }

    @Test func defaultBranchEncodesJpegToTheQuotedLocation() throws {
        let (_, stage) = try harness([("location", "shots/IMG_%05d.jpg"), ("quality", "75")])
        let branch = try #require(stage.defaultBranch(for: "snapshot"))
        #expect(branch.contains("jpegenc quality=75"))
        #expect(branch.contains("location=\"shots/IMG_%05d.jpg\""))
        #expect(branch.hasPrefix("queue ! "))
        #expect(branch.contains("multifilesink location="))
    }

    @Test func defaultBranchEscapesQuotesAndBackslashes() throws {
        let (_, stage) = try harness([("location", "my \"best\" \\shots-%d.jpg")])
        let branch = try #require(stage.defaultBranch(for: "snapshot"))
        #expect(branch.contains("jpegenc quality=90"))
        #expect(branch.contains(#"location="my \"best\" \\shots-%d.jpg""#))
    }

    @Test func onlyPlayingPropertiesCanChange() throws {
        let (_, stage) = try harness()
        #expect(throws: StageError(.usage, "snapshot: property 'location' cannot change while playing")) {
            try stage.update("location", value: .string("x.jpg"))
        }
        try stage.update("interval", value: .double(2))
    }

    @Test func descriptorDeclaresTheSnapshotOutput() {
        let d = SnapshotStage.descriptor
        #expect(d.kind == "snapshot")
        #expect(d.outputs.map(\.name) == ["snapshot"])
        #expect(d.properties.map(\.name) == ["interval", "at", "manual", "max-shots", "location", "quality"])
    }
}
