import Foundation
import GStreamerKit

/// How the host prints GStreamer's bus messages for people: element messages on one readable line,
/// warnings and errors with GStreamer's whole debug text.
public enum MessageText {
    /// Longest value printed in full in an element message line; longer ones are shortened with "…".
    public static let maxValueLength = 80

    /// One line for an element message: `compose0: viewfinder/composition rule=thirds score=0.91 advice="move left"`.
    /// `structure` is GStreamer's structure text; text GStreamer cannot parse is printed as it is.
    public static func element(source: String, structure: String) -> String {
        guard let s = MessageStructure(parsing: structure) else { return "\(source): \(structure)" }
        // A stage's messages are posted by its group's appsink: name the stage (its `stage` field) instead.
        let stage = s.string("stage").flatMap { $0.isEmpty ? nil : $0 }
        let fields = s.fields.filter { stage == nil || $0.0 != "stage" }.map { "\($0.0)=\(value($0.1))" }
        return ([(stage ?? source) + ":", s.name] + fields).joined(separator: " ")
    }

    /// A field value: strings quoted only when they hold spaces (or are empty), doubles without
    /// trailing zeros, long values shortened.
    static func value(_ v: MessageStructure.Value) -> String {
        switch v {
        case .int(let i): return String(i)
        case .uint64(let u): return String(u)
        case .bool(let b): return b ? "true" : "false"
        case .double(let d): return number(d)
        case .string(let s):
            var t = s.count > maxValueLength ? String(s.prefix(maxValueLength - 1)) + "…" : s
            t = t.replacingOccurrences(of: "\n", with: " ")
            if t.isEmpty || t.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" }) {
                return "\"" + t.replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }
            return t
        }
    }

    /// A double with at most 3 decimals and no trailing zeros (0.91, 12, 0.333); huge or tiny values in %g.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return String(d) }
        if d != 0 && (abs(d) >= 1e9 || abs(d) < 1e-3) { return String(format: "%g", d) }
        var t = String(format: "%.3f", d)
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t == "-0" ? "0" : t
    }

    /// The lines of GStreamer's debug text worth showing: the source location and element path line
    /// first (`../gst/isomp4/qtdemux.c(509): fn (): /GstPipeline:pipeline0/...:`), then the detail lines.
    public static func debugLines(_ debug: String?) -> [String] {
        guard let debug else { return [] }
        return debug.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The whole debug text, every line indented under a `  debug:` heading (empty when there is none).
    public static func indentedDebug(_ debug: String?) -> String {
        let lines = debugLines(debug)
        guard let first = lines.first else { return "" }
        return "\n  debug: \(first)" + lines.dropFirst().map { "\n    \($0)" }.joined()
    }

    /// A WARNING message: element (and factory), GStreamer's text and the whole debug text.
    public static func warning(source: String, factory: String, text: String, debug: String?) -> String {
        "WARNING from element \(source)\(factory.isEmpty ? "" : " (\(factory))"): \(text)\(indentedDebug(debug))"
    }
}
