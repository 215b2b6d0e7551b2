import Foundation
import Host

/// A value of a request's JSON object: a string, number or boolean (what a property takes), or
/// something else (null, array, object) that is refused naming its field.
enum JSONScalar: Decodable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    /// A JSON number no Swift number holds (`1e400`): refused naming its field, never a trap.
    case hugeNumber
    /// null, an array or an object, by its kind ("null", "an array", "an object").
    case other(String)

    /// A field that is wrong, or the body as a whole (`field` nil).
    struct Problem: Error {
        var message: String
        var field: String?
    }

    /// Decoded as any JSON value. An integer beyond `Int` becomes a `.double` (`99999999999999999999` is 1e20);
    /// a number beyond `Double` (`1e400`) `.hugeNumber`; null, arrays and objects `.other` (refused naming the
    /// field). Decoding itself never fails for a well-formed value.
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .other("null")
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else {
            do {
                self = .double(try c.decode(Double.self))
            } catch DecodingError.typeMismatch {
                // Not a number: a string, an array or an object.
                switch try JSONValue(from: decoder) {
                case .string(let s): self = .string(s)
                case let v: self = .other(v.kind)
                }
            } catch {
                // A number that Double cannot hold: Foundation reports it as "not representable".
                self = .hugeNumber
            }
        }
    }

    /// The value as text, for quoting back in messages ("?" for what has none).
    var text: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
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

    /// The fields of a JSON object, sorted by name; errors say what was expected.
    static func object(_ data: Data) throws(Problem) -> [(String, JSONScalar)] {
        guard !data.isEmpty else { throw Problem(message: "empty body: expected a JSON object {\"property\": value, ...}") }
        do {
            let o = try JSONDecoder().decode([String: JSONScalar].self, from: data)
            return o.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        } catch {
            let head = String(decoding: data.prefix(40), as: UTF8.self)
            throw Problem(message: "bad JSON '\(head)\(data.count > 40 ? "…" : "")': expected a JSON object {\"property\": value, ...}")
        }
    }
}
