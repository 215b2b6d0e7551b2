import GStreamerKit

/// Where a run is, announced by the host when it changes (not posted by an element), so event clients
/// (`/api/events`, MQTT) see the run start, drain and end:
/// `viewfinder/state, state=running` ... `viewfinder/state, state=ended, code=0`.
public struct RunStateMessage: ViewfinderMessage {
    /// `viewfinder/state`.
    public static let structureName = "viewfinder/state"
    /// `running`, `stopping` (end-of-stream requested) or `ended`.
    public var state: String
    /// The exit code, once ended.
    public var code: Int?

    /// Creates one.
    public init(state: String, code: Int? = nil) { self.state = state; self.code = code }

    /// Decodes a `viewfinder/state` structure.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        self.init(state: try s.required(string: "state"), code: s.integer("code").map { Int($0) })
    }

    /// The structure: state, and code once ended.
    public var structure: MessageStructure {
        var f: [(String, MessageStructure.Value)] = [("state", .string(state))]
        if let code { f.append(("code", .int(Int32(clamping: code)))) }
        return MessageStructure(Self.structureName, f)
    }
}

/// A GStreamer error or warning of the run, as the host reports it (the element and its text):
/// `viewfinder/problem, level=error, element=src, text="..."`. An error ends the run (except in a
/// supervised photo branch, reported as `OutputErrorMessage`); a warning does not.
public struct RunProblemMessage: ViewfinderMessage {
    /// `viewfinder/problem`.
    public static let structureName = "viewfinder/problem"
    /// `error` or `warning`.
    public var level: String
    /// The element that posted it.
    public var element: String
    /// The full text as printed on stderr.
    public var text: String

    /// Creates one.
    public init(level: String, element: String, text: String) { self.level = level; self.element = element; self.text = text }

    /// Decodes a `viewfinder/problem` structure.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        self.init(level: try s.required(string: "level"), element: try s.required(string: "element"), text: try s.required(string: "text"))
    }

    /// The structure: level, element, text.
    public var structure: MessageStructure {
        MessageStructure(Self.structureName, [("level", .string(level)), ("element", .string(element)), ("text", .string(text))])
    }
}
