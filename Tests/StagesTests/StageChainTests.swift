import Foundation
import GStreamerKit
import StageTesting
import Testing

@testable import Stages

/// StageChain, the per-frame loop the host's worker drives, tested without any pipeline.
@Suite struct StageChainTests {
    /// A stage that records what it is given: layouts, the luma it sees at one pixel, events, the end.
    final class ProbeStage: Stage, @unchecked Sendable {
        static let descriptor = StageDescriptor(kind: "probe", blurb: "records what it sees", properties: [], formats: ["I420"])
        let probeX: Int
        var configured: [Int] = []
        var seen: [(index: Int, luma: UInt8)] = []
        var events: [String] = []
        var finished = false
        init(name: String, properties: PropertyValues) throws(StageError) { probeX = 0 }
        init(probeX: Int) { self.probeX = probeX }
        func configure(_ info: VideoInfo) throws(StageError) { configured.append(info.width) }
        func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
            let plane: (bytes: [UInt8], rowBytes: Int, rows: Int)
            do { plane = try frame.planeBytes(plane: 0) } catch { throw StageError(.stream, error.message) }
            seen.append((frame.index, plane.bytes[(plane.rows / 2) * plane.rowBytes + probeX]))
        }
        func customEvent(_ event: MessageStructure) { events.append(event.name) }
        func finish(context: StageContext) { finished = true }
    }

    /// The chain is the unit under test here (StageHarness is built on it), so it gets a bare context.
    final class Context: StageContext, @unchecked Sendable {
        let stageName: String
        init(stageName: String) { self.stageName = stageName }
        func push(_ frame: VideoFrame, on output: String) -> Bool { true }
        func push(_ tags: TagList, on output: String) -> Bool { true }
        func push(event: MessageStructure, on output: String) -> Bool { true }
        func post(_ message: MessageStructure) {}
    }

    static func black(_ info: VideoInfo) -> Buffer { Buffer(bytes: StageHarness.blackBytes(info)) }

    @Test func overlaysAreBlendedAfterTheLastStageSoLaterStagesSeeCleanPixels() throws {
        let info = try VideoInfo(format: "I420", width: 320, height: 240, fpsN: 30, fpsD: 1)
        let grid = try StageRegistry.make(
            kind: "grid", name: "grid0", assignments: [("lines", "thirds"), ("color", "#ffffffff"), ("width", "6")])
        let probe = ProbeStage(probeX: 320 / 3)
        let chain = StageChain(
            stages: [("grid0", grid), ("probe0", probe)],
            contexts: [Context(stageName: "grid0"), Context(stageName: "probe0")])
        let (frame, ms) = try chain.process(Self.black(info), caps: try Caps(info.capsString), segment: Segment())
        // The probe after grid saw black at the line's column; the frame passed on has the line.
        #expect(probe.seen.map(\.luma) == [16])
        let plane = try frame.planeBytes(plane: 0)
        #expect(plane.bytes[(plane.rows / 2) * plane.rowBytes + 320 / 3] > 200)
        #expect(ms.count == 2)
    }

    /// A GAP frame that carries a picture (videorate flags the frames it duplicates GAP) goes through the stages and
    /// gets their overlays; only the host's placeholder (GAP and `PlaceholderFrame.meta`) passes untouched.
    @Test func aGapFrameIsDrawnOnAndOnlyTheHostsPlaceholderPassesUntouched() throws {
        let info = try VideoInfo(format: "I420", width: 320, height: 240, fpsN: 30, fpsD: 1)
        let grid = try StageRegistry.make(
            kind: "grid", name: "grid0", assignments: [("lines", "thirds"), ("color", "#ffffffff"), ("width", "6")])
        let chain = StageChain(stages: [("grid0", grid)], contexts: [Context(stageName: "grid0")])
        let caps = try Caps(info.capsString)
        func lineLuma(_ frame: VideoFrame) throws -> UInt8 {
            let plane = try frame.planeBytes(plane: 0)
            return plane.bytes[(plane.rows / 2) * plane.rowBytes + 320 / 3]
        }
        let duplicate = Self.black(info)
        duplicate.isGap = true
        #expect(duplicate.isGap && !duplicate.isPlaceholder)
        #expect(try lineLuma(try chain.process(duplicate, caps: caps, segment: Segment()).frame) > 200)
        let placeholder = try PlaceholderFrame.make(info, grey: 40, pts: nil, duration: nil)
        #expect(placeholder.isGap && placeholder.isPlaceholder)
        let passed = try chain.process(placeholder, caps: caps, segment: Segment())
        #expect(try lineLuma(passed.frame) == 50)
        #expect(passed.ms == [0])
    }

    @Test func stagesAreConfiguredOncePerLayoutAndFramesCounted() throws {
        let small = try VideoInfo(format: "I420", width: 160, height: 120, fpsN: 30, fpsD: 1)
        let big = try VideoInfo(format: "I420", width: 320, height: 240, fpsN: 30, fpsD: 1)
        let probe = ProbeStage(probeX: 0)
        let chain = StageChain(stages: [("probe0", probe)], contexts: [Context(stageName: "probe0")])
        #expect(try chain.configure(try Caps(small.capsString)))
        #expect(try !chain.configure(try Caps(small.capsString)))
        for info in [small, small, big] {
            _ = try chain.process(Self.black(info), caps: try Caps(info.capsString), segment: Segment())
        }
        #expect(probe.configured == [160, 320])
        #expect(probe.seen.map(\.index) == [0, 1, 2])
        #expect(chain.frames == 3)
        chain.deliver([MessageStructure("viewfinder-capture"), MessageStructure("other")])
        chain.finish()
        #expect(probe.events == ["viewfinder-capture", "other"])
        #expect(probe.finished)
    }

    @Test func aFormatNoStageTakesIsRefusedNamingTheChain() throws {
        let rgba = try VideoInfo(format: "RGBA", width: 64, height: 48, fpsN: 30, fpsD: 1)
        let chain = StageChain(stages: [("probe0", ProbeStage(probeX: 0))], contexts: [Context(stageName: "probe0")])
        #expect(chain.accepted == ["I420"])
        #expect(throws: StageError(.stream, "stage 'probe0' cannot take format RGBA; it accepts I420: put 'videoconvert' before it")) {
            try chain.configure(try Caps(rgba.capsString))
        }
        #expect(chain.caps == nil)
    }
}

