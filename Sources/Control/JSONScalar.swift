import Foundation
import Host

/// A value of a request's JSON object: a string, number or boolean (what a property takes), or
/// something else (null, array, object) that is refused naming its field.
enum JSONScalar: Decodable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case other

    /// A field that is wrong, or the body as a whole (`field` nil).
    struct Problem: Error {
        var message: String
        var field: String?
    }

    /// Decoded as any JSON value; null, arrays and objects become `.other` (refused naming the field).
    init(from decoder: any Decoder) throws {
        switch try JSONValue(from: decoder) {
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .null, .array, .object: self = .other
        }
    }

    /// The value as description text for `PropertySpec.parse`, nil for `.other`.
    var text: String? {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): b ? "true" : "false"
        case .other: nil
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
