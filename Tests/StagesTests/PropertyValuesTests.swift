import Overlay
import Stages
import Testing

@Suite struct PropertyValuesTests {
    @Test func defaultsAreFilledIn() throws {
        let v = try PropertyValues(specs: GridStage.descriptor.properties, assignments: [], stage: "grid0")
        #expect(v["lines"] == .set(["thirds"]))
        #expect(v["color"] == .color(RGBAColor(red8: 255, green8: 255, blue8: 255, alpha8: 0xc0)))
        #expect(v["width"] == .double(2))
        #expect(v.set("lines") == ["thirds"])
        #expect(v.double("width") == 2)
        #expect(v.specs.map(\.name) == ["lines", "color", "width"])
    }

    @Test func snapshotDefaultsThroughTypedAccessors() throws {
        let v = try PropertyValues(specs: SnapshotStage.descriptor.properties, assignments: [], stage: "snap")
        #expect(v.double("interval") == 0)
        #expect(v.intList("at") == [])
        #expect(v.bool("manual") == true)
        #expect(v.int("max-shots") == 0)
        #expect(v.string("location") == "snapshot-%05d.jpg")
        #expect(v.int("quality") == 90)
    }

    @Test func assignmentsOverrideDefaultsAndTheLastWins() throws {
        let v = try PropertyValues(
            specs: SnapshotStage.descriptor.properties,
            assignments: [("interval", "2.5"), ("at", "30,0"), ("manual", "no"), ("quality", "50"), ("quality", "75")],
            stage: "snap")
        #expect(v.double("interval") == 2.5)
        #expect(v.intList("at") == [0, 30])
        #expect(v.bool("manual") == false)
        #expect(v.int("quality") == 75)
        #expect(v.int("max-shots") == 0)
    }

    @Test func accessorsOfTheWrongTypeGiveNeutralValues() throws {
        let v = try PropertyValues(specs: GridStage.descriptor.properties, assignments: [("color", "red")], stage: "grid0")
        #expect(v.color("color") == .red)
        #expect(v.int("width") == 0)
        #expect(v.bool("lines") == false)
        #expect(v.string("width") == "")
        #expect(v.intList("lines") == [])
        #expect(v.set("missing") == [])
        #expect(v.color("width") == RGBAColor(red: 1, green: 1, blue: 1, alpha: 1))
    }

    @Test func unknownPropertyListsTheProperties() {
        #expect(throws: StageError(.usage, "grid0: no property 'colour'; properties are: lines, color, width")) {
            _ = try PropertyValues(specs: GridStage.descriptor.properties, assignments: [("colour", "red")], stage: "grid0")
        }
        #expect(throws: StageError(.usage, "snap: no property 'every'; properties are: interval, at, manual, max-shots, location, quality"))
        {
            _ = try PropertyValues(specs: SnapshotStage.descriptor.properties, assignments: [("every", "1")], stage: "snap")
        }
    }

    @Test func badValueNamesStagePropertyAndToken() {
        #expect(throws: StageError(.usage, "g: bad value '50' for property 'width': expected double 0.5 - 40.0")) {
            _ = try PropertyValues(specs: GridStage.descriptor.properties, assignments: [("width", "50")], stage: "g")
        }
    }

    @Test func noSpecsMeansNoPropertiesAccepted() throws {
        _ = try PropertyValues(specs: [], assignments: [], stage: "p")
        #expect(throws: StageError(.usage, "p: no property 'x'; properties are: ")) {
            _ = try PropertyValues(specs: [], assignments: [("x", "1")], stage: "p")
        }
    }
}
