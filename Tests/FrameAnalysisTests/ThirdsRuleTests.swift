import Testing

@testable import FrameAnalysis

/// A 0.1 x 0.1 subject box centred on (x, y), normalised.
func subject(at x: Double, _ y: Double, size: Double = 0.1) -> Box {
    Box(x: x - size / 2, y: y - size / 2, width: size, height: size)
}

@Suite struct ThirdsRuleTests {
    let rule = ThirdsRule()
    func eval(_ x: Double, _ y: Double) -> RuleResult {
        rule.evaluate(RuleInput(subject: subject(at: x, y), frameWidth: 320, frameHeight: 180))
    }

    @Test func subjectOnAThirdsPointScoresHighAndIsWellComposed() {
        let points: [(Double, Double)] = [(1.0 / 3, 1.0 / 3), (2.0 / 3, 1.0 / 3), (1.0 / 3, 2.0 / 3), (2.0 / 3, 2.0 / 3)]
        for (x, y) in points {
            let r = eval(x, y)
            #expect(r.score >= 0.9 && r.wellComposed)
            #expect(r.target == Point2D(x: x, y: y))
            #expect(r.adviceKey == "thirds.hold" && r.advice.hasPrefix("hold"))
        }
        // Off by (0.0167, -0.0133): score = 1 - d / (√2/3).
        let d = Point2D(x: 0.35, y: 0.32).distance(to: Point2D(x: 1.0 / 3, y: 1.0 / 3))
        #expect(abs(eval(0.35, 0.32).score - (1 - d * 3 / 2.0.squareRoot())) < 1e-9)
    }

    @Test func subjectInACornerScoresLow() {
        let corners: [(Double, Double)] = [(0.05, 0.05), (0.95, 0.05), (0.05, 0.95), (0.95, 0.95)]
        for (x, y) in corners {
            let r = eval(x, y)
            #expect(r.score <= 0.3 && !r.wellComposed, "corner \(x),\(y): \(r.score)")
        }
        #expect(eval(0.0, 0.0).score < 1e-9)  // the farthest place: score 0
    }

    @Test func scoreFormulaAtTheCentre() {
        // d = √2/6 from (0.5, 0.5) to every intersection: score = 1 - (√2/6)/(√2/3) = 0.5.
        let r = eval(0.5, 0.5)
        #expect(abs(r.score - 0.5) < 1e-9)
        #expect(abs(r.details["distance"]! - 2.0.squareRoot() / 6) < 1e-9)
        #expect(abs(ThirdsRule.targets.farthest - 2.0.squareRoot() / 3) < 1e-9)
    }

    @Test func wellComposedBelow0Point12() {
        #expect(eval(1.0 / 3 + 0.11, 1.0 / 3).wellComposed)
        #expect(!eval(1.0 / 3 + 0.13, 1.0 / 3).wellComposed)
    }

    /// The subject sits 0.15 (0.12 per axis on diagonals) from (1/3, 1/3), which stays the nearest
    /// intersection; the advice must point from the subject to it.
    @Test(arguments: [
        (0.15, 0.0, "move the subject left", "thirds.move.left"),
        (-0.15, 0.0, "move the subject right", "thirds.move.right"),
        (0.0, 0.15, "move the subject up", "thirds.move.up"),
        (0.0, -0.15, "move the subject down", "thirds.move.down"),
        (0.12, 0.12, "move the subject up and left", "thirds.move.up-left"),
        (-0.12, 0.12, "move the subject up and right", "thirds.move.up-right"),
        (0.12, -0.12, "move the subject down and left", "thirds.move.down-left"),
        (-0.12, -0.12, "move the subject down and right", "thirds.move.down-right"),
    ])
    func adviceInAllEightDirections(ox: Double, oy: Double, advice: String, key: String) {
        let r = eval(1.0 / 3 + ox, 1.0 / 3 + oy)
        #expect(r.target == Point2D(x: 1.0 / 3, y: 1.0 / 3))
        #expect(r.advice == advice && r.adviceKey == key)
        #expect(abs(r.direction.dx + ox) < 1e-9 && abs(r.direction.dy + oy) < 1e-9)
        #expect(!r.wellComposed)
    }

    @Test func noSubject() {
        let r = rule.evaluate(RuleInput(subject: nil, frameWidth: 320, frameHeight: 180))
        #expect(r.score == 0 && !r.wellComposed && r.target == nil && r.adviceKey == "thirds.no-subject")
    }
}
