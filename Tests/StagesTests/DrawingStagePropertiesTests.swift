import FrameAnalysis
import Overlay
import Testing

@testable import Stages

/// The typed property keys of compose, grid, ringlight and chromakey: what they declare and how a
/// stage reads them.
@Suite struct DrawingStagePropertiesTests {
    /// The values a stage of `kind` gets from `assignments` (defaults for the rest).
    private func values(_ kind: String, _ assignments: [(String, String)] = []) throws -> PropertyValues {
        let t = try #require(StageRegistry.type(of: kind))
        return try PropertyValues(specs: t.descriptor.properties, assignments: assignments, stage: kind)
    }

    @Test func composeDeclaresEveryPropertyOnceInOrder() {
        #expect(
            ComposeStage.descriptor.properties.map(\.name) == [
                "engine", "rule", "overlay", "grid", "analysis-width", "analysis-fps", "warmup", "min-face", "text-scale",
                "verify", "profiles", "rotations", "cnn-threads", "fallbacks", "fallback-every", "sync", "metadata-location",
            ])
        #expect(ComposeStage.fallbacks.spec.type == .choice(["staggered", "all"]) && ComposeStage.fallbacks.spec.defaultText == "staggered")
        #expect(ComposeStage.cnnThreads.spec.type == .int(1...16) && ComposeStage.cnnThreads.spec.defaultText == "1")
        #expect(ComposeStage.Engine.allCases.map(\.rawValue) == ["auto", "faces", "cnn", "bodies", "people", "saliency", "upstream"])
        #expect(ComposeStage.rule.spec.type == .choice(RuleRegistry.names))
        #expect(ComposeStage.rule.spec.defaultText == "auto")
        #expect(ComposeStage.analysisFPS.spec.defaultText == "10")
        #expect(ComposeStage.grid.spec.mutability == .playing)
    }

    @Test func composeGridWordsFollowGridLine() {
        let words = ComposeStage.GridMark.allCases.map(\.rawValue)
        #expect(Array(words.prefix(2)) == ["points", "auto"])
        #expect(Array(words.dropFirst(2)) == GridLine.allCases.map(\.rawValue))
    }

    @Test func composeReadsTypedValues() throws {
        let p = try values("compose", [("engine", "saliency"), ("rule", "golden"), ("grid", "points+thirds"), ("analysis-fps", "2.5")])
        #expect(p[ComposeStage.engine] == .saliency)
        #expect(p[ComposeStage.rule].name == "golden")
        #expect(p[ComposeStage.grid].flags == [.points, .thirds])
        #expect(p[ComposeStage.analysisFPS] == 2.5)
        #expect(p[ComposeStage.analysisWidth] == 320)
        #expect(p[ComposeStage.metadataLocation] == "")
    }

    @Test func ruleNamesAreCheckedAgainstTheRegistry() {
        #expect(ComposeStage.RuleName("thirds")?.name == "thirds")
        #expect(ComposeStage.RuleName("auto")?.name == "auto")
        #expect(ComposeStage.RuleName("spiral") == nil)
        #expect(ComposeStage.RuleName(propertyValue: .choice("fifths")) == nil)
        #expect(ComposeStage.RuleName(propertyValue: .string("thirds")) == nil)
    }

    @Test func gridLinesIncludeTheAliases() throws {
        #expect(GridStage.LineWord.allCases.map(\.rawValue) == GridLine.allCases.map(\.rawValue) + GridLine.aliases.keys.sorted())
        let p = try values("grid", [("lines", "phi+diagonals"), ("width", "3.5")])
        #expect(p[GridStage.lines].flags == [.phi, .diagonals])
        #expect(p[GridStage.width] == 3.5)
        #expect(p[GridStage.color] == RGBAColor(red8: 255, green8: 255, blue8: 255, alpha8: 0xc0))
        #expect(GridStage.color.spec.defaultText == "#ffffffc0")
    }

    @Test func ringlightPresetsKeepTheirColours() throws {
        #expect(RinglightStage.presets.map(\.name) == ["pure-white", "warm-cream", "soft-pink", "cool-blue", "golden-hour"])
        #expect(RinglightStage.presets.map(\.hex) == ["#ffffff", "#fff1d6", "#ffd1dc", "#d6e8ff", "#ffc56b"])
        #expect(RinglightStage.Preset.allCases.last == .custom)
        #expect(RinglightStage.Preset.custom.color == nil)
        let p = try values("ringlight", [("preset", "soft-pink"), ("opacity", "50")])
        #expect(p[RinglightStage.preset] == .softPink)
        #expect(p[RinglightStage.opacity] == 50)
        let stage = try RinglightStage(name: "r", properties: p)
        #expect(stage.borderColor == RGBAColor(red8: 0xff, green8: 0xd1, blue8: 0xdc).withAlpha(0.5))
    }

    @Test func chromakeyReadsChoicesAsEnums() throws {
        let p = try values("chromakey", [("pick", "auto"), ("mode", "matte"), ("similarity", "45")])
        #expect(p[ChromaKeyStage.pick] == .auto)
        #expect(p[ChromaKeyStage.mode] == .matte)
        #expect(p[ChromaKeyStage.similarity] == 45 && p[ChromaKeyStage.smoothness] == 16 && p[ChromaKeyStage.edges])
        #expect(p[ChromaKeyStage.color] == RGBAColor(red: 0, green: 1, blue: 0))
        #expect(ChromaKeyStage.Pick.allCases.map(\.rawValue) == ["none", "auto", "point"])
    }

    @Test func updatesOfTheWrongTypeKeepEachStagesWording() throws {
        let ring = try RinglightStage(name: "r", properties: try values("ringlight"))
        #expect(throws: StageError(.usage, "ringlight: cannot set 'width' to 'true'")) { try ring.update("width", value: .bool(true)) }
        let key = try ChromaKeyStage(name: "k", properties: try values("chromakey"))
        #expect(throws: StageError(.usage, "k: cannot set 'mode' to '3'")) { try key.update("mode", value: .int(3)) }
        #expect(throws: StageError(.usage, "k: cannot set 'mode' to 'sideways'")) { try key.update("mode", value: .choice("sideways")) }
    }
}
