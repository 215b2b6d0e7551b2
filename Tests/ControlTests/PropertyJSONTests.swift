import Foundation
import Overlay
import Stages
import Testing

@testable import Control

/// Property values at the API edge: typed JSON out, each property's own JSON type in, refusals naming the
/// field and the type expected.
struct PropertyJSONTests {
    static let fps = PropertySpec("analysis-fps", "", .int(1...30), default: "10", mutability: .playing)
    static let zoom = PropertySpec("zoom", "", .double(0.25...4), default: "1", mutability: .playing)
    static let overlay = PropertySpec("overlay", "", .bool, default: "true", mutability: .playing)
    static let rule = PropertySpec("rule", "", .choice(["auto", "thirds"]), default: "auto", mutability: .playing)
    static let draw = PropertySpec("draw", "", .set(["subject", "advice"]), default: "subject+advice")
    static let color = PropertySpec("color", "", .color, default: "white")
    static let at = PropertySpec("at", "", .intList, default: "")
    static let directory = PropertySpec("directory", "", .string, default: "photos")

    /// The serialised form, keys sorted: numbers and booleans bare, the rest quoted description text.
    @Test func valuesAreWrittenAsTypedJSON() throws {
        let values: [String: PropertyValue] = [
            "a": .int(5), "b": .double(0.5), "c": .double(10), "d": .bool(false), "e": .choice("thirds"), "f": .set(["subject", "advice"]),
            "g": .color(try RGBAColor.parse("#ff0000")), "h": .intList([0, 30]), "i": .string("photos"),
        ]
        let data = try JSONSerialization.data(withJSONObject: PropertyJSON.object(values), options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(
            String(decoding: data, as: UTF8.self)
                == ##"{"a":5,"b":0.5,"c":10,"d":false,"e":"thirds","f":"subject+advice","g":"#ff0000ff","h":"0,30","i":"photos"}"##)
        #expect(PropertyJSON.json(.int(5)) as? Int == 5)
        #expect(PropertyJSON.json(.bool(true)) as? Bool == true)
        #expect(PropertyJSON.json(.double(2.5)) as? Double == 2.5)
        #expect(PropertyJSON.json(.choice("auto")) as? String == "auto")
    }

    /// Defaults are typed the same way; the other types keep the spec's own text (a colour name as written).
    @Test func defaultsAreTypedJSON() {
        #expect(PropertyJSON.defaultJSON(Self.fps, stage: "c") as? Int == 10)
        #expect(PropertyJSON.defaultJSON(Self.zoom, stage: "c") as? Double == 1)
        #expect(PropertyJSON.defaultJSON(Self.overlay, stage: "c") as? Bool == true)
        #expect(PropertyJSON.defaultJSON(Self.color, stage: "c") as? String == "white")
        #expect(PropertyJSON.defaultJSON(Self.draw, stage: "c") as? String == "subject+advice")
        #expect(PropertyJSON.defaultJSON(Self.at, stage: "c") as? String == "")
        #expect(PropertyJSON.defaultJSON(PropertySpec("bad", "", .int(1...3), default: "x"), stage: "c") as? String == "x")
    }

    @Test func eachPropertyTakesItsOwnJSONType() throws {
        let ok: [(PropertySpec, JSONScalar, PropertyValue)] = [
            (Self.fps, .int(5), .int(5)),
            (Self.zoom, .int(2), .double(2)),
            (Self.zoom, .double(1.5), .double(1.5)),
            (Self.overlay, .bool(false), .bool(false)),
            (Self.rule, .string("thirds"), .choice("thirds")),
            (Self.draw, .string("advice+subject"), .set(["advice", "subject"])),
            (Self.color, .string("red"), .color(try RGBAColor.parse("#ff0000"))),
            (Self.at, .string("30,0"), .intList([0, 30])),
            (Self.directory, .string("out"), .string("out")),
        ]
        for (spec, raw, value) in ok { #expect(try PropertyJSON.value(raw, for: spec, stage: "c") == value, "\(spec.name) \(raw)") }
    }

    @Test func otherTypesAreRefusedNamingTheFieldAndTheType() {
        let refused: [(PropertySpec, JSONScalar, String)] = [
            (Self.fps, .string("5"), "c: 'analysis-fps' takes a JSON number (integer 1 - 30), got a string"),
            (Self.fps, .double(2.5), "c: 'analysis-fps' takes a JSON number (integer 1 - 30), got 2.5"),
            (Self.fps, .double(1e20), "c: 'analysis-fps' takes a JSON number (integer 1 - 30), got 1e+20"),
            (Self.fps, .hugeNumber, "c: 'analysis-fps' takes a JSON number (integer 1 - 30), got a number too large to represent"),
            (Self.fps, .bool(true), "c: 'analysis-fps' takes a JSON number (integer 1 - 30), got a boolean"),
            (Self.fps, .int(31), "c: bad value '31' for property 'analysis-fps': expected integer 1 - 30"),
            (Self.zoom, .string("2"), "c: 'zoom' takes a JSON number (0.25 - 4.0), got a string"),
            (Self.zoom, .hugeNumber, "c: 'zoom' takes a JSON number (0.25 - 4.0), got a number too large to represent"),
            (Self.zoom, .double(1e20), "c: bad value '1e+20' for property 'zoom': expected double 0.25 - 4.0"),
            (Self.zoom, .int(-1), "c: bad value '-1' for property 'zoom': expected double 0.25 - 4.0"),
            (Self.overlay, .int(1), "c: 'overlay' takes a JSON boolean (true or false), got a number"),
            (Self.overlay, .string("true"), "c: 'overlay' takes a JSON boolean (true or false), got a string"),
            (Self.overlay, .other("null"), "c: 'overlay' takes a JSON boolean (true or false), got null"),
            (Self.rule, .int(1), "c: 'rule' takes a JSON string (auto, thirds), got a number"),
            (Self.rule, .string("spiral"), "c: bad value 'spiral' for property 'rule': expected enum auto, thirds"),
            (Self.draw, .other("an array"), "c: 'draw' takes a JSON string (any of subject, advice joined by '+'), got an array"),
            (Self.color, .int(255), "c: 'color' takes a JSON string (#rrggbb, #rrggbbaa or a colour name), got a number"),
            (Self.at, .int(30), "c: 'at' takes a JSON string (comma-separated frame numbers, e.g. 0,30,60), got a number"),
            (Self.directory, .bool(false), "c: 'directory' takes a JSON string (any text), got a boolean"),
        ]
        for (spec, raw, message) in refused {
            do {
                let v = try PropertyJSON.value(raw, for: spec, stage: "c")
                Issue.record("\(spec.name): \(raw) accepted as \(v)")
            } catch {
                #expect(error.message == message)
                #expect(error.field == spec.name)
            }
        }
    }

    /// PATCH bodies with the numbers that trap unchecked conversions: each is refused naming the field, from the
    /// body's bytes through `JSONScalar.object` to the property's parser.
    @Test func extremeNumbersInABodyAreRefusedNotTrapped() throws {
        let cases: [(String, PropertySpec, String)] = [
            (#"{"analysis-fps": 4294967296}"#, Self.fps, "c: bad value '4294967296' for property 'analysis-fps': expected integer 1 - 30"),
            (#"{"analysis-fps": 9223372036854775807}"#, Self.fps, "c: bad value '9223372036854775807' for property 'analysis-fps'"),
            (#"{"analysis-fps": -9223372036854775809}"#, Self.fps, "c: 'analysis-fps' takes a JSON number (integer 1 - 30), got -9.223372036854776e+18"),
            (#"{"analysis-fps": -0}"#, Self.fps, "c: bad value '0' for property 'analysis-fps'"),
            (#"{"analysis-fps": 1e400}"#, Self.fps, "got a number too large to represent"),
            (#"{"zoom": -1e400}"#, Self.zoom, "c: 'zoom' takes a JSON number (0.25 - 4.0), got a number too large to represent"),
            (#"{"zoom": 1e-400}"#, Self.zoom, "c: bad value '0' for property 'zoom'"),
            (#"{"zoom": "NaN"}"#, Self.zoom, "c: 'zoom' takes a JSON number (0.25 - 4.0), got a string"),
            (#"{"at": "99999999999999999999,1"}"#, Self.at, "'at'"),
            (#"{"at": [1, 2, 3]}"#, Self.at, "c: 'at' takes a JSON string (comma-separated frame numbers, e.g. 0,30,60), got an array"),
        ]
        for (body, spec, message) in cases {
            let fields = try JSONScalar.object(Data(body.utf8))
            let raw = try #require(fields.first?.1)
            do {
                let v = try PropertyJSON.value(raw, for: spec, stage: "c")
                Issue.record("\(body) accepted as \(v)")
            } catch {
                #expect(error.message.contains(message), "\(body): \(error.message)")
                #expect(error.field == spec.name)
            }
        }
    }
}
