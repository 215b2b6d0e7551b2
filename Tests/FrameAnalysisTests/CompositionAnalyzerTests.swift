import Testing

@testable import FrameAnalysis

@Suite struct CompositionAnalyzerTests {
    /// An engine that returns fixed detections.
    struct StubEngine: DetectionEngine {
        let name: String
        var detections: [Detection]
        func detect(in image: RGBImage) -> [Detection] { detections }
    }

    static let frame = CompositionTestFrames.rgb(CompositionTestFrames.texture(width: 320, height: 180))
    static let face = Detection(box: Box(x: 90, y: 40, width: 32, height: 40), confidence: 0.9, kind: .face)
    static let body = Detection(box: Box(x: 200, y: 30, width: 60, height: 140), confidence: 0.6, kind: .upperBody)

    @Test func autoUsesTheFirstEngineThatFindsSomething() {
        let faces = StubEngine(name: "faces", detections: []), bodies = StubEngine(name: "bodies", detections: [Self.body])
        let g = CompositionAnalyzer(engines: [faces, bodies]).analyze(Self.frame)
        #expect(g.engine == "bodies" && g.subject == Self.body && g.detections == [Self.body])
        let g2 = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [Self.face]), bodies]).analyze(Self.frame)
        #expect(g2.engine == "faces" && g2.subject == Self.face)
    }

    @Test func autoFallsBackToSaliency() {
        var g = CompositionTestFrames.texture(width: 320, height: 180)
        CompositionTestFrames.disc(&g, cx: 240, cy: 120, r: 14, value: 250)
        let out = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [])]).analyze(CompositionTestFrames.rgb(g))
        #expect(out.engine == "saliency" && out.subject?.kind == .salient)
        let c = try! #require(out.subject?.box.center)
        #expect(abs(c.x - 240) < 10 && abs(c.y - 120) < 10)
        #expect(CompositionAnalyzer(engines: []).chain.map(\.name) == ["saliency"])
    }

    @Test func namedEngineRunsAlone() {
        let a = CompositionAnalyzer(
            engines: [
                StubEngine(name: "faces", detections: [Self.face]),
                StubEngine(name: "bodies", detections: [Self.body]),
            ], engine: "bodies")
        #expect(a.analyze(Self.frame).engine == "bodies")
        #expect(CompositionAnalyzer(engines: [], engine: "faces").analyze(Self.frame).subject == nil)
    }

    @Test func guidanceCarriesTheRuleVerdictAndBoxes() {
        let a = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [Self.face])], rule: ThirdsRule())
        let g = a.analyze(Self.frame, pts: 123)
        // Face centre (106, 60) -> (0.33125, 0.3333): on the thirds point.
        #expect(g.pts == 123 && g.rule == "thirds" && g.wellComposed && g.score > 0.99)
        #expect(g.subjectNormalized == Box(x: 90.0 / 320, y: 40.0 / 180, width: 0.1, height: 40.0 / 180))
        #expect(g.subjectBox(width: 1280, height: 720) == Box(x: 360, y: 160, width: 128, height: 160))
        #expect(g.target == Point2D(x: 1.0 / 3, y: 1.0 / 3))
        #expect(g.timings.map(\.step) == ["luma", "detect", "select", "rule"])
        #expect(g.timings.allSatisfy { $0.ms >= 0 })
    }

    @Test func picksTheBestCandidate() {
        let tiny = Detection(box: Box(x: 300, y: 5, width: 8, height: 8), confidence: 1, kind: .face)
        let g = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [tiny, Self.face])]).analyze(Self.frame)
        #expect(g.subject == Self.face && g.detections.count == 2)
    }

    @Test func noSubjectAnywhere() {
        let flat = RGBImage(width: 320, height: 180, pixels: [UInt8](repeating: 90, count: 320 * 180 * 3))
        let g = CompositionAnalyzer(engines: []).analyze(flat)
        #expect(g.subject == nil && g.engine == nil && g.score == 0 && !g.wellComposed && g.advice == "looking for a subject")
    }

    @Test func streamWithSmootherLocksAfterOneSecond() {
        // The subject drifts by ±2 px around the thirds point at 10 analyses per second.
        var smoother = GuidanceSmoother()
        var out: [Guidance] = []
        for i in 0..<15 {
            var face = Self.face
            face.box.x += i % 2 == 0 ? 2 : -2
            let a = CompositionAnalyzer(engines: [StubEngine(name: "faces", detections: [face])], rule: ThirdsRule())
            out.append(a.analyze(Self.frame, pts: UInt64(i) * 100_000_000, smoother: &smoother))
        }
        #expect(out.allSatisfy { $0.wellComposed })
        #expect(out.map(\.locked) == Array(repeating: false, count: 10) + Array(repeating: true, count: 5))
        #expect(out[1].timings.map(\.step) == ["luma", "detect", "select", "smooth", "rule"])
        // Smoothed: the ±2 px jitter is damped (EWMA 0.4 -> at most ±1.2 px after the first analysis).
        #expect(out.dropFirst(3).allSatisfy { abs($0.subject!.box.x - 90) <= 1.3 })
    }
}
