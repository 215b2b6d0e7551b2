import Testing

@testable import FrameAnalysis

@Suite struct EdgesRuleTests {
    func eval(_ b: Box) -> RuleResult { EdgesRule().evaluate(RuleInput(subject: b, frameWidth: 320, frameHeight: 180)) }

    @Test func clearSubject() {
        let r = eval(Box(x: 0.3, y: 0.2, width: 0.3, height: 0.5))
        #expect(r.wellComposed && r.score == 1 && r.adviceKey == "edges.clear" && r.direction == .zero)
    }

    @Test func smallSubjectCutAtTheLeftEdgeMovesRight() {
        let r = eval(Box(x: 0, y: 0.3, width: 0.2, height: 0.3))
        #expect(!r.wellComposed && r.score == 0 && r.details["cut"] == 1)
        #expect(r.advice == "move the subject right: it is cut at the left edge" && r.adviceKey == "edges.cut.right")
        #expect(abs(r.direction.dx - 0.05) < 1e-9 && r.direction.dy == 0)
    }

    @Test func largeSubjectCutAtTheTopStepsBack() {
        let r = eval(Box(x: 0.3, y: 0, width: 0.3, height: 0.6))
        #expect(r.advice == "step back: the subject is cut at the top edge" && r.adviceKey == "edges.step-back")
    }

    @Test func subjectFillingTheFrameZoomsOut() {
        let r = eval(Box(x: 0.05, y: 0.02, width: 0.9, height: 0.9))
        #expect(r.adviceKey == "edges.zoom-out" && r.advice.hasPrefix("step back or zoom out"))
        #expect(r.target == Point2D(x: 0.5, y: 0.5))
        // fill = 1 - (0.9 - 0.8)/0.2 = 0.5, clearance = 0.02/0.05 = 0.4 -> 0.2.
        #expect(abs(r.score - 0.2) < 1e-9)
    }

    @Test func missingHeadroom() {
        let r = eval(Box(x: 0.4, y: 0.02, width: 0.2, height: 0.4))
        #expect(r.advice == "leave headroom: move the subject down" && r.adviceKey == "edges.headroom")
        // clearance = 0.02 / 0.05.
        #expect(abs(r.score - 0.4) < 1e-9 && abs(r.direction.dy - 0.03) < 1e-9)
    }

    @Test func tooCloseToTheRightEdge() {
        let r = eval(Box(x: 0.7, y: 0.3, width: 0.27, height: 0.3))
        #expect(r.advice == "give the subject room: move it left (too close to the right edge)")
        #expect(r.adviceKey == "edges.close.left" && r.direction.dx < 0)
    }

    @Test func cornerCutMovesDiagonally() {
        let r = eval(Box(x: 0.8, y: 0.8, width: 0.2, height: 0.2))
        #expect(r.adviceKey == "edges.cut.up-left" && r.details["cut"] == 2)
    }
}
