import Testing

@testable import FrameAnalysis

@Suite struct RuleRegistryTests {
    @Test func namesAndLookup() {
        #expect(RuleRegistry.names == ["auto", "thirds", "center", "golden", "horizon", "edges", "exposure"])
        #expect(RuleRegistry.rule(named: "thirds") is ThirdsRule)
        #expect(RuleRegistry.rule(named: "auto") is AutoRule)
        #expect(RuleRegistry.rule(named: "golden")?.name == "golden")
        #expect(RuleRegistry.rule(named: "diagonal") == nil)
    }

    @Test func rolesSplitPlacementsFromChecks() {
        #expect(RuleRegistry.all.filter { $0.role == .check }.map(\.name) == ["horizon", "edges"])
        #expect(RuleRegistry.all.filter { $0.role == .note }.map(\.name) == ["exposure"])
        #expect(RuleRegistry.rule(named: "exposure") is ExposureRule)
    }
}
