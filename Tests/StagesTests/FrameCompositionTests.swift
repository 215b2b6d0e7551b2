import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

@Suite struct FrameCompositionTests {
    @Test func theMeasuredBoxIsScaledToTheFrame() {
        let c = FrameComposition(
            rule: "thirds", score: 0.8, composed: true, advice: "",
            subject: Box(x: 1, y: 1, width: 2, height: 2), measured: Box(x: 10, y: 20, width: 30, height: 40),
            analysisPts: nil, inputWidth: 320, inputHeight: 240)
        #expect(c.box(width: 640, height: 480) == Box(x: 20, y: 40, width: 60, height: 80))
        #expect(c.box(width: 320, height: 240) == Box(x: 10, y: 20, width: 30, height: 40))
    }

    @Test func aBoxSeenThroughACropIsClippedAndMoved() {
        #expect(
            FrameComposition.map(Box(x: 50, y: 50, width: 100, height: 100), into: (x: 100, y: 0, width: 200, height: 200))
                == Box(x: 0, y: 50, width: 50, height: 100))
        #expect(FrameComposition.map(Box(x: 0, y: 0, width: 10, height: 10), into: (x: 100, y: 100, width: 50, height: 50)) == nil)
    }

    @Test func readsComposesMetaFromAFrame() throws {
        let info = try VideoInfo(format: "RGBA", width: 4, height: 2)
        let buffer = Buffer(bytes: [UInt8](repeating: 0, count: info.size))
        buffer.setCustomMeta(
            MessageStructure(
                ComposeStage.metaName,
                [
                    ("rule", .string("golden")), ("score", .double(0.6)), ("well-composed", .bool(true)), ("advice", .string("move left")),
                    ("x", .double(1)), ("y", .double(0)), ("width", .double(2)), ("height", .double(1)),
                    ("analysis-pts", .uint64(40)), ("analysing", .bool(true)), ("skipped-pts", .uint64(20)),
                ]))
        let frame = VideoFrame(buffer: buffer, info: info, caps: try Caps(info.capsString), segment: Segment(), index: 0)
        let (c, analysing, skipped) = FrameComposition.read(from: frame)
        #expect(c?.rule == "golden")
        #expect(c?.score == 0.6)
        #expect(c?.composed == true)
        #expect(c?.advice == "move left")
        #expect(c?.subject == Box(x: 1, y: 0, width: 2, height: 1))
        #expect(c?.measured == nil)
        #expect(c?.analysisPts == 40)
        #expect(analysing)
        #expect(skipped == 20)
    }

    @Test func noMetaNoComposition() throws {
        let info = try VideoInfo(format: "RGBA", width: 4, height: 2)
        let frame = VideoFrame(
            buffer: Buffer(bytes: [UInt8](repeating: 0, count: info.size)), info: info,
            caps: try Caps(info.capsString), segment: Segment(), index: 0)
        let (c, analysing, skipped) = FrameComposition.read(from: frame)
        #expect(c == nil && !analysing && skipped == nil)
    }
}
