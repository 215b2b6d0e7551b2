import Testing

@testable import FrameAnalysis

@Suite struct GoldenRuleTests {
    func eval(_ x: Double, _ y: Double) -> RuleResult {
        GoldenRule().evaluate(RuleInput(subject: subject(at: x, y), frameWidth: 320, frameHeight: 180))
    }

    @Test func targetsArePhiGridAndSpiralEyes() {
        #expect(GoldenRule.phiPoints.contains { abs($0.x - 0.381966) < 1e-6 && abs($0.y - 0.618034) < 1e-6 })
        #expect(GoldenRule.spiralEyes.contains { abs($0.x - 0.723607) < 1e-6 && abs($0.y - 0.276393) < 1e-6 })
        #expect(GoldenRule.targets.points.count == 8)
        // Farthest place from every target: a corner, 0.2764·√2 away.
        #expect(abs(GoldenRule.targets.farthest - 0.276393 * 2.0.squareRoot()) < 1e-5)
    }

    @Test func onAPhiPointAndOnTheEye() {
        let phi = eval(0.381966, 0.618034)
        #expect(phi.score > 0.99 && phi.wellComposed && phi.details["spiralEye"] == 0)
        let eye = eval(0.7236, 0.7236)
        #expect(eye.score > 0.99 && eye.wellComposed && eye.details["spiralEye"] == 1)
        #expect(eye.advice.contains("spiral"))
    }

    @Test func centreAndCornerAreNotGolden() {
        let centre = eval(0.5, 0.5)
        // Nearest: a phi point at 0.118·√2 = 0.167.
        #expect(!centre.wellComposed && abs(centre.details["distance"]! - 0.118034 * 2.0.squareRoot()) < 1e-5)
        #expect(eval(0.02, 0.98).score <= 0.1)
    }

    @Test func adviceMovesTowardsTheNearestTarget() {
        // From (0.62, 0.80): the eye (0.724, 0.724) is 0.129 away, the phi point (0.618, 0.618) 0.182;
        // the eye lies 36° above the rightward axis -> up and right.
        let r = eval(0.62, 0.80)
        let t = try! #require(r.target)
        #expect(abs(t.x - 0.7236) < 1e-3 && abs(t.y - 0.7236) < 1e-3)
        #expect(r.advice == "move the subject up and right" && !r.wellComposed)
        let s = eval(0.1, 0.1)
        #expect(s.advice == "move the subject down and right")
    }
}
