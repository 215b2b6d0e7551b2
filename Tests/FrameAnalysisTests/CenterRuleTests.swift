import Testing

@testable import FrameAnalysis

@Suite struct CenterRuleTests {
    /// Random texture on the left half, its mirror image on the right half.
    static func symmetricLuma() -> GrayImage {
        var g = CompositionTestFrames.texture(width: 320, height: 180, seed: 3)
        for y in 0..<180 { for x in 0..<160 { g[319 - x, y] = g[x, y] } }
        return g
    }

    @Test func symmetryOfMirroredAndUnrelatedHalves() {
        #expect(CenterRule.symmetry(Self.symmetricLuma()) > 0.999)
        // Independent noise on each side: correlation near 0.
        #expect(CenterRule.symmetry(CompositionTestFrames.texture(width: 320, height: 180, seed: 5)) < 0.1)
        // A left-to-right ramp is anti-symmetric: clamped to 0.
        var ramp = GrayImage(width: 200, height: 50)
        for y in 0..<50 { for x in 0..<200 { ramp[x, y] = UInt8(x) } }
        #expect(CenterRule.symmetry(ramp) == 0)
        #expect(CenterRule.symmetry(GrayImage(width: 64, height: 32, value: 90)) == 1)
    }

    @Test func centredSubjectOnSymmetricFrameScoresFull() {
        let r = CenterRule().evaluate(
            RuleInput(subject: subject(at: 0.5, 0.5), frameWidth: 320, frameHeight: 180, luma: Self.symmetricLuma()))
        #expect(r.score > 0.99 && r.wellComposed)
        #expect(r.adviceKey == "center.hold")
        #expect(r.details["symmetry"]! > 0.99)
    }

    @Test func asymmetricFrameLosesTheSymmetryShare() {
        let asym = CompositionTestFrames.texture(width: 320, height: 180, seed: 5)
        let r = CenterRule().evaluate(RuleInput(subject: subject(at: 0.5, 0.5), frameWidth: 320, frameHeight: 180, luma: asym))
        // score = 0.7 · 1 + 0.3 · symmetry, symmetry ≈ 0.
        #expect(r.score >= 0.7 && r.score < 0.73)
        #expect(r.wellComposed)  // placement decides wellComposed; symmetry only scores
        let sym = CenterRule().evaluate(
            RuleInput(subject: subject(at: 0.5, 0.5), frameWidth: 320, frameHeight: 180, luma: Self.symmetricLuma()))
        #expect(sym.score - r.score > 0.25)
    }

    @Test func positionScoreAndToleranceWithoutLuma() {
        let near = CenterRule().evaluate(RuleInput(subject: subject(at: 0.6, 0.6), frameWidth: 320, frameHeight: 180))
        // d = 0.1414 < 0.15; score = 1 - d/√0.5 = 0.8.
        #expect(near.wellComposed && abs(near.score - 0.8) < 1e-9 && near.details["symmetry"] == -1)
        let far = CenterRule().evaluate(RuleInput(subject: subject(at: 0.8, 0.3), frameWidth: 320, frameHeight: 180))
        #expect(!far.wellComposed && far.advice == "move the subject down and left")
        #expect(far.target == Point2D(x: 0.5, y: 0.5))
        let corner = CenterRule().evaluate(RuleInput(subject: subject(at: 0.0, 1.0), frameWidth: 320, frameHeight: 180))
        #expect(corner.score == 0)
    }
}
