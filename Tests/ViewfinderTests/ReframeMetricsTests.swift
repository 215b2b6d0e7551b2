import FrameAnalysis
import Testing
import ViewfinderBench

/// `bench reframe`'s measures alone (pure: known paths and boxes, no video, no timing).
@Suite struct ReframeMetricsTests {
    func window(_ cx: Double, _ cy: Double = 360, width: Double = 405) -> CropWindow { CropWindow(cx: cx, cy: cy, width: width, aspect: 9.0 / 16) }

    @Test func jitterIsTheMeanSecondDifferenceInOutputPixels() {
        // A constant speed has no second difference; x = n² has 2 per frame² (input px), scaled by 1080 / 405.
        let still = (0..<10).map { window(300 + 3 * Double($0)) }
        #expect(ReframeMetrics.jitter(still, cuts: []) < 1e-9)
        let accelerating = (0..<10).map { window(300 + Double($0 * $0)) }
        #expect(abs(ReframeMetrics.jitter(accelerating, cuts: []) - 2 * 1080 / 405) < 1e-9)
        // A cut (frame 5 jumps by 200) is left out: the steps into and out of it do not count.
        var cut = still
        for i in 5..<10 { cut[i].cx += 200 }
        #expect(ReframeMetrics.jitter(cut, cuts: [5]) < 1e-9)
        #expect(ReframeMetrics.jitter(cut, cuts: []) > 100)
        // Both axes: a 3-4 corner in the path is a second difference of 5.
        let corner = [window(100, 100), window(100, 100), window(103, 104)]
        #expect(abs(ReframeMetrics.jitter(corner, cuts: [], outputWidth: 405) - 5) < 1e-9)
    }

    @Test func requiredFacesAreTheMostThatFitTogether() {
        // Three faces within 405 px and a fourth far right: the three; all four would need 900 px.
        let faces = [
            Box(x: 10, y: 300, width: 80, height: 100), Box(x: 150, y: 280, width: 80, height: 100), Box(x: 300, y: 300, width: 90, height: 110),
            Box(x: 820, y: 300, width: 80, height: 100),
        ]
        #expect(ReframeMetrics.required(faces, width: 405, height: 720) == Array(faces.prefix(3)))
        #expect(ReframeMetrics.required(faces, width: 1000, height: 720) == faces)
        // Equal counts: the larger faces win.
        let two = [Box(x: 0, y: 0, width: 50, height: 50), Box(x: 600, y: 0, width: 90, height: 90)]
        #expect(ReframeMetrics.required(two, width: 405, height: 720) == [two[1]])
    }

    @Test func aSetThatFitsOnlyWithinTheBoxesErrorIsNotRequired() {
        // Three 150 px faces spanning 403 px of a 405 px window: 2 px to spare, less than the boxes' error (4 % of
        // 150 px, 6 px, each side). Bare, all three; with the error, the two larger that fit with room.
        let row = [Box(x: 0, y: 300, width: 150, height: 180), Box(x: 126, y: 300, width: 150, height: 180), Box(x: 253, y: 300, width: 150, height: 170)]
        #expect(ReframeMetrics.required(row, width: 405, height: 720, margin: 0) == row)
        #expect(ReframeMetrics.required(row, width: 405, height: 720) == Array(row.prefix(2)))
        // One face has no neighbour to leave room for: a 400 px close-up in a 405 px window is required.
        let closeUp = Box(x: 100, y: 100, width: 400, height: 480)
        #expect(ReframeMetrics.required([closeUp], width: 405, height: 720) == [closeUp])
    }

    @Test func facesInsideAndCutOnKnownBoxes() {
        let w = window(300)  // x 97.5 ... 502.5
        let inside = Box(x: 150, y: 300, width: 80, height: 100), straddling = Box(x: 470, y: 300, width: 80, height: 100)
        let outside = Box(x: 600, y: 300, width: 80, height: 100)
        #expect(ReframeMetrics.allInside([inside], w))
        #expect(!ReframeMetrics.allInside([inside, straddling], w))
        #expect(ReframeMetrics.noneCut([inside, outside], w))
        #expect(!ReframeMetrics.noneCut([inside, straddling], w))
    }

