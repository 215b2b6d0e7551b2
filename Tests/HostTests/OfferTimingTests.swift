import Testing

@testable import Host

/// The preview tap's offer timing: quarter-octave buckets, mean, quantiles, differences of readings.
@Suite struct OfferTimingTests {
    @Test func bucketsAreQuarterOctaves() {
        for ns: UInt64 in [0, 1, 3, 4, 5, 7, 8, 100, 999, 1_000_000, 123_456_789, UInt64.max] {
            let i = OfferTiming.bucket(ns)
            #expect(i < OfferTiming.bucketCount)
            // The value is below its bucket's upper edge and at least the previous bucket's.
            #expect(Double(ns) < OfferTiming.upperEdge(i) || ns == UInt64.max)
            if ns >= 8 { #expect(Double(ns) >= OfferTiming.upperEdge(i - 1)) }
        }
        #expect(OfferTiming.bucket(4) == 8)
        #expect(OfferTiming.upperEdge(8) == 5)
        // ~19 % resolution at 1 ms.
        let i = OfferTiming.bucket(1_000_000)
        #expect(OfferTiming.upperEdge(i) / OfferTiming.upperEdge(i - 1) < 1.26)
    }

    @Test func meanAndQuantilesOfAWindow() {
        let t = OfferTiming()
        for _ in 0..<10 { t.record(ns: 50) }
        let before = t.figures
        #expect(before.calls == 10)
        for _ in 0..<95 { t.record(ns: 40) }
        for _ in 0..<5 { t.record(ns: 2_000_000) }
        let window = t.figures.since(before)
        #expect(window.calls == 100)
        #expect(window.nanoseconds == 95 * 40 + 5 * 2_000_000)
        #expect(abs(window.meanMs - 0.100038) < 1e-9)
        // 95 of 100 took 40 ns: p95 is their bucket's edge (40 <= edge < 48); p99 the slow ones'.
        #expect(window.quantileMs(0.95) >= 40e-6 && window.quantileMs(0.95) <= 48e-6)
        #expect(window.quantileMs(0.99) >= 2.0 && window.quantileMs(0.99) < 2.4)
        let both = before + window
        #expect(both == t.figures)
        #expect(OfferTiming.Figures.zero.quantileMs(0.95) == 0)
        #expect(OfferTiming.Figures.zero.meanMs == 0)
    }
}
