import Overlay
import Stages
import Testing

@Suite struct StageRegistryTests {
    @Test func allKindsAreListedOnce() {
        let kinds = StageRegistry.all.map { $0.descriptor.kind }
        #expect(kinds == ["grid", "compose", "capture", "snapshot", "ringlight", "chromakey", "reframe", "redact", "passthrough"])
        #expect(Set(kinds).count == kinds.count)
    }

    @Test func typeOfFindsEachKind() {
        #expect(StageRegistry.type(of: "grid") == GridStage.self)
        #expect(StageRegistry.type(of: "snapshot") == SnapshotStage.self)
        #expect(StageRegistry.type(of: "passthrough") == PassthroughStage.self)
        #expect(StageRegistry.type(of: "Grid") == nil)
        #expect(StageRegistry.type(of: "blur") == nil)
    }

    @Test func everyDefaultIsValid() throws {
        for t in StageRegistry.all {
            let d = t.descriptor
            for p in d.properties {
                _ = try p.parse(p.defaultText, stage: d.kind)
            }
            _ = try StageRegistry.make(kind: d.kind, name: "\(d.kind)0", assignments: [])
        }
    }

    @Test func makeBuildsTheKindWithItsProperties() throws {
        let stage = try StageRegistry.make(kind: "grid", name: "g", assignments: [("lines", "golden+diagonals"), ("width", "3")])
        let grid = try #require(stage as? GridStage)
        #expect(grid.style.lines == [.golden, .diagonals])
        #expect(grid.style.width == 3)
        #expect(try StageRegistry.make(kind: "passthrough", name: "p", assignments: []) is PassthroughStage)
    }

    @Test func unknownKindListsTheKinds() {
        #expect(
            throws: StageError(
                .usage, "unknown stage 'blur'; stages are: grid, compose, capture, snapshot, ringlight, chromakey, reframe, redact, passthrough")
        ) {
            _ = try StageRegistry.make(kind: "blur", name: "blur0", assignments: [])
        }
    }

    @Test func badPropertiesNameTheInstance() {
        #expect(throws: StageError(.usage, "cam: no property 'rate'; properties are: interval, at, manual, max-shots, location, quality")) {
            _ = try StageRegistry.make(kind: "snapshot", name: "cam", assignments: [("rate", "1")])
        }
        #expect(
            throws: StageError(
                .usage, "g: bad value 'fifths' for property 'lines': expected flags " + GridStage.descriptor.properties[0].type.rangeText)
        ) {
            _ = try StageRegistry.make(kind: "grid", name: "g", assignments: [("lines", "thirds+fifths")])
        }
    }

    @Test func gridAcceptsEveryLineAndAlias() throws {
        for word in GridLine.allCases.map(\.rawValue) + GridLine.aliases.keys.sorted() {
            let grid = try #require(try StageRegistry.make(kind: "grid", name: "g", assignments: [("lines", word)]) as? GridStage)
            #expect(grid.style.lines == [try GridLine.parse(word)], "\(word)")
        }
    }
}
