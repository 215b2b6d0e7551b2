import FrameAnalysis
import GStreamerKit
import Overlay
import StageTesting
import Testing

@testable import Stages

/// compose draws any registered rule's marks: a rule it has never heard of, registered by this test.
@Suite(.serialized) struct ComposeRuleMarksTests {
    /// A check rule (so `auto` ignores it: it always passes) with marks no built-in rule has.
    struct StarRule: CompositionRule {
        let name = "test-star"
        var role: RuleRole { .check }
        var marks: RuleMarks {
            RuleMarks(
                points: [Point2D(x: 0.125, y: 0.25), Point2D(x: 0.875, y: 0.75)],
                lines: [.vertical(x: 0.8), GuideLine(from: Point2D(x: 0, y: 1), to: Point2D(x: 1, y: 0))])
        }
        func evaluate(_ input: RuleInput) -> RuleResult {
            RuleResult(rule: name, score: 1, wellComposed: true, target: nil, direction: .zero, advice: "", adviceKey: "\(name).ok")
        }
    }

    static let info = try! VideoInfo(format: "I420", width: 320, height: 160, fpsN: 30, fpsD: 1)

    /// One black frame through compose (no analysis yet: warmup) with `grid`; its luma plane.
    func luma(rule: String, grid: String) throws -> (bytes: [UInt8], at: (Int, Int) -> Int) {
        let h = try StageHarness(
            kind: "compose", properties: [("engine", "saliency"), ("rule", rule), ("grid", grid), ("warmup", "100")],
            info: Self.info)
        let out = try #require(try h.push(count: 1).first)
        let p = try out.planeBytes(plane: 0)
        return (p.bytes, { x, y in Int(p.bytes[y * p.rowBytes + x]) })
    }

    @Test func theRegisteredRulesPointsAreDrawn() throws {
        try RuleRegistry.withRegistered([StarRule()]) {
            let (_, at) = try luma(rule: "test-star", grid: "points")
            // Crosses at (0.125, 0.25) = (40, 40) and (0.875, 0.75) = (280, 120); black elsewhere.
            #expect(at(40, 40) > 100 && at(280, 120) > 100, "\(at(40, 40)) \(at(280, 120))")
            #expect(at(160, 80) < 30 && at(40, 120) < 30 && at(280, 40) < 30)
            // Points only: the rule's line at x = 256 is not drawn.
            #expect(at(256, 80) < 30)
        }
    }

    @Test func theRegisteredRulesLinesAreDrawnWithGridAuto() throws {
        try RuleRegistry.withRegistered([StarRule()]) {
            let (bytes, at) = try luma(rule: "test-star", grid: "auto")
            // The vertical line at 0.8 * 320 = 256 runs the full height.
            let column = (0..<160).map { at(256, $0) }
            #expect(column.allSatisfy { $0 > 60 }, "\(column.prefix(8))")
            // The anti-diagonal from bottom-left to top-right passes (160, 80) and (80, 120): a 1 px
            // antialiased line there, so the brightest pixel around each point is lit.
            for (x, y) in [(160, 80), (80, 120), (240, 40)] {
                let around = (-1...1).flatMap { dx in (-1...1).map { dy in at(x + dx, y + dy) } }.max() ?? 0
                #expect(around > 45, "\(x),\(y): \(around)")
            }
            #expect(at(60, 20) < 30 && at(300, 150) < 30)  // off both lines
            #expect(bytes.count >= 320 * 160)
        }
    }

    @Test func withoutTheRuleNothingIsKnown() {
        #expect(throws: StageError.self) {
            _ = try StageHarness(kind: "compose", properties: [("rule", "test-star")], info: Self.info)
        }
    }

    /// The built-in rules draw as before: thirds points at the intersections, centre lines through the middle.
    @Test func builtInRulesStillDrawTheirMarks() throws {
        let (_, thirds) = try luma(rule: "thirds", grid: "points")
        #expect(thirds(107, 53) > 100 && thirds(213, 107) > 100 && thirds(160, 80) < 30)
        let (_, center) = try luma(rule: "center", grid: "auto")
        #expect(center(160, 5) > 60 && center(5, 80) > 60 && center(107, 53) < 30)
    }
}
