import Testing

@testable import Host

@Suite struct DurationHistogramTests {
    @Test func meanAndQuantiles() {
        var h = DurationHistogram()
        for i in 1...100 { h.record(ms: Double(i)) }
        #expect(h.count == 100)
        #expect(abs(h.mean - 50.5) < 1e-9)
        // 5 % bucket resolution.
        #expect(abs(h.quantile(0.95) - 95) / 95 < 0.06)
        #expect(abs(h.quantile(0.5) - 50) / 50 < 0.06)
    }

    @Test func emptyAndTiny() {
        var h = DurationHistogram()
        #expect(h.quantile(0.95) == 0)
        h.record(ms: 0)
        #expect(h.quantile(0.95) < 0.0011)
    }
}
