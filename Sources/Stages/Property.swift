import Foundation
import Overlay

/// When a stage property may be changed.
public enum PropertyMutability: String, Sendable {
    /// Only in the description (before the pipeline starts).
    case beforeStart = "before start"
    /// Any time, including while playing; takes effect on the next frame.
    case playing = "while playing"
}

/// The type of a stage property, with its range or choices.
public enum PropertyType: Sendable, Equatable {
    /// true/false (also yes/no, 1/0).
    case bool
    /// An integer within a range.
    case int(ClosedRange<Int>)
    /// A real number within a range.
    case double(ClosedRange<Double>)
    /// Free text (file paths, patterns).
    case string
    /// One of a fixed set of words.
    case choice([String])
    /// One or more words of a fixed set joined by '+' or ','.
    case set([String])
    /// A colour: #rrggbb, #rrggbbaa or a name.
    case color
    /// A comma-separated list of non-negative integers (e.g. frame numbers).
    case intList

    /// Short type name for `inspect`.
    public var name: String {
        switch self {
        case .bool: "Boolean"
        case .int: "Integer"
        case .double: "Double"
        case .string: "String"
        case .choice: "Enum"
        case .set: "Flags"
        case .color: "Color"
        case .intList: "Integer list"
        }
    }

    /// Range or choices, for `inspect` and error messages.
    public var rangeText: String {
        switch self {
        case .bool: "true, false"
        case .int(let r): "\(r.lowerBound) - \(r.upperBound)"
        case .double(let r): "\(r.lowerBound) - \(r.upperBound)"
        case .string: "any text"
        case .choice(let c): c.joined(separator: ", ")
        case .set(let c): "any of " + c.joined(separator: ", ") + " joined by '+'"
        case .color: "#rrggbb, #rrggbbaa or a colour name"
        case .intList: "comma-separated frame numbers, e.g. 0,30,60"
        }
    }
}

/// A validated property value.
public enum PropertyValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case choice(String)
    case set([String])
    case color(RGBAColor)
    case intList([Int])

    /// The value written back as description text.
    public var description: String {
        switch self {
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d == d.rounded() && abs(d) < 1e12 ? String(Int(d)) : String(d)
        case .string(let s): s
        case .choice(let c): c
        case .set(let s): s.joined(separator: "+")
        case .color(let c): c.hex
        case .intList(let l): l.map(String.init).joined(separator: ",")
        }
    }
}

/// Values quoted back in messages: long ones are cut (with an ellipsis and their length), so a
/// 10,000-character mistake does not fill the terminal.
public enum Echo {
    /// Characters kept of a quoted value.
    public static let limit = 80

    /// `text`, or its first `limit` characters, an ellipsis and its length.
    public static func value(_ text: String, limit: Int = Echo.limit) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.count) characters)"
    }

    /// A message that quotes values (GStreamer's `to "xxxx"`): each quoted value and each long word cut as `value`.
    public static func message(_ text: String, limit: Int = Echo.limit) -> String {
        let quoted = text.replacing(/"([^"]*)"/) { "\"" + value(String($0.output.1), limit: limit) + "\"" }
        return quoted.split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.count > limit + 40 ? value(String(word), limit: limit) : String(word)
        }.joined(separator: " ")
    }

    /// A description (segment) quoted back: every word longer than `limit` is cut to its property name
    /// and an ellipsis (`pattern=…`), so a value already named in the message is not repeated.
    public static func description(_ text: String, limit: Int = Echo.limit) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            guard word.count > limit else { return String(word) }
            if let eq = word.firstIndex(of: "="), word.distance(from: word.startIndex, to: eq) < limit { return word[...eq] + "…" }
            return String(word.prefix(20)) + "…"
        }.joined(separator: " ")
    }
}

/// A declared stage property: name, one-line blurb, type with range, default, and when it may change.
public struct PropertySpec: Sendable {
    /// Property name as written in descriptions.
    public var name: String
    /// One line saying what it does.
    public var blurb: String
    /// Type and range.
    public var type: PropertyType
    /// Default value, as text.
    public var defaultText: String
    /// When it may change.
    public var mutability: PropertyMutability

