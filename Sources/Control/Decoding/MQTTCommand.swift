import Foundation

// Pure decoding (Foundation only), compiled alone by launch/fuzz (Fuzz/CommandsFuzz.swift).

/// One MQTT command as its payload asks for it (`TOPIC/cmd/NAME`). Every command's payload is a JSON object,
/// at most `JSONScalar.byteLimit` bytes:
///
/// | command | payload |
/// |---|---|
/// | `capture` | `{}` (the manual shutter) or `{"timer": N}` (N an integer 0 - 60: the self-timer event) |
/// | `set` | `{"stage": NAME, "set": {"property": value, ...}}` (1 - `JSONScalar.fieldLimit` properties) |
/// | `stop` | `{}` |
/// | a service's | a JSON object; its fields are the service's to check |
///
/// Anything else (empty, not JSON, not an object, unknown or wrongly typed fields) is refused naming what was
/// wrong and what was expected, and the bridge then does nothing but answer on `TOPIC/reply`.
enum MQTTCommand: Equatable, Sendable {
    /// The shutter; with a self-timer (seconds, 0 - 60) when given.
    case capture(timer: Int?)
    /// Properties of one stage, sorted by name.
    case set(stage: String, fields: [SetField])
    case stop
    /// A service's command (`ServesMQTTCommands`), its payload a JSON object.
    case service(String)

    /// One property of `cmd/set`.
    struct SetField: Equatable, Sendable {
        var name: String
        var value: JSONScalar
    }

    /// The bridge's own commands.
    static let builtIn = ["capture", "set", "stop"]

    /// The payloads expected, for messages.
    static let expectedCapture = "{} or {\"timer\": seconds 0 - 60}"
    static let expectedSet = "{\"stage\": NAME, \"set\": {\"property\": value, ...}}"
    static let expectedStop = "{}"
    static let expectedService = "a JSON object"

    /// Decodes command `name` (the topic's last level) with `payload`. `services` are the commands services add;
    /// `prefix` is `TOPIC/cmd/` (for naming the topics expected). Throws the refusal, naming the field when one is
    /// to blame.
    static func decode(_ name: String, payload: Data, services: [String] = [], prefix: String = "cmd/") throws(JSONScalar.Problem)
        -> MQTTCommand
    {
        let known = builtIn + services
        guard known.contains(name) else {
            throw JSONScalar.Problem(
                message: "unknown command topic '\(JSONScalar.echo(prefix + name))': expected "
                    + known.map { prefix + $0 }.joined(separator: ", "))
        }
        switch name {
        case "capture":
            return .capture(timer: try captureTimer(try JSONScalar.object(payload, expected: expectedCapture, noun: "payload")))
        case "set":
            let (stage, fields) = try set(payload)
            return .set(stage: stage, fields: fields)
        case "stop":
            let fields = try JSONScalar.object(payload, expected: expectedStop, noun: "payload")
            if let (key, _) = fields.first {
                throw JSONScalar.Problem(message: "unknown field '\(JSONScalar.echo(key))': expected \(expectedStop)", field: key)
            }
            return .stop
        default:
            _ = try JSONScalar.object(payload, expected: expectedService, noun: "payload")
            return .service(name)
        }
    }

    /// What a clip request (`cmd/clip`, `POST /api/clips`) names: nil for every clip recorder, else the recorder's
    /// name (`{"element": NAME}`); any other field, or another value, is refused naming it.
    static func clipElement(_ fields: [(String, JSONScalar)]) throws(JSONScalar.Problem) -> String? {
        for (key, _) in fields where key != "element" {
            throw JSONScalar.Problem(message: "unknown field '\(JSONScalar.echo(key))': expected \(expectedClip)", field: key)
        }
        guard let (_, raw) = fields.first else { return nil }
        guard case .string(let name) = raw, !name.isEmpty else {
            throw JSONScalar.Problem(message: "bad value '\(JSONScalar.echo(raw.text))' for 'element': expected \(expectedClip)", field: "element")
        }
        return name
    }

    /// What a clip request's body may be.
    static let expectedClip = "an empty body, {} or {\"element\": NAME} (a clips element's name)"

    /// The self-timer of a capture request's fields (`cmd/capture`, `POST /api/capture`): nil for none, else an
    /// integer 0 - 60; any other field, or another value, is refused naming it.
    static func captureTimer(_ fields: [(String, JSONScalar)]) throws(JSONScalar.Problem) -> Int? {
        for (key, _) in fields where key != "timer" {
            throw JSONScalar.Problem(
                message: "unknown field '\(JSONScalar.echo(key))': expected an empty body, {} or {\"timer\": seconds}", field: key)
        }
        guard let (_, raw) = fields.first else { return nil }
        guard case .int(let seconds) = raw, (0...60).contains(seconds) else {
            throw JSONScalar.Problem(
                message: "bad value '\(JSONScalar.echo(raw.text))' for 'timer': expected an integer 0 - 60 (seconds)", field: "timer")
        }
        return seconds
    }

    /// `{"stage": NAME, "set": {"property": value, ...}}`: the stage and the fields sorted by name.
    static func set(_ payload: Data) throws(JSONScalar.Problem) -> (String, [SetField]) {
        let top = try JSONScalar.object(payload, expected: expectedSet, noun: "payload")
        for (key, _) in top where key != "stage" && key != "set" {
            throw JSONScalar.Problem(message: "unknown field '\(JSONScalar.echo(key))': expected \(expectedSet)", field: key)
        }
        guard case .string(let stage)? = top.first(where: { $0.0 == "stage" })?.1, !stage.isEmpty else {
            throw JSONScalar.Problem(message: "missing, empty or non-string 'stage': expected \(expectedSet)", field: "stage")
        }
        guard case .other("an object")? = top.first(where: { $0.0 == "set" })?.1 else {
            throw JSONScalar.Problem(message: "missing 'set' or not a JSON object: expected \(expectedSet)", field: "set")
        }
        // The inner object, decoded on its own (the outer decode only noted its kind).
        let inner: [String: JSONScalar]
        do { inner = try JSONDecoder().decode(SetPayload.self, from: payload).set } catch {
            throw JSONScalar.Problem(message: "bad 'set' object: expected \(expectedSet)", field: "set")
        }
        guard !inner.isEmpty else {
            throw JSONScalar.Problem(message: "empty 'set' object: expected {\"property\": value, ...}", field: "set")
        }
        guard inner.count <= JSONScalar.fieldLimit else {
            throw JSONScalar.Problem(
                message: "'set' of \(inner.count) fields refused: at most \(JSONScalar.fieldLimit)", field: "set")
        }
        return (stage, inner.sorted { $0.key < $1.key }.map { SetField(name: $0.key, value: $0.value) })
    }

    /// The `set` member only (the rest was checked as scalars).
    private struct SetPayload: Decodable {
        var set: [String: JSONScalar]
    }
}
