import FrameAnalysis
import Testing

/// The marks each rule shows, and rules registered for a scope.
@Suite struct RuleMarksTests {
    @Test func thirdsMarksItsIntersectionsAndLines() {
        let m = ThirdsRule().marks
        #expect(m.points == ThirdsRule.targets.points)
        #expect(m.points.count == 4)
        let third: Double = 1.0 / 3, twoThirds: Double = 2.0 / 3
        let expected: [GuideLine] = [.vertical(x: third), .vertical(x: twoThirds), .horizontal(y: third), .horizontal(y: twoThirds)]
        #expect(m.lines == expected)
    }

    @Test func goldenMarksThePhiGrid() {
        let m = GoldenRule().marks
        #expect(m.points == GoldenRule.phiPoints)
        let small: Double = 1 / (GoldenRule.phi * GoldenRule.phi)
        #expect(abs(small - 0.381966) < 1e-6)
        let large: Double = 1 - small
        let expected: [GuideLine] = [.vertical(x: small), .vertical(x: large), .horizontal(y: small), .horizontal(y: large)]
        #expect(m.lines == expected)
    }

    @Test func centerMarksTheCentreCross() {
        let m = CenterRule().marks
        #expect(m.points == [Point2D(x: 0.5, y: 0.5)])
        let vertical = GuideLine(from: Point2D(x: 0.5, y: 0), to: Point2D(x: 0.5, y: 1))
        let horizontal = GuideLine(from: Point2D(x: 0, y: 0.5), to: Point2D(x: 1, y: 0.5))
        #expect(m.lines == [vertical, horizontal])
    }

    @Test func checksAndAutoHaveNoFixedMarks() {
        #expect(HorizonRule().marks == .none)
        #expect(EdgesRule().marks == .none)
        #expect(AutoRule().marks == .none)
    }

    struct CornerRule: CompositionRule {
        let name = "test-corner"
        var role: RuleRole { .check }
        var marks: RuleMarks { RuleMarks(points: [Point2D(x: 0.1, y: 0.1)]) }
        func evaluate(_ input: RuleInput) -> RuleResult {
            RuleResult(rule: name, score: 1, wellComposed: true, target: nil, direction: .zero, advice: "", adviceKey: "\(name).ok")
        }
    }

    @Test func aRuleRegisteredForAScopeIsListedOnlyThere() {
        RuleRegistry.withRegistered([CornerRule()]) {
            #expect(RuleRegistry.names == ["auto", "thirds", "center", "golden", "portrait", "lines", "horizon", "edges", "exposure", "test-corner"])
            #expect(RuleRegistry.rule(named: "test-corner")?.marks.points == [Point2D(x: 0.1, y: 0.1)])
            #expect(AutoRule().checks.map(\.name) == ["horizon", "edges", "test-corner"])
        }
        #expect(RuleRegistry.rule(named: "test-corner") == nil)
        #expect(RuleRegistry.names == ["auto", "thirds", "center", "golden", "portrait", "lines", "horizon", "edges", "exposure"])
    }
}
