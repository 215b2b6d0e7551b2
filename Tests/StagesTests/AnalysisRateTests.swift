import Testing

@testable import Stages

/// compose's analyses per second: a window of stream time, so a stalled analysis thread reads as a falling rate.
@Suite struct AnalysisRateTests {
    static let second: UInt64 = 1_000_000_000

    @Test func tenAnalysesASecondReadAsTen() {
        var r = AnalysisRate()
        // Published at 0.1 s, 0.2 s, ... 10 s.
        for i in 1...100 { r.record(at: UInt64(i) * Self.second / 10) }
        #expect(r.perSecond(now: 10 * Self.second, since: 0) == 10)
        // Only the last 5 s are kept.
        #expect(r.times.count == 51 && r.times.first == 5 * Self.second)
    }

    @Test func theWindowIsShorterEarlyOn() {
        var r = AnalysisRate()
        for i in 1...4 { r.record(at: 2 * Self.second + UInt64(i) * Self.second / 4) }
        // 1 s after the first frame (at 2 s): 4 analyses in that second.
        #expect(r.perSecond(now: 3 * Self.second, since: 2 * Self.second) == 4)
        #expect(r.perSecond(now: 2 * Self.second, since: 2 * Self.second) == 0)
    }

    @Test func aStalledAnalysisFallsToZero() {
        var r = AnalysisRate()
        for i in 1...50 { r.record(at: UInt64(i) * Self.second / 10) }
        #expect(r.perSecond(now: 5 * Self.second, since: 0) == 10)
        // Frames go on, no analysis comes out: half the window, then none of it.
        #expect(r.perSecond(now: 15 * Self.second / 2, since: 0) == 5)
        #expect(r.perSecond(now: 11 * Self.second, since: 0) == 0)
    }

    @Test func memoryIsBounded() {
        var r = AnalysisRate()
        // 2000 analyses within one millisecond of stream time: all in the window, only the newest kept.
        for i in 0..<2000 { r.record(at: Self.second + UInt64(i)) }
        #expect(r.times.count == AnalysisRate.limit && r.times.last == Self.second + 1999)
    }
}
