import FrameAnalysis
import GStreamerKit
@testable import Stages
import Testing

/// Until capture reads compose's meta through `CompositionMeta`: for every kind of meta compose writes,
/// `CompositionMeta(frame:)` reads what `CaptureStage.composition(of:)` reads today. Delete this file
/// when capture switches to `CompositionMeta` (then there is one reader).
@Suite struct CompositionMetaCaptureParityTests {
    static let metas: [CompositionMeta] = [
        CompositionMeta(analysis: .init(rule: "thirds", score: 0.8125, composed: true, locked: true, advice: "hold",
                                        subject: Box(x: 100.5, y: 40.25, width: 64, height: 48), measured: Box(x: 98, y: 41, width: 60, height: 50),
                                        analysisPts: 66_666_666, inputWidth: 640, inputHeight: 360),
                        analysing: true, skippedPts: 33_333_333),
        CompositionMeta(analysis: .init(rule: "center", score: 0, composed: false, advice: "looking for a subject", inputWidth: 320, inputHeight: 180)),
        CompositionMeta(analysis: nil, analysing: true),
        CompositionMeta(analysis: nil, skippedPts: 7),
    ]

    @Test(arguments: 0..<4)
    func bothReadersAgree(index: Int) throws {
        let meta = Self.metas[index]
        let info = try VideoInfo(format: "I420", width: 64, height: 36)
        let frame = VideoFrame(buffer: Buffer(bytes: [UInt8](repeating: 0, count: info.size)), info: info,
                               caps: try Caps(info.capsString), segment: Segment(), index: 0)
        meta.attach(to: frame)
        let read = try #require(CompositionMeta(frame: frame))
        let (capture, analysing, skipped) = CaptureStage.composition(of: frame)
        #expect(read.analysing == analysing && read.skippedPts == skipped)
        #expect((read.analysis == nil) == (capture == nil))
        if let a = read.analysis, let c = capture {
            #expect(a.rule == c.rule && a.score == c.score && a.composed == c.composed && a.advice == c.advice)
            #expect(a.subject == c.subject && a.measured == c.measured && a.analysisPts == c.analysisPts)
            #expect(a.inputWidth == c.inputWidth && a.inputHeight == c.inputHeight)
            #expect(a.box(width: 1280, height: 720) == c.box(width: 1280, height: 720))
        }
    }
}
