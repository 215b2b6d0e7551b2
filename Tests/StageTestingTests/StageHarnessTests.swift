import Foundation
import GStreamerKit
import StageTesting
import Stages
import Synchronization
import Testing

/// The harness itself: frames and items in order on each output, caps changes, events, end of stream,
/// messages, triggers, the host's output calls and the simulated file branch.
@Suite struct StageHarnessTests {
    static let info = try! VideoInfo(format: "I420", width: 32, height: 24, fpsN: 30, fpsD: 1)

    /// Records every call the host makes, as text, and posts `viewfinder/probe` at `finish`.
    final class ProbeStage: Stage, @unchecked Sendable {
        static let descriptor = StageDescriptor(
            kind: "probe", blurb: "records calls", properties: [],
            outputs: [OutputSpec("side", "every frame")], formats: ["I420"])
        let calls = Mutex<[String]>([])
        init(name: String, properties: PropertyValues) throws(StageError) {}
        init() {}
        var log: [String] { calls.withLock { $0 } }
        func note(_ s: String) { calls.withLock { $0.append(s) } }
        func open() throws(StageError) { note("open") }
        func configure(_ info: VideoInfo) throws(StageError) { note("configure \(info.width)x\(info.height)") }
        func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
            note("frame \(frame.index)")
            context.push(
                event: MessageStructure(
                    "side-event",
                    [
                        ("frame", .int(Int32(frame.index))),
                        ("backlog", .int(Int32(context.backlog(on: "side")))),
                    ]), on: "side")
            context.push(frame, on: "side")
        }
        func customEvent(_ event: MessageStructure) { note("event \(event.name)") }
        func busMessage(_ message: BusMessage) { note("bus \(message.source) \(message.structure.name)") }
        func outputsPlanned(_ plans: [String: OutputPlan]) { note("planned \(plans)") }
        func outputFailed(_ output: String, reason: String) { note("failed \(output): \(reason)") }
        func outputRestarted(_ output: String) { note("restarted \(output)") }
        func finish(context: StageContext) { note("finish"); context.post(MessageStructure("viewfinder/probe", [("done", .bool(true))])) }
        func close() { note("close") }
    }

    @Test func framesLeaveInOrderWithTheirTimestampsAndPixels() throws {
        let h = try StageHarness(stage: ProbeStage(), name: "p", info: Self.info)
        var bytes = StageHarness.blackBytes(Self.info)
        bytes[0] = 200
        try h.push(count: 2)
        try h.push(bytes, pts: 5_000_000_000)
        let main = h.pullAll()
        #expect(main.map(\.kind) == ["frame", "frame", "frame"])
        #expect(main.compactMap(\.frame).map(\.pts) == [0, 33_333_333, 5_000_000_000])
        #expect(main.compactMap(\.frame).map(\.index) == [0, 1, 2])
        #expect(try main[2].frame?.planeBytes(plane: 0).bytes[0] == 200)
        #expect(h.pull() == nil)  // all pulled
        #expect(h.items().count == 3)  // still recorded
        // The extra output: each event before its frame, pulled one by one.
        #expect(h.pull("side")?.event?.integer("frame") == 0)
        #expect(h.pull("p.side")?.frame?.index == 0)
        #expect(h.pullAll("side").map(\.kind) == ["event", "frame", "event", "frame"])
    }

    @Test func tagsTravelBeforeTheFrameTheyDescribe() throws {
        let h = try StageHarness(kind: "snapshot", name: "snap", properties: [("at", "1,3"), ("manual", "false")], info: Self.info)
        try h.push(count: 4)
        let items = h.items(on: "snapshot")
        #expect(items.map(\.kind) == ["tags", "frame", "tags", "frame"])
        #expect(items.compactMap(\.frame).map(\.index) == [1, 3])
        #expect(items.compactMap(\.frame).map(\.pts) == [33_333_333, 100_000_000 - 1])
        let description = h.tags(on: "snapshot").first?.entries.first { $0.tag == TagList.description }
        if case .string(let text)? = description?.value {
            #expect(text == "Viewfinder snapshot 1 by snap (at) at frame 1")
        } else {
            Issue.record("no description tag")
        }
    }

    @Test func aCapsChangeReconfiguresTheStagesWithTheNextFrame() throws {
        let probe = ProbeStage()
        let h = try StageHarness(stage: probe, name: "p", info: Self.info)
        try h.push()
        try h.push()
        try h.setCaps(try VideoInfo(format: "I420", width: 64, height: 48))
        #expect(probe.log.filter { $0.hasPrefix("configure") } == ["configure 32x24"])
        let big = try h.push()
        #expect(probe.log.filter { $0.hasPrefix("configure") || $0 == "open" } == ["open", "configure 32x24", "configure 64x48"])
        #expect(big.info.width == 64 && big.index == 2)
        // A caller-made frame of other caps reconfigures too.
        let small = VideoFrame(
            buffer: Buffer(bytes: StageHarness.blackBytes(Self.info)), info: Self.info,
            caps: try Caps(Self.info.capsString), segment: Segment(), index: 99)
        #expect(try h.push(small).index == 3)
        #expect(probe.log.last(where: { $0.hasPrefix("configure") }) == "configure 32x24")
    }

    @Test func eventsAreDeliveredBeforeTheNextFrameDownstreamFirst() throws {
        let probe = ProbeStage()
        let h = try StageHarness(stage: probe, name: "p", info: Self.info)
        try h.push()
        h.pushUpstreamEvent(MessageStructure("from-side"), on: "side")
        h.pushEvent(MessageStructure("from-upstream"))
        #expect(!probe.log.contains("event from-upstream"))
        try h.push()
        #expect(Array(probe.log.suffix(3)) == ["event from-upstream", "event from-side", "frame 1"])
    }

    @Test func endOfStreamFinishesTheStagesThenEndsEveryOutput() throws {
        let probe = ProbeStage()
        let h = try StageHarness(stage: probe, name: "p", info: Self.info)
        try h.push()
        h.endOfStream()
        #expect(probe.log.contains("finish"))
        #expect(h.items().map(\.kind) == ["frame", "eos"])
        #expect(h.items(on: "side").last?.isEndOfStream == true)
        // What finish posted is on the bus, named after the stage, and handed back to the stages.
        let m = try #require(h.messages(named: "viewfinder/probe").first)
        #expect(m.string("stage") == "p" && m.bool("done") == true)
        #expect(probe.log.last == "bus p viewfinder/probe")
    }

    @Test func theHostsOutputCallsReachTheStageOwningTheOutput() throws {
        let probe = ProbeStage()
        let h = try StageHarness(stage: probe, name: "p", info: Self.info)
        h.planOutputs(["side": .unused])
        try h.push()
        h.outputFailed("side", reason: "disk full")
        h.outputRestarted("p.side")
        h.busMessage(BusMessage(source: "face0", structure: MessageStructure("facedetect")))
        #expect(
            probe.log == [
                "planned [\"side\": Stages.OutputPlan.unused]", "open", "configure 32x24", "frame 0",
                "failed side: disk full", "restarted side", "bus face0 facedetect",
            ])
        // An unused output refuses pushes: nothing arrives there.
        #expect(h.items(on: "side").isEmpty)
        h.refusePushes(on: "side", false)
        try h.push()
        #expect(h.items(on: "side").map(\.kind) == ["event", "frame"])
    }

    @Test func theHarnessTriggersReachTheStagesItMade() throws {
        let h = try StageHarness("snapshot name=snap", info: Self.info)
        try h.push()
        h.fireTrigger()
        try h.push()
        try h.push()
        #expect(h.frames(on: "snapshot").map(\.index) == [1])
        #expect(h.messages(named: "viewfinder/snapshot").map { $0.string("reason") } == ["manual"])
        #expect(h.stage(SnapshotStage.self)?.shots == 1)
        #expect(Triggers.shared.count == 0)
    }

    @Test func anUnusedOutputMakesTheStageSeeItsPushFail() throws {
        let h = try StageHarness(kind: "snapshot", name: "snap", properties: [("at", "0")], info: Self.info)
        h.planOutputs(["snapshot": .unused])
        try h.push()
        #expect(h.messages(named: "viewfinder/snapshot").map { $0.bool("pushed") } == [false])
        #expect(h.frames(on: "snapshot").isEmpty)
    }

    @Test func aSimulatedDefaultBranchWritesFilesAndReportsThem() throws {
        let dir = NSTemporaryDirectory() + "vf-harness-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let h = try StageHarness(
            kind: "snapshot", name: "snap", properties: [("at", "1,2"), ("location", dir + "/shot-%03d.jpg")], info: Self.info)
        h.planOutputs(defaultBranches: ["snapshot"])
        let branch = try #require(h.writeFiles(on: "snapshot", content: .fixed(Data([0xFF, 0xD8, 0xFF, 0xD9]))))
        #expect(branch.location == dir + "/shot-%03d.jpg" && branch.index == 0)
        try h.push(count: 3)
        let reports = h.messages.filter { $0.structure.name == "GstMultiFileSink" }
        #expect(reports.map { $0.structure.string("filename") } == [dir + "/shot-000.jpg", dir + "/shot-001.jpg"])
        #expect(reports.map { $0.structure.integer("timestamp") } == [33_333_333, 66_666_666])
        #expect(FileManager.default.contents(atPath: dir + "/shot-001.jpg") == Data([0xFF, 0xD8, 0xFF, 0xD9]))
    }

    @Test func aDescriptionNamesAndChainsItsStages() throws {
        let h = try StageHarness("grid lines=thirds color=#ffffffff width=4 ! snapshot name=snap at=0", info: Self.info)
        #expect(h.stages.map(\.name) == ["grid0", "snap"])
        let out = try h.push()
        // The snapshot is taken before the grid is blended (clean); the main output has the lines.
        #expect(try h.frames(on: "snapshot").first?.planeBytes(plane: 0).bytes.allSatisfy { $0 == 16 } == true)
        let y = try out.planeBytes(plane: 0)
        #expect(y.bytes[12 * y.rowBytes + 32 / 3] > 200)
        #expect(
            throws: StageError(
                .usage, "unknown stage 'nosuch'; stages are: grid, compose, capture, snapshot, ringlight, chromakey, reframe, redact, passthrough")
        ) {
            try StageHarness("grid ! nosuch", info: Self.info)
        }
        #expect(throws: StageError.self) { try StageHarness("grid width=100", info: Self.info) }
    }

    @Test func theBacklogSetIsWhatTheStageSees() throws {
        let h = try StageHarness(stage: ProbeStage(), name: "p", info: Self.info)
        try h.push()
        h.setBacklog(3, on: "side")
        try h.push()
        #expect(h.events(on: "side").map { $0.integer("backlog") } == [0, 3])
    }

    @Test func finishingOneStageDoesNotEndTheStream() throws {
        let probe = ProbeStage()
        let h = try StageHarness(stage: probe, name: "p", info: Self.info)
        try h.push()
        h.finish(stage: "p")
        #expect(probe.log.contains("finish"))
        #expect(h.messages(named: "viewfinder/probe").count == 1)
        #expect(!h.items().contains { $0.isEndOfStream })
        #expect(try h.push().index == 1)
    }

    @Test func queuedOverlaysAndUnblendedPixelsAreKeptPerFrame() throws {
        let h = try StageHarness(kind: "grid", properties: [("lines", "thirds"), ("color", "#ffffffff"), ("width", "40")], info: Self.info)
        h.keepsUnblendedPixels = true
        let out = try h.push()
        #expect(h.overlays(ofFrame: 0).count == 1)
        #expect(out.overlays.isEmpty)  // blended and cleared on the frame
        let before = try #require(h.unblendedPixels(ofFrame: 0))
        #expect(before == StageHarness.blackBytes(Self.info))  // the grid only queued an overlay
        let y = try out.planeBytes(plane: 0)
        #expect(y.bytes[12 * y.rowBytes + 10] > 200)  // blended: the thirds line at x = 10
        #expect(h.unblendedPixels(ofFrame: 1) == nil)
    }
}
