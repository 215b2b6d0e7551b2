import GStreamerKit

/// Where a run is, announced by the host when it changes (not posted by an element), so event clients
/// (`/api/events`, MQTT) see the run start, drain and end:
/// `viewfinder/state, state=running` ... `viewfinder/state, state=ended, code=0`.
public struct RunStateMessage: ViewfinderMessage {
    /// `viewfinder/state`.
    public static let structureName = "viewfinder/state"
    /// Where the run is; the raw value is the message's `state` field.
    public enum State: String, Sendable, CaseIterable {
        /// The pipelines play.
        case running
        /// End-of-stream was requested; the pipelines drain.
        case stopping
        /// The run is over (with its exit code).
        case ended
    }
    /// `running`, `stopping` (end-of-stream requested) or `ended`.
    public var state: State
    /// The exit code, once ended.
    public var code: Int?

    /// Creates one.
    public init(state: State, code: Int? = nil) { self.state = state; self.code = code }

    /// Decodes a `viewfinder/state` structure; a state other than the three is refused.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let text = try s.required(string: "state")
        guard let state = State(rawValue: text) else {
            throw MessageDecodingError("\(s.name): state '\(text)' is none of running, stopping, ended")
        }
        self.init(state: state, code: s.integer("code").map { Int($0) })
    }

    /// The structure: state, and code once ended.
    public var structure: MessageStructure {
        var f: [(String, MessageStructure.Value)] = [("state", .string(state.rawValue))]
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

/// A supervised source's transitions (`--reconnect`): `viewfinder/source, state=lost|retrying|restored|gave-up,
/// element=src, reason="...", attempt=N, retry-in=S, losses=N, restores=N, outage=S, placeholders=N`.
/// Lost: the source segment failed, ended or went silent; placeholders (the slate) flow downstream.
/// Retrying: attempt N starts the source segment again; the next one follows in `retry-in` s if this one
/// brings no frame. Restored: frames flow again after `outage` s. Gave up: the attempts are used up (the run ends).
public struct SourceMessage: ViewfinderMessage {
    /// `viewfinder/source`.
    public static let structureName = "viewfinder/source"
    /// A supervised source's transitions.
    public enum State: String, Sendable, CaseIterable {
        /// The source segment failed, ended or went silent.
        case lost
        /// An attempt starts the source segment again.
        case retrying
        /// Frames flow again.
        case restored
        /// The attempts are used up (the run ends).
        case gaveUp = "gave-up"
        /// The source was replaced by another description while the run went on (`Session.switchSource`).
        case switched
    }
    /// `lost`, `retrying`, `restored`, `gave-up` or `switched`.
    public var state: State
    /// The source element (the first source of the segment).
    public var element: String
    /// Why it was lost (the error text, "end of stream", "no frame for 2.0 s"); the new description when switched; empty otherwise.
    public var reason: String
    /// Attempts since the loss (0 when lost, 1... when retrying; the attempts it took when restored).
    public var attempt: Int
    /// Seconds until the next attempt (lost, retrying); 0 otherwise.
    public var retryIn: Double
    /// Losses of this source so far in the run.
    public var losses: Int
    /// Restorations of this source so far in the run.
    public var restores: Int
    /// Seconds since the loss (restored, gave-up), 0 otherwise.
    public var outage: Double
    /// Placeholder frames sent downstream so far in the run.
    public var placeholders: Int

    /// Creates one.
    public init(
        state: State, element: String, reason: String = "", attempt: Int = 0, retryIn: Double = 0, losses: Int, restores: Int,
        outage: Double = 0, placeholders: Int
    ) {
        self.state = state; self.element = element; self.reason = reason; self.attempt = attempt; self.retryIn = retryIn
        self.losses = losses; self.restores = restores; self.outage = outage; self.placeholders = placeholders
    }

    /// Decodes a `viewfinder/source` structure.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let text = try s.required(string: "state")
        guard let state = State(rawValue: text) else {
            throw MessageDecodingError("\(s.name): state '\(text)' is none of \(State.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.init(
            state: state, element: try s.required(string: "element"), reason: s.string("reason") ?? "",
            attempt: Int(try s.required(integer: "attempt")), retryIn: try s.required(double: "retry-in"),
            losses: Int(try s.required(integer: "losses")), restores: Int(try s.required(integer: "restores")),
            outage: try s.required(double: "outage"), placeholders: Int(try s.required(integer: "placeholders")))
    }

    /// The structure: every field, always.
    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("state", .string(state.rawValue)), ("element", .string(element)), ("reason", .string(reason)),
                ("attempt", .int(Int32(clamping: attempt))), ("retry-in", .double(retryIn)), ("losses", .int(Int32(clamping: losses))),
                ("restores", .int(Int32(clamping: restores))), ("outage", .double(outage)),
                ("placeholders", .int(Int32(clamping: placeholders))),
            ])
    }
}
