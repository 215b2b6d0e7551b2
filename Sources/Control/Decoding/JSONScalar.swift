import Foundation

// Pure decoding (Foundation only: no Host, no GStreamer, no server library), so launch/fuzz compiles this directory
// alone with `swiftc -sanitize=fuzzer` (Fuzz/CommandsFuzz.swift).

/// A value of a request's JSON object: a string, number or boolean (what a property takes), or
/// something else (null, array, object) that is refused naming its field.
enum JSONScalar: Decodable, Equatable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    /// A JSON number no Swift number holds (`1e400`): refused naming its field, never a trap.
    case hugeNumber
    /// null, an array or an object, by its kind ("null", "an array", "an object").
    case other(String)

    /// Largest body or payload decoded (bytes): the HTTP body limit and the MQTT payload limit.
    static let byteLimit = 64 * 1024
    /// Deepest nesting of arrays and objects accepted anywhere in a body (the top object is level 1).
    static let depthLimit = 16
    /// Most fields in one object.
    static let fieldLimit = 256

    /// A field that is wrong, or the body as a whole (`field` nil).
    struct Problem: Error, Equatable {
        var message: String
        var field: String?
    }

    /// Decoded as any JSON value. An integer beyond `Int` becomes a `.double` (`99999999999999999999` is 1e20);
    /// a number beyond `Double` (`1e400`) `.hugeNumber`; null, arrays and objects `.other` (refused naming the
    /// field, their contents never looked at). Decoding itself never fails for a well-formed value.
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .other("null")
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if (try? decoder.unkeyedContainer()) != nil {
            self = .other("an array")
        } else if (try? decoder.container(keyedBy: AnyKey.self)) != nil {
            self = .other("an object")
        } else {
            do {
                self = .double(try c.decode(Double.self))
            } catch {
                // A number that Double cannot hold: Foundation reports it as "not representable".
                self = .hugeNumber
            }
        }
    }

    /// Any key (only to ask whether a value is an object).
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value as text, for quoting back in messages ("?" for what has none).
    var text: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        // Whole and small: as an integer (abs on the Double: -9223372036854775809 decodes as -2^63, whose Int
        // abs would trap; found by launch/fuzz commands).
        case .double(let d): abs(d) < 1e15 ? Int(exactly: d).map(String.init) ?? String(d) : String(d)
        case .bool(let b): b ? "true" : "false"
        case .hugeNumber: "a number too large to represent"
        case .other(let kind): kind
        }
    }

    /// What was given, for "got ..." in messages: "a string", "a boolean", "a number", "null", "an array"...
    var kind: String {
        switch self {
        case .string: "a string"
        case .int, .double: "a number"
        case .bool: "a boolean"
        case .hugeNumber: "a number too large to represent"
        case .other(let kind): kind
        }
    }

    /// The JSON type a property takes (`PropertyJSON` maps a property's type to it).
    enum Expected: Equatable, Sendable {
        case boolean
        case integer
        case number
        case string
    }

    /// This value as the description's text for a property taking `expected`, or nil when it is another JSON
    /// type (`"5"` for a number, `1` for a boolean), a fraction or a number beyond `Int` for an integer, or a
    /// number no Double holds. The text of an integer parses back with `Int(_:)`, of a number with `Double(_:)`
    /// to a finite value; range checks are the property's own (`PropertySpec.parse`).
    func propertyText(_ expected: Expected) -> String? {
        switch (expected, self) {
        case (.boolean, .bool(let b)): b ? "true" : "false"
        case (.integer, .int(let i)): String(i)
        case (.number, .int(let i)): String(i)
        case (.number, .double(let d)) where d.isFinite: String(d)
        case (.string, .string(let s)): s
        default: nil
        }
    }

    /// The fields of a JSON object, sorted by name; errors say what was expected. Refused before decoding:
    /// empty, more than `byteLimit` bytes, nesting deeper than `depthLimit`; after: not an object, more than
    /// `fieldLimit` fields. `expected` words the object wanted (the default suits a property change), `noun` what
    /// `data` is (an HTTP body, an MQTT payload).
    static func object(_ data: Data, expected: String = "a JSON object {\"property\": value, ...}", noun: String = "body") throws(Problem)
        -> [(String, JSONScalar)]
    {
        guard !data.isEmpty else { throw Problem(message: "empty \(noun): expected \(expected)") }
        guard data.count <= byteLimit else {
            throw Problem(message: "\(noun) of \(data.count) bytes refused: at most \(byteLimit), expected \(expected)")
        }
        let depth = nesting(data)
        guard depth <= depthLimit else {
            throw Problem(message: "JSON nested \(depth) levels deep refused: at most \(depthLimit), expected \(expected)")
        }
        let o: [String: JSONScalar]
        do { o = try JSONDecoder().decode([String: JSONScalar].self, from: data) } catch {
            throw Problem(message: "bad JSON '\(head(data))': expected \(expected)")
        }
        guard o.count <= fieldLimit else {
            throw Problem(message: "object of \(o.count) fields refused: at most \(fieldLimit), expected \(expected)")
        }
        return o.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The deepest nesting of `[` and `{` outside strings (a count, not a parse: a malformed body gets a number
    /// too, and then the decoder's own refusal). Stops counting past `depthLimit`.
    static func nesting(_ data: Data) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > depthLimit { return deepest }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// The start of a body, quoted back in messages (40 bytes, an ellipsis when cut; bytes that are not UTF-8
    /// show as U+FFFD).
    static func head(_ data: Data) -> String {
        String(decoding: data.prefix(40), as: UTF8.self) + (data.count > 40 ? "…" : "")
    }

    /// A name or value quoted back in messages: at most 80 characters, then an ellipsis and the length (as
    /// `Echo.value` does; this file stays free of the Stages module).
    static func echo(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "… (\(text.count) characters)" : text
    }
}
