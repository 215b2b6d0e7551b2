import Testing

@testable import FrameAnalysis

@Suite struct RedactionPlanTests {
    func track(_ id: Int, _ b: Box, seen: Double, velocity: Vector2D = .zero) -> ObjectTracker.Track {
        ObjectTracker.Track(id: id, kind: .face, box: b, velocity: velocity, lastSeen: seen, firstSeen: 0, hits: 3)
    }

    @Test func aFreshTrackIsCoveredWithItsMarginClippedToTheFrame() {
        let plan = RedactionPlan(margin: 0.25, growth: 0.5)
        let t = track(1, Box(x: 100, y: 50, width: 80, height: 100), seen: 1.0)
        let (cover, behind) = plan.cover([t], at: 1.0, newestAnalysis: 1.0, width: 1280, height: 720)
        #expect(!behind)
        #expect(cover == .boxes([Box(x: 80, y: 25, width: 120, height: 150)]))
        // Over the edge: clipped.
        let edge = track(2, Box(x: -20, y: 680, width: 80, height: 80), seen: 1.0)
        #expect(plan.cover([edge], at: 1.0, newestAnalysis: 1.0, width: 1280, height: 720).cover == .boxes([Box(x: 0, y: 660, width: 80, height: 60)]))
    }

    @Test func coverGrowsWithAgeAndSpansWhereItWasAndWhereItWent() {
        let plan = RedactionPlan(margin: 0.25, growth: 0.5)
        let seen = track(1, Box(x: 100, y: 100, width: 100, height: 100), seen: 1.0)
        var moved = seen
        moved.box.x += 60  // 0.2 s at 300 px/s
        let (cover, _) = plan.cover([moved], last: [seen], at: 1.2, newestAnalysis: 1.1, width: 1280, height: 720)
        // Margin 0.25 + 0.5 x 0.2 s = 0.35 of 100 px a side: 65...295 wide (both places), 65...235 high.
        #expect(cover == .boxes([Box(x: 65, y: 65, width: 230, height: 170)]))
    }

    @Test func aDetectorBehindOrNotStartedCoversTheWholeFrameUnlessToldToGrow() {
        let t = track(1, Box(x: 100, y: 100, width: 100, height: 100), seen: 1.0)
        let frame = RedactionPlan(maxDelay: 0.5, starved: .frame), grow = RedactionPlan(maxDelay: 0.5, starved: .grow)
        #expect(frame.cover([t], at: 0.1, newestAnalysis: nil, width: 640, height: 360) == (.frame, true))
        #expect(grow.cover([t], at: 0.1, newestAnalysis: nil, width: 640, height: 360) == (.frame, true))
        #expect(frame.cover([t], at: 1.7, newestAnalysis: 1.1, width: 640, height: 360) == (.frame, true))
        let grown = grow.cover([t], at: 1.7, newestAnalysis: 1.1, width: 640, height: 360)
        #expect(grown.behind && grown.cover == .boxes([Box(x: 40, y: 40, width: 220, height: 220)]))
        // Fresh again: boxes.
        #expect(frame.cover([t], at: 1.7, newestAnalysis: 1.5, width: 640, height: 360).behind == false)
    }
}
