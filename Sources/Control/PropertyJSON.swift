import Foundation
import Host
import Stages

/// Property values at the API edge, both ways, typed as JSON: an `int` or `double` property is a JSON number,
/// a `bool` one a JSON boolean, everything else (choice, set, colour, string, frame list) a JSON string in its
/// description form. `GET /api/stages` writes values so; `PATCH /api/stages/NAME` and MQTT `cmd/set` accept a
/// property's own JSON type only (`{"analysis-fps": "5"}` and `{"overlay": 1}` are refused naming the field
/// and the type expected). The description, `--set` and the settings file keep their text forms.
enum PropertyJSON {
    /// The JSON form of `value`: `Bool`, `Int`, `Double` or `String` (for `JSONSerialization`).
    static func json(_ value: PropertyValue) -> Any {
        switch value {
        case .bool(let b): b
        case .int(let i): i
        case .double(let d): d
        default: value.description
        }
    }

    /// The JSON form of `spec`'s default: a number or boolean parsed from its text; for the other types the text
    /// as the spec writes it (`inspect`'s form: a colour may be a name).
    static func defaultJSON(_ spec: PropertySpec, stage: String) -> Any {
        switch spec.type {
        case .bool, .int, .double:
            guard let v = try? spec.parse(spec.defaultText, stage: stage) else { return spec.defaultText }
            return json(v)
        case .string, .choice, .set, .color, .intList:
            return spec.defaultText
        }
    }

    /// Several values, by property name.
    static func object(_ values: [String: PropertyValue]) -> [String: Any] { values.mapValues(json) }

    /// What a property of `type` takes, for messages: "a JSON number (integer 1 - 30)", "a JSON boolean (true or
    /// false)", "a JSON string (auto, thirds, ...)".
    static func expected(_ type: PropertyType) -> String {
        switch type {
        case .bool: "a JSON boolean (true or false)"
        case .int: "a JSON number (integer \(type.rangeText))"
        case .double: "a JSON number (\(type.rangeText))"
        case .string, .choice, .set, .color, .intList: "a JSON string (\(type.rangeText))"
        }
    }

    /// The value `raw` gives property `spec` of stage `stage`. Refused, naming the property as the field: another
    /// JSON type (`"5"` for a number, `1` for a boolean), a fraction or a number beyond `Int` for an integer, a
    /// number no Double holds; a value of the right type out of range or not one of the words gets the
    /// description's own message (`PropertySpec.parse`, with the range).
    static func value(_ raw: JSONScalar, for spec: PropertySpec, stage: String) throws(JSONScalar.Problem) -> PropertyValue {
        func refused(_ got: String) -> JSONScalar.Problem {
            JSONScalar.Problem(message: "\(stage): '\(spec.name)' takes \(expected(spec.type)), got \(got)", field: spec.name)
        }
        func parsed(_ text: String) throws(JSONScalar.Problem) -> PropertyValue {
            do { return try spec.parse(text, stage: stage) } catch { throw JSONScalar.Problem(message: error.message, field: spec.name) }
        }
        let wanted: JSONScalar.Expected
        switch spec.type {
        case .bool: wanted = .boolean
        case .int: wanted = .integer
        case .double: wanted = .number
        case .string, .choice, .set, .color, .intList: wanted = .string
        }
        // Another JSON type, a fraction or a number beyond Int for an integer (99999999999999999999 decodes as
        // 1e20), a number no Double holds: refused here; the text of the right type goes to the spec's parser.
        guard let text = raw.propertyText(wanted) else {
            throw refused(raw.kind == "a number" && wanted == .integer ? raw.text : raw.kind)
        }
        return try parsed(text)
    }
}
