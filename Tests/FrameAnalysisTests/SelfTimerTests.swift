import Testing

@testable import FrameAnalysis

@Suite("SelfTimer")
struct SelfTimerTests {
    @Test func countsDownWholeSecondsAndFiresOnceAtTheDeadline() {
        var t = SelfTimer()
        #expect(t.remaining(at: 0) == nil)
        t.arm(at: 1_000_000_000, seconds: 3)
        #expect(t.deadline == 4_000_000_000)
        #expect(t.remaining(at: 1_000_000_000) == 3)
        #expect(t.remaining(at: 2_000_000_001) == 2)
        #expect(t.remaining(at: 3_500_000_000) == 1)
        do { let f = t.fires(at: 3_998_999_999); #expect(!f) }
        do { let f = t.fires(at: 3_999_999_960); #expect(f) }  // frame 120 at 30 fps
        do { let f = t.fires(at: 4_066_666_666); #expect(!f) }
        #expect(t.remaining(at: 5_000_000_000) == nil)
    }

    @Test func rearmingRestartsAndCancelDisarms() {
        var t = SelfTimer()
        t.arm(at: 0, seconds: 10); t.arm(at: 2_000_000_000, seconds: 5)
        #expect(t.deadline == 7_000_000_000)
        t.cancel()
        do { let f = t.fires(at: 8_000_000_000); #expect(!f) }
    }
}
