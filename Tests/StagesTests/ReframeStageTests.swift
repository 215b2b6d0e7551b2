import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

/// `reframe`'s own parts: its output size, compose's verdict read as a scene and rewritten into the output's pixels.
@Suite struct ReframeStageTests {
    func stage(_ a: [(String, String)]) throws -> ReframeStage {
        try #require(try StageRegistry.make(kind: "reframe", name: "r0", assignments: a + [("analysis", "upstream")]) as? ReframeStage)
    }

    @Test func outputSizeFromTheProperties() throws {
        let hd = try VideoInfo(format: "I420", width: 1920, height: 1080)
        #expect(try stage([]).outputSize(for: hd) == (608, 1080))  // 9:16 at the input's height, even
        #expect(try stage([("aspect", "1:1")]).outputSize(for: hd) == (1080, 1080))
        #expect(try stage([("width", "1080")]).outputSize(for: hd) == (1080, 1920))
        #expect(try stage([("height", "1280"), ("aspect", "4:5")]).outputSize(for: hd) == (1024, 1280))
        #expect(try stage([("width", "720"), ("height", "1280")]).outputSize(for: hd) == (720, 1280))
        #expect(throws: StageError.self) { try self.stage([("aspect", "0:16")]) }
        #expect(throws: StageError.self) { try self.stage([("width", "8"), ("height", "8")]) }
    }

    @Test func theVerdictIsRewrittenIntoTheOutputsPixels() throws {
        let input = try VideoInfo(format: "I420", width: 1920, height: 1080), output = try VideoInfo(format: "I420", width: 1080, height: 1920)
        // The verdict was made on a 640x360 analysis of the input; the window is x 600...1207.5, full height.
        var a = CompositionMeta.Analysis(
            rule: "thirds", score: 1, composed: true, advice: "", subject: Box(x: 300, y: 100, width: 20, height: 20), inputWidth: 640,
            inputHeight: 360)
        a.faces = [Box(x: 300, y: 100, width: 20, height: 20)]
        let w = CropWindow(cx: 903.75, cy: 540, width: 607.5, aspect: 9.0 / 16)
        let m = ReframeStage.mapped(a, window: w, input: input, output: output)
        // x: 300 * 3 = 900 input px, 300 px into the window, * 1080/607.5 = 533.3 output px; size 60 -> 106.7.
        let s = try #require(m.subject)
        #expect(abs(s.x - 533.33) < 0.01 && abs(s.y - 533.33) < 0.01 && abs(s.width - 106.67) < 0.01)
        #expect(m.faces == [s] && m.inputWidth == 1080 && m.inputHeight == 1920)
    }

    @Test func aGroupVerdictBecomesAGroupSceneAndOneFaceKeepsItsEyesAndLook() {
        var g = CompositionMeta.Analysis(
            rule: "center", score: 1, composed: true, advice: "", measured: Box(x: 10, y: 10, width: 100, height: 30), inputWidth: 320,
            inputHeight: 180)
        g.members = [Box(x: 10, y: 10, width: 30, height: 30), Box(x: 80, y: 10, width: 30, height: 30)]
        g.faces = g.members + [Box(x: 200, y: 50, width: 20, height: 20)]
        let scene = ReframeStage.scene(g, width: 1920, height: 1080)
        #expect(scene.isGroup && scene.required.count == 2 && scene.faces.count == 5)
        #expect(scene.subject == Box(x: 60, y: 60, width: 600, height: 180))
        var one = CompositionMeta.Analysis(
            rule: "thirds", score: 1, composed: true, advice: "", measured: Box(x: 10, y: 10, width: 30, height: 30),
            eyes: Detection.Eyes(left: Point2D(x: 18, y: 20), right: Point2D(x: 32, y: 20)), inputWidth: 320, inputHeight: 180)
        one.look = 0.6
        let single = ReframeStage.scene(one, width: 640, height: 360)
        #expect(!single.isGroup && single.look == 0.6 && single.eyes?.left == Point2D(x: 36, y: 40))
        // Only compose's salient subject (an object, nobody found) is followed as one; a face, a body and an unsaid
        // kind are not.
        #expect(!scene.salient && !single.salient)
        for (kind, salient) in [(Detection.Kind.salient, true), (.face, false), (.fullBody, false), (.upperBody, false)] {
            one.kind = kind
            #expect(ReframeStage.scene(one, width: 640, height: 360).salient == salient, "\(kind)")
        }
        #expect(ReframeStage.scene(CompositionMeta.Analysis(rule: "thirds", score: 0, composed: false, advice: ""), width: 640, height: 360) == .empty)
    }
}
