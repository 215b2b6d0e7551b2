/// One `key=value` on an element, stage or bin, with its value both decoded and as gst-launch text.
public struct PropertyAssignment: Equatable, Sendable {
    /// The property name, e.g. `location` or `child::prop`.
    public var key: String
    /// The value with quotes removed and backslash escapes resolved, e.g. `a b.mp4`.
    public var value: String
    /// The assignment as it must be written back into a description, e.g. `location="a b.mp4"`.
    public var text: String

    /// Creates an assignment from all three parts, trusting `text` to say `key=value` in gst-launch syntax.
    public init(key: String, value: String, text: String) {
        self.key = key
        self.value = value
        self.text = text
    }

    /// Creates an assignment from a plain value, quoting it so gst_parse_launch reads back exactly `value`.
    public init(key: String, value: String) {
        self.init(key: key, value: value, text: key + "=" + Self.quoted(value))
    }

    /// The properties of an appsink the host puts in place of one of its own sinks (`rtspserve`, `webrtcserve`)
    /// to relay what reaches it: no clock sync, no preroll, no signals, no last-sample reference (it would keep
    /// every buffer shared), at most `maxBuffers` queued, the oldest dropped (a slow relay never blocks upstream).
    static func relaySink(name: String, maxBuffers: Int) -> [PropertyAssignment] {
        [
            PropertyAssignment(key: "name", value: name), PropertyAssignment(key: "sync", value: "false"),
            PropertyAssignment(key: "async", value: "false"), PropertyAssignment(key: "emit-signals", value: "false"),
            PropertyAssignment(key: "enable-last-sample", value: "false"), PropertyAssignment(key: "max-buffers", value: "\(maxBuffers)"),
            PropertyAssignment(key: "drop", value: "true"),
        ]
    }

    /// Writes `value` so GStreamer's lexer reads it back unchanged: bare when safe, else in double quotes.
    ///
    /// Bare values contain no whitespace, quotes, backslashes or `!`. Quoted values escape `\` and `"`
    /// with a backslash. (A value ending in a backslash is a known gst-launch corner: its closing quote
    /// reads as escaped if a later quote follows in the same description.)
    public static func quoted(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.contains { c in
                DescriptionLexer.isSpace(c) || c == "\"" || c == "'" || c == "\\" || c == "!"
            }
        guard needsQuotes else { return value }
        var out = "\""
        for c in value {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        out.append("\"")
        return out
    }

    /// Decodes a value as written (`"a b"`, `a\ b`, `'x'`) the way gst-launch does before using it.
    ///
    /// Like GStreamer, surrounding double quotes are removed and backslashes outside inner quotes
    /// dropped; unlike GStreamer, surrounding single quotes are removed too (GStreamer keeps them in the
    /// value; the written `text` still carries them, so elements see what gst-launch would give them).
    public static func unescape(_ written: String) -> String {
        var s = Array(written)
        if s.count >= 2, let first = s.first, first == "\"" || first == "'", s.last == first {
            s = Array(s[1..<(s.count - 1)])
        }
        var out = ""
        var inQuotes = false
        var i = 0
        while i < s.count {
            let c = s[i]
            if c == "\\" && !inQuotes {
                i += 1
                if i >= s.count { break }
                out.append(s[i])
                i += 1
                continue
            }
            if c == "\"" && (!inQuotes || s[i - 1] != "\\") {
                inQuotes.toggle()
            }
            out.append(c)
            i += 1
        }
        return out
    }
}
