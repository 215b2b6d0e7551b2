import Foundation
import Testing

@testable import Control

/// The MQTT command payloads (`MQTTCommand.decode`): each command takes a JSON object of its own shape; anything
/// else is refused naming what was wrong and what was expected, never trapping on numbers, nesting or size.
struct MQTTCommandTests {
    static let prefix = "cams/door/cmd/"

    static func decode(_ name: String, _ payload: String) throws(JSONScalar.Problem) -> MQTTCommand {
        try MQTTCommand.decode(name, payload: Data(payload.utf8), services: ["tally"], prefix: prefix)
    }

    @Test func wellFormedPayloadsDecode() throws {
        #expect(try Self.decode("stop", "{}") == .stop)
        #expect(try Self.decode("stop", " { } \n") == .stop)
        #expect(try Self.decode("capture", "{}") == .capture(timer: nil))
        #expect(try Self.decode("capture", #"{"timer": 5}"#) == .capture(timer: 5))
        // JSON does not tell 0 from -0 or 60 from 60.0: both are the integer.
        #expect(try Self.decode("capture", #"{"timer": -0}"#) == .capture(timer: 0))
        #expect(try Self.decode("capture", #"{"timer": 60.0}"#) == .capture(timer: 60))
        #expect(
            try Self.decode("set", #"{"set": {"rule": "golden", "analysis-fps": 5, "overlay": false}, "stage": "compose0"}"#)
                == .set(
                    stage: "compose0",
                    fields: [.init(name: "analysis-fps", value: .int(5)), .init(name: "overlay", value: .bool(false)), .init(name: "rule", value: .string("golden"))]))
        #expect(try Self.decode("tally", #"{"label": "door"}"#) == .service("tally"))
    }

    /// 16 bytes of garbage, the measured problem: `cmd/stop` with them stopped the camera.
    static let garbage = Data([0x9F, 0x00, 0x7B, 0x22, 0xFF, 0x13, 0x5D, 0x41, 0xC3, 0x28, 0x7D, 0x0A, 0x01, 0xFE, 0x22, 0x3A])

    @Test(arguments: ["stop", "capture", "set", "tally"])
    func garbageIsRefusedForEveryCommand(_ name: String) {
        do {
            _ = try MQTTCommand.decode(name, payload: Self.garbage, services: ["tally"], prefix: Self.prefix)
            Issue.record("\(name) accepted garbage")
        } catch {
            #expect(error.message.hasPrefix("bad JSON '"), "\(error.message)")
            #expect(error.message.contains("expected "), "\(error.message)")
            #expect(error.field == nil)
        }
    }

    @Test(arguments: [
        ("stop", "", nil, "empty payload: expected {}"),
        ("stop", "stop", nil, "bad JSON 'stop': expected {}"),
        ("stop", "null", nil, "bad JSON 'null': expected {}"),
        ("stop", "[]", nil, "bad JSON '[]': expected {}"),
        ("stop", "1e400", nil, "bad JSON '1e400': expected {}"),
        ("stop", #"{"now": true}"#, "now", "unknown field 'now': expected {}"),
        ("capture", "", nil, "empty payload: expected {} or {\"timer\": seconds 0 - 60}"),
        ("capture", #"{"timer": 4294967296}"#, "timer", "bad value '4294967296' for 'timer': expected an integer 0 - 60"),
        ("capture", #"{"timer": 9223372036854775808}"#, "timer", "bad value '9.223372036854776e+18' for 'timer'"),
        ("capture", #"{"timer": 1e400}"#, "timer", "bad value 'a number too large to represent' for 'timer'"),
        ("capture", #"{"timer": -1}"#, "timer", "bad value '-1' for 'timer'"),
        ("capture", #"{"timer": 2.5}"#, "timer", "bad value '2.5' for 'timer'"),
        ("capture", #"{"timer": "5"}"#, "timer", "bad value '5' for 'timer'"),
        ("capture", #"{"timer": [5]}"#, "timer", "bad value 'an array' for 'timer'"),
        ("capture", #"{"delay": 5}"#, "delay", "unknown field 'delay'"),
        ("set", "{}", "stage", "missing, empty or non-string 'stage': expected {\"stage\": NAME, \"set\": {\"property\": value, ...}}"),
        ("set", #"{"stage": 5, "set": {"rule": "golden"}}"#, "stage", "missing, empty or non-string 'stage'"),
        ("set", #"{"stage": "", "set": {"rule": "golden"}}"#, "stage", "missing, empty or non-string 'stage'"),
        ("set", #"{"stage": "compose0"}"#, "set", "missing 'set' or not a JSON object"),
        ("set", #"{"stage": "compose0", "set": [1]}"#, "set", "missing 'set' or not a JSON object"),
        ("set", #"{"stage": "compose0", "set": {}}"#, "set", "empty 'set' object"),
        ("set", #"{"stage": "compose0", "rule": "thirds"}"#, "rule", "unknown field 'rule'"),
        ("tally", "", nil, "empty payload: expected a JSON object"),
        ("tally", "[1]", nil, "bad JSON '[1]': expected a JSON object"),
        ("explode", "{}", nil, "unknown command topic 'cams/door/cmd/explode': expected cams/door/cmd/capture, cams/door/cmd/set, cams/door/cmd/stop, cams/door/cmd/tally"),
    ] as [(String, String, String?, String)])
    func malformedPayloadsAreRefusedNamingWhatWasExpected(_ name: String, _ payload: String, _ field: String?, _ text: String) {
        do {
            let command = try Self.decode(name, payload)
            Issue.record("\(name) accepted \(payload): \(command)")
        } catch {
            #expect(error.message.contains(text), "\(error.message)")
            #expect(error.field == field, "\(error.message)")
        }
    }

    /// Limits hold before decoding: size, nesting; and after: fields.
    @Test func oversizedDeepAndWideAreRefused() throws {
        func refusal(_ name: String, _ payload: String) -> JSONScalar.Problem? {
            do {
                _ = try Self.decode(name, payload)
                return nil
            } catch { return error }
        }
        let big = "{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}"
        #expect(refusal("stop", big)?.message.hasPrefix("payload of 70008 bytes refused: at most 65536, expected {}") == true)
        let deep = #"{"stage":"compose0","set":{"a":"# + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000) + "}}"
        #expect(refusal("set", deep)?.message.hasPrefix("JSON nested 17 levels deep refused: at most 16") == true, "\(String(describing: refusal("set", deep)))")
        let wide = "{\"stage\":\"c\",\"set\":{" + (0..<300).map { "\"p\($0)\":1" }.joined(separator: ",") + "}}"
        #expect(refusal("set", wide) == JSONScalar.Problem(message: "'set' of 300 fields refused: at most 256", field: "set"))
        // A long array is one value of the kind "an array" (refused later, by the property, naming its field).
        let long = #"{"stage":"compose0","set":{"rule":["# + Array(repeating: "1e400", count: 10_000).joined(separator: ",") + "]}}"
        #expect(try Self.decode("set", long) == .set(stage: "compose0", fields: [.init(name: "rule", value: .other("an array"))]))
    }
}