    @Test func placementJudgesTheSubjectInTheWindowByTheRule() throws {
        let thirds = try #require(ReframeMetrics.rule(named: "thirds", group: false))
        let center = try #require(ReframeMetrics.rule(named: "auto", group: true))
        #expect(center.name == "center")
        let w = window(300)
        // A 60 px face centred on the window's upper-left thirds point (x 232.5, y 240): placed by thirds, not centred.
        let face = Box(x: 202.5, y: 210, width: 60, height: 60)
        #expect(ReframeMetrics.placed([face], in: w, rule: thirds))
        #expect(!ReframeMetrics.placed([face], in: w, rule: center))
        // Two faces about the centre: centred as a group.
        let pair = [Box(x: 200, y: 330, width: 60, height: 60), Box(x: 340, y: 330, width: 60, height: 60)]
        #expect(ReframeMetrics.placed(pair, in: w, rule: center))
    }

    @Test func aSingleFaceIsJudgedAsAFaceByPortrait() throws {
        let portrait = try #require(ReframeMetrics.rule(named: "auto", group: false))
        #expect(portrait.name == "portrait")
        // A 720-high window (x 97.5...502.5): a 100 px face whose estimated eye line (40 % down) sits on the upper
        // third (y 240) in the middle; the same face 150 px lower is not placed.
        let w = window(300)
        let face = Box(x: 250, y: 200, width: 100, height: 100)
        #expect(ReframeMetrics.placed([face], in: w, rule: portrait))
        #expect(!ReframeMetrics.placed([Box(x: 250, y: 350, width: 100, height: 100)], in: w, rule: portrait))
    }

    @Test func placementIsExcusedOnlyWhereTheFrameOrTheFacesStopTheMove() throws {
        let center = try #require(ReframeMetrics.rule(named: "auto", group: true))
        // A full-height window of a 1280x720 frame cannot move up or down: a pair high in it, centred across, is as well
        // placed as it can be; without the frame size it is judged by the rule alone (off centre).
        let w = window(640)  // x 437.5 ... 842.5
        let high = [Box(x: 520, y: 60, width: 70, height: 80), Box(x: 690, y: 60, width: 70, height: 80)]
        #expect(!ReframeMetrics.placed(high, in: w, rule: center))
        #expect(ReframeMetrics.placed(high, in: w, rule: center, frameWidth: 1280, frameHeight: 720))
        // The same pair 100 px left of centre: the window could move left, so not placed.
        let left = high.map { Box(x: $0.x - 100, y: $0.y, width: $0.width, height: $0.height) }
        #expect(!ReframeMetrics.placed(left, in: w, rule: center, frameWidth: 1280, frameHeight: 720))
        // Against the frame's left edge with the pair left of centre: it cannot move farther; placed.
        let edge = window(202.5)  // x 0 ... 405
        let atEdge = [Box(x: 20, y: 320, width: 70, height: 80), Box(x: 160, y: 320, width: 70, height: 80)]
        #expect(ReframeMetrics.placed(atEdge, in: edge, rule: center, frameWidth: 1280, frameHeight: 720))
    }

    @Test func placementJudgesTheRunTheWindowHolds() {
        // Required: the two left faces (the metric's pick); the window holds the two right ones: those are judged.
        let faces = [
            Box(x: 10, y: 300, width: 80, height: 100), Box(x: 150, y: 300, width: 80, height: 100),
            Box(x: 700, y: 300, width: 80, height: 100), Box(x: 850, y: 300, width: 80, height: 100),
        ]
        let required = Array(faces.prefix(2))
        #expect(ReframeMetrics.framed(required, of: faces, window(815)) == Array(faces.suffix(2)))
        // Holding fewer than required: the required faces are judged (and the frame counts as missed elsewhere).
        #expect(ReframeMetrics.framed(required, of: faces, window(400)) == required)
    }

    @Test func steadyFramesNeedTheTruthStillForTheHold() {
        let a = [Box(x: 0, y: 0, width: 10, height: 10)], b = [Box(x: 50, y: 0, width: 10, height: 10)]
        let truth: [[Box]?] = Array(repeating: a, count: 5) + Array(repeating: b, count: 5)
        let steady = ReframeMetrics.steady(truth, hold: 3)
        #expect(steady == [false, false, false, true, true, false, false, false, true, true])
    }
}