    /// Creates a spec.
    public init(
        _ name: String, _ blurb: String, _ type: PropertyType, default defaultText: String, mutability: PropertyMutability = .beforeStart
    ) {
        self.name = name; self.blurb = blurb; self.type = type; self.defaultText = defaultText; self.mutability = mutability
    }

    /// Parses and checks a value; errors name the stage, property, bad token and what was expected.
    public func parse(_ text: String, stage: String) throws(StageError) -> PropertyValue {
        func bad(_ token: String, _ extra: String = "") -> StageError {
            StageError(
                .usage,
                "\(stage): bad value '\(Echo.value(token))' for property '\(name)': expected \(type.name.lowercased()) \(type.rangeText)\(extra)"
            )
        }
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1", "on": return .bool(true)
            case "false", "no", "0", "off": return .bool(false)
            default: throw bad(text)
            }
        case .int(let r):
            guard let i = Int(text), r.contains(i) else { throw bad(text) }
            return .int(i)
        case .double(let r):
            guard let d = Double(text), d.isFinite, r.contains(d) else { throw bad(text) }
            return .double(d)
        case .string:
            return .string(text)
        case .choice(let c):
            guard c.contains(text) else { throw bad(text) }
            return .choice(text)
        case .set(let c):
            let parts = text.split(whereSeparator: { $0 == "+" || $0 == "," }).map(String.init)
            guard !parts.isEmpty else { throw bad(text) }
            for p in parts where !c.contains(p) { throw bad(p) }
            return .set(parts)
        case .color:
            do { return .color(try RGBAColor.parse(text)) } catch { throw bad(text) }
        case .intList:
            if text.isEmpty { return .intList([]) }
            var out: [Int] = []
            for p in text.split(separator: ",") {
                guard let i = Int(p.trimmingCharacters(in: .whitespaces)), i >= 0 else { throw bad(String(p)) }
                out.append(i)
            }
            return .intList(out.sorted())
        }
    }
}

/// A stage's validated property values (defaults filled in).
public struct PropertyValues: Sendable {
    private var values: [String: PropertyValue]
    /// The stage kind's specs, for lookups.
    public let specs: [PropertySpec]
    /// The names given in the assignments (the rest hold their defaults).
    public let assigned: Set<String>

    /// Validates `assignments` (name -> text) against `specs`; unknown names and bad values are errors.
    public init(specs: [PropertySpec], assignments: [(String, String)], stage: String) throws(StageError) {
        self.specs = specs
        var v: [String: PropertyValue] = [:]
        for s in specs { v[s.name] = try s.parse(s.defaultText, stage: stage) }
        for (k, text) in assignments {
            guard let s = specs.first(where: { $0.name == k }) else {
                throw StageError(
                    .usage, "\(stage): no property '\(Echo.value(k))'; properties are: \(specs.map(\.name).joined(separator: ", "))")
            }
            v[k] = try s.parse(text, stage: stage)
        }
        values = v
        assigned = Set(assignments.map(\.0))
    }

    /// The value of a declared property.
    public subscript(_ name: String) -> PropertyValue { values[name]! }
    /// The value of a property, nil when the stage does not declare it.
    public func value(named name: String) -> PropertyValue? { values[name] }
    /// Boolean value of a property.
    public func bool(_ n: String) -> Bool { if case .bool(let b) = values[n] { return b }; return false }
    /// Integer value of a property.
    public func int(_ n: String) -> Int { if case .int(let i) = values[n] { return i }; return 0 }
    /// Real value of a property.
    public func double(_ n: String) -> Double { if case .double(let d) = values[n] { return d }; return 0 }
    /// Text value of a string or choice property.
    public func string(_ n: String) -> String {
        switch values[n] {
        case .string(let s)?: s;
        case .choice(let s)?: s;
        default: ""
        }
    }
    /// Words of a set property.
    public func set(_ n: String) -> [String] { if case .set(let s) = values[n] { return s }; return [] }
    /// Colour value of a property.
    public func color(_ n: String) -> RGBAColor {
        if case .color(let c) = values[n] { return c }; return RGBAColor(red: 1, green: 1, blue: 1, alpha: 1)
    }
    /// Integer list value of a property.
    public func intList(_ n: String) -> [Int] { if case .intList(let l) = values[n] { return l }; return [] }
}
