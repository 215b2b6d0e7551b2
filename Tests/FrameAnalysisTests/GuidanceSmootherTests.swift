import Testing

@testable import FrameAnalysis

@Suite struct GuidanceSmootherTests {
    static let ms: UInt64 = 1_000_000

    /// A raw analysis of a 320x180 frame at `t` ms.
    func raw(
        _ t: UInt64, box: Box? = Box(x: 100, y: 50, width: 40, height: 40), key: String = "thirds.move.left",
        advice: String? = nil, score: Double = 0.5, well: Bool = false, target: Point2D? = Point2D(x: 1.0 / 3, y: 1.0 / 3)
    ) -> Guidance {
        Guidance(
            pts: t * Self.ms, frameWidth: 320, frameHeight: 180,
            subject: box.map { Detection(box: $0, confidence: 1, kind: .face) }, rule: "thirds", score: score,
            wellComposed: well, target: target, advice: advice ?? key, adviceKey: key)
    }

    @Test func ewmaWithAlpha04() {
        var s = GuidanceSmoother()
        _ = s.update(raw(0, box: Box(x: 100, y: 50, width: 40, height: 40)))
        let g = s.update(raw(100, box: Box(x: 110, y: 50, width: 40, height: 40)))
        #expect(g.subject?.box == Box(x: 104, y: 50, width: 40, height: 40))  // 0.4·110 + 0.6·100
        var last = g
        for t in 2...4 { last = s.update(raw(UInt64(t) * 100, box: Box(x: 110, y: 50, width: 40, height: 40))) }
        // After 4 steps: 1 - 0.6⁴ = 87 % of the step.
        #expect(abs(last.subject!.box.x - (110 - 10 * 0.1296)) < 1e-9)
        // The direction follows the smoothed box: target (1/3, 1/3) minus its centre.
        let c = (last.subject!.box.x + 20) / 320
        #expect(abs(last.direction.dx - (1.0 / 3 - c)) < 1e-9)
    }

    @Test func jumpsAndLossRestartTheAverage() {
        var s = GuidanceSmoother()
        _ = s.update(raw(0, box: Box(x: 10, y: 10, width: 40, height: 40)))
        let jumped = s.update(raw(100, box: Box(x: 250, y: 120, width: 40, height: 40)))
        #expect(jumped.subject?.box == Box(x: 250, y: 120, width: 40, height: 40))
        _ = s.update(raw(200, box: nil))
        let back = s.update(raw(300, box: Box(x: 245, y: 120, width: 40, height: 40)))
        #expect(back.subject?.box == Box(x: 245, y: 120, width: 40, height: 40))
    }

    @Test func adviceChangesOnlyAfterThreeStableAnalyses() {
        var s = GuidanceSmoother()
        let keys = ["a", "b", "a", "b", "b", "b", "b"]
        let shown = keys.enumerated().map { s.update(raw(UInt64($0.offset) * 100, key: $0.element)).adviceKey }
        #expect(shown == ["a", "a", "a", "a", "a", "b", "b"])
    }

    @Test func flickeringAdviceNeverChanges() {
        var s = GuidanceSmoother()
        let shown = (0..<20).map { s.update(raw(UInt64($0) * 100, key: $0 % 2 == 0 ? "a" : "b")).adviceKey }
        #expect(Set(shown) == ["a"])
    }

    @Test func aScoreJumpSwitchesAtOnce() {
        var s = GuidanceSmoother()
        _ = s.update(raw(0, key: "a", score: 0.4))
        #expect(s.update(raw(100, key: "b", score: 0.55)).adviceKey == "a")  // 0.15: held
        #expect(s.update(raw(200, key: "c", score: 0.65)).adviceKey == "c")  // 0.25 > 0.2: through
    }

    @Test func sameKeyRefreshesTheText() {
        var s = GuidanceSmoother()
        _ = s.update(raw(0, key: "horizon.rotate.cw", advice: "level the camera: rotate 3.5 degrees clockwise"))
        let g = s.update(raw(100, key: "horizon.rotate.cw", advice: "level the camera: rotate 3.1 degrees clockwise"))
        #expect(g.advice == "level the camera: rotate 3.1 degrees clockwise")
    }

    @Test func heldAdviceKeepsItsTarget() {
        var s = GuidanceSmoother()
        _ = s.update(raw(0, key: "a", target: Point2D(x: 1.0 / 3, y: 1.0 / 3)))
        let g = s.update(raw(100, key: "b", target: Point2D(x: 2.0 / 3, y: 1.0 / 3)))
        #expect(g.adviceKey == "a" && g.target == Point2D(x: 1.0 / 3, y: 1.0 / 3) && g.direction.dx < 0)
    }

    @Test func locksAfterOneSecondOfStreamTime() {
        var s = GuidanceSmoother()
        var locked: [Bool] = []
        for t in stride(from: 0, through: 1200, by: 100) { locked.append(s.update(raw(UInt64(t), key: "thirds.hold", well: true)).locked) }
        // 0 ... 900 ms: not yet; 1000 ms of well-composed stream time at t = 1000.
        #expect(locked == Array(repeating: false, count: 10) + [true, true, true])
        // One frame off the rule breaks the lock and the streak starts over.
        #expect(s.update(raw(1300, key: "thirds.move.left", well: false)).locked == false)
        #expect(s.update(raw(1400, key: "thirds.hold", well: true)).locked == false)
        #expect(s.update(raw(2300, key: "thirds.hold", well: true)).locked == false)
        #expect(s.update(raw(2400, key: "thirds.hold", well: true)).locked == true)
    }

    @Test func noLockWithoutTimestampsOrWhenTimeGoesBack() {
        var s = GuidanceSmoother()
        for _ in 0..<30 {
            var g = raw(0, well: true); g.pts = nil
            #expect(s.update(g).locked == false)
        }
        s.reset()
        _ = s.update(raw(5000, well: true))
        #expect(s.update(raw(6000, well: true)).locked)
        #expect(s.update(raw(100, well: true)).locked == false)  // stream restarted
    }

    /// rule=auto switched from golden to thirds: the held advice was golden's, so it goes at once; the
    /// result never says "thirds" with golden's advice.
    @Test func adviceIsNeverHeldAcrossARuleChange() {
        var s = GuidanceSmoother()
        var golden = raw(0, key: "golden.move.up", advice: "golden: move the subject up", score: 0.6)
        golden.rule = "golden"
        _ = s.update(golden)
        var thirds = raw(100, key: "thirds.hold", advice: "thirds: hold", score: 0.62)
        thirds.rule = "thirds"
        let g = s.update(thirds)
        #expect(g.rule == "thirds" && g.advice == "thirds: hold" && g.adviceKey == "thirds.hold")
        // Within one rule the hysteresis still holds a new key back.
        let next = s.update(raw(200, key: "thirds.move.left", advice: "thirds: move left", score: 0.63))
        #expect(next.advice == "thirds: hold")
    }

    /// The measured box is the detection of this frame, whatever the smoothing did to `subject`.
    @Test func theMeasuredBoxIsTheRawDetection() {
        var s = GuidanceSmoother()
        _ = s.update(raw(0, box: Box(x: 100, y: 50, width: 40, height: 40)))
        let g = s.update(raw(100, box: Box(x: 110, y: 50, width: 40, height: 40)))
        #expect(g.subject?.box == Box(x: 104, y: 50, width: 40, height: 40))
        #expect(g.measuredBox == Box(x: 110, y: 50, width: 40, height: 40))
    }
}