/// A chain with a resizing stage (reframe): the stages after it are configured at its size and see its frame.
@Suite struct StageChainResizingTests {
    @Test func stagesAfterReframeSeeTheOutputSizeAndThePlaceholderIsResizedToo() throws {
        let info = try VideoInfo(format: "I420", width: 640, height: 360, fpsN: 30, fpsD: 1)
        let reframe = try StageRegistry.make(kind: "reframe", name: "r0", assignments: [("width", "180"), ("height", "320"), ("analysis", "upstream")])
        let probe = StageChainTests.ProbeStage(probeX: 90)
        let chain = StageChain(
            stages: [("r0", reframe), ("probe0", probe)],
            contexts: [StageChainTests.Context(stageName: "r0"), StageChainTests.Context(stageName: "probe0")])
        let caps = try Caps(info.capsString)
        let (frame, ms) = try chain.process(StageChainTests.black(info), caps: caps, segment: Segment())
        #expect(chain.resizes)
        #expect(probe.configured == [180])
        #expect(frame.info.width == 180 && frame.info.height == 320)
        #expect(chain.outputCaps?.description.contains("width=(int)180") == true)
        #expect(chain.caps(seenBy: "probe0")?.videoInfo?.height == 320)
        #expect(chain.caps(seenBy: "r0") == caps)
        #expect(probe.seen.map(\.luma) == [16] && ms.count == 2)
        let placeholder = try PlaceholderFrame.make(info, grey: 40, pts: nil, duration: nil)
        let passed = try chain.process(placeholder, caps: caps, segment: Segment())
        #expect(passed.frame.info.width == 180 && passed.frame.buffer.isPlaceholder)
        #expect(probe.seen.count == 1)  // the placeholder was not shown to the stages
    }
}
