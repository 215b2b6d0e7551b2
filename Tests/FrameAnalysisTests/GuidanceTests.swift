import Testing

@testable import FrameAnalysis

@Suite struct GuidanceTests {
    func sample() -> Guidance {
        Guidance(
            pts: 40_000_000, frameWidth: 320, frameHeight: 180,
            subject: Detection(box: Box(x: 80, y: 45, width: 32, height: 36), confidence: 0.8, kind: .face),
            engine: "faces", rule: "thirds",
            timings: [.init(step: "luma", ms: 0.1), .init(step: "detect", ms: 1.5), .init(step: "rule", ms: 0.25)])
    }

    @Test func boxesInPixelsNormalisedAndInputFrame() {
        let g = sample()
        #expect(g.subjectNormalized == Box(x: 0.25, y: 0.25, width: 0.1, height: 0.2))
        // Analysed at 320x180, drawn at 1920x1080: 6x.
        #expect(g.subjectBox(width: 1920, height: 1080) == Box(x: 480, y: 270, width: 192, height: 216))
        #expect(Guidance(frameWidth: 320, frameHeight: 180, rule: "thirds").subjectNormalized == nil)
    }

    @Test func applyCopiesTheVerdict() {
        var g = sample()
        let r = ThirdsRule().evaluate(RuleInput(subject: g.subjectNormalized, frameWidth: 320, frameHeight: 180))
        g.apply(r)
        #expect(g.rule == "thirds" && g.score == r.score && g.advice == r.advice && g.adviceKey == r.adviceKey)
        #expect(g.target == Point2D(x: 1.0 / 3, y: 1.0 / 3))
        let tp = try! #require(g.targetPixels)
        #expect(abs(tp.x - 320.0 / 3) < 1e-9 && abs(tp.y - 60) < 1e-9)
        // Centre (0.3, 0.35) -> (1/3, 1/3).
        #expect(abs(g.direction.dx - (1.0 / 3 - 0.3)) < 1e-9 && abs(g.direction.dy - (1.0 / 3 - 0.35)) < 1e-9)
    }

    @Test func timings() {
        let g = sample()
        #expect(abs(g.totalMs - 1.85) < 1e-9)
        #expect(g.ms("detect") == 1.5 && g.ms("smooth") == nil)
    }
}
