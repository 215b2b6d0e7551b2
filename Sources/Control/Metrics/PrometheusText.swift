import Foundation

/// Prometheus's text exposition format, version 0.0.4 (what `GET /metrics` answers): metric families, each with
/// `# HELP` and `# TYPE` and then its samples, one line each, `name{label="value",...} value`. Pure: no session,
/// no GStreamer; `MetricsReport` gathers the families.
///
/// Escaping (the format's rules): in a label value `\` → `\\`, `"` → `\"`, newline → `\n`; in a help text `\` →
/// `\\` and newline → `\n`. Values: integers up to 2^53 as integers (`42`), others in Swift's shortest
/// round-trip form (`0.25`, `1e-05`), and `NaN`, `+Inf`, `-Inf`. No timestamps.
///
/// What would make the text unreadable is left out rather than written: a family whose name is not
/// `[a-zA-Z_:][a-zA-Z0-9_:]*`, a sample with a label name that is not `[a-zA-Z_][a-zA-Z0-9_]*` or starts with
/// `__`, a label named twice in one sample, and a sample whose labels repeat an earlier sample's in the family.
public enum PrometheusText {
    /// The `Content-Type` of the text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// A family's type (`# TYPE`).
    public enum Kind: String, Sendable {
        case counter, gauge, summary, untyped
    }

    /// One line of a family: the family's name plus `suffix` (`_sum`, `_count` of a summary; empty otherwise),
    /// its labels in order, its value.
    public struct Sample: Sendable {
        public var suffix: String
        public var labels: [(name: String, value: String)]
        public var value: Double
        /// A sample.
        public init(suffix: String = "", labels: [(name: String, value: String)] = [], value: Double) {
            self.suffix = suffix; self.labels = labels; self.value = value
        }
    }

    /// A metric family: name, help, type and its samples (all written together, as the format wants).
    public struct Family: Sendable {
        public var name: String
        public var help: String
        public var kind: Kind
        public var samples: [Sample]
        /// A family.
        public init(name: String, help: String, kind: Kind, samples: [Sample] = []) {
            self.name = name; self.help = help; self.kind = kind; self.samples = samples
        }
    }

    /// The families as exposition text, in the order given (a family without samples is still described).
    public static func render(_ families: [Family]) -> String {
        var out = ""
        for f in families where isMetricName(f.name) {
            out += "# HELP \(f.name) \(escapeHelp(f.help))\n# TYPE \(f.name) \(f.kind.rawValue)\n"
            var seen = Set<String>()
            for s in f.samples {
                guard isMetricName(f.name + s.suffix), s.labels.allSatisfy({ isLabelName($0.name) }),
                    Set(s.labels.map(\.name)).count == s.labels.count
                else { continue }
                let labels = s.labels.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",")
                let series = f.name + s.suffix + (labels.isEmpty ? "" : "{\(labels)}")
                guard seen.insert(series).inserted else { continue }
                out += "\(series) \(number(s.value))\n"
            }
        }
        return out
    }

    /// A label value as the format writes it between quotes.
    public static func escapeLabelValue(_ s: String) -> String { escape(s, quote: true) }

    /// A help text as the format writes it (backslash and newline only).
    public static func escapeHelp(_ s: String) -> String { escape(s, quote: false) }

    /// Backslash and newline escaped, and `"` too when `quote`.
    static func escape(_ s: String, quote: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A value as the format writes it.
    public static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) <= 9_007_199_254_740_992 { return String(Int64(v)) }
        return "\(v)"
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    public static func isMetricName(_ s: String) -> Bool { plain(s, colon: true) }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__` (reserved for Prometheus itself).
    public static func isLabelName(_ s: String) -> Bool { plain(s, colon: false) && !s.hasPrefix("__") }

    private static func plain(_ s: String, colon: Bool) -> Bool {
        guard let first = s.utf8.first else { return false }
        func letter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || (colon && c == 0x3A) }
        return letter(first) && s.utf8.allSatisfy { letter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}
