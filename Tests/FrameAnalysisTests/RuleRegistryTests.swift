import Testing

@testable import FrameAnalysis

@Suite struct RuleRegistryTests {
    @Test func namesAndLookup() {
        #expect(RuleRegistry.names == ["auto", "thirds", "center", "golden", "portrait", "lines", "horizon", "edges", "exposure"])
        #expect(RuleRegistry.rule(named: "thirds") is ThirdsRule)
        #expect(RuleRegistry.rule(named: "auto") is AutoRule)
        #expect(RuleRegistry.rule(named: "golden")?.name == "golden")
        #expect(RuleRegistry.rule(named: "diagonal") == nil)
        #expect(RuleRegistry.rule(named: "portrait") is PortraitRule && RuleRegistry.rule(named: "lines") is LinesRule)
        #expect(RuleRegistry.all.filter { $0.role == .placement }.map(\.name) == ["thirds", "center", "golden", "portrait", "lines"])
    }

    @Test func rolesSplitPlacementsFromChecks() {
        #expect(RuleRegistry.all.filter { $0.role == .check }.map(\.name) == ["horizon", "edges"])
        #expect(RuleRegistry.all.filter { $0.role == .note }.map(\.name) == ["exposure"])
        #expect(RuleRegistry.rule(named: "exposure") is ExposureRule)
    }
}
