import GStreamerKit

/// The branch fed by a stage's extra output stopped with an error (a full disk, a vanished directory);
/// the stream goes on without it and the host tries it again later. Posted by the host, not the stage:
/// `viewfinder/output-error, stage=cap, output=snapshot, element=cap_snapshot_files, text="..."`.
public struct OutputErrorMessage: ViewfinderMessage {
    /// `viewfinder/output-error`.
    public static let structureName = "viewfinder/output-error"
    /// The stage whose output feeds the branch.
    public var stage: String
    /// The output's name (`snapshot`).
    public var output: String
    /// The element of the branch that posted the error.
    public var element: String
    /// GStreamer's error text.
    public var text: String

    /// Creates one.
    public init(stage: String, output: String, element: String, text: String) {
        self.stage = stage; self.output = output; self.element = element; self.text = text
    }

    /// Decodes a `viewfinder/output-error` structure.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        self.init(
            stage: try s.required(string: "stage"), output: try s.required(string: "output"),
            element: try s.required(string: "element"), text: try s.required(string: "text"))
    }

    /// The structure: stage, output, element, text (all strings).
    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("stage", .string(stage)), ("output", .string(output)),
                ("element", .string(element)), ("text", .string(text)),
            ])
    }
}

/// The branch fed by a stage's extra output was started again after an `OutputErrorMessage`:
/// `viewfinder/output-restarted, stage=cap, output=snapshot`.
public struct OutputRestartedMessage: ViewfinderMessage {
    /// `viewfinder/output-restarted`.
    public static let structureName = "viewfinder/output-restarted"
    /// The stage whose output feeds the branch.
    public var stage: String
    /// The output's name (`snapshot`).
    public var output: String

    /// Creates one.
    public init(stage: String, output: String) { self.stage = stage; self.output = output }

    /// Decodes a `viewfinder/output-restarted` structure.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        self.init(stage: try s.required(string: "stage"), output: try s.required(string: "output"))
    }

    /// The structure: stage, output (strings).
    public var structure: MessageStructure {
        MessageStructure(Self.structureName, [("stage", .string(stage)), ("output", .string(output))])
    }
}

/// A network output (a network sink of the description: srtsink, rtmp2sink...) lost its peer or has it back; the
/// rest of the run goes on meanwhile: `viewfinder/output, element=srtsink0, state=lost, text="..."` ...
/// `viewfinder/output, element=srtsink0, state=restored, outage=5.2, attempts=2`.
public struct NetworkOutputMessage: ViewfinderMessage {
    /// `viewfinder/output`.
    public static let structureName = "viewfinder/output"
    /// What happened to the output.
    public enum State: String, Sendable, CaseIterable {
        /// It lost its peer and keeps trying (its frames are dropped meanwhile).
        case lost
        /// It sends again.
        case restored
    }
    /// The sink element's name.
    public var element: String
    /// `lost` or `restored`.
    public var state: State
    /// Why, as the element said it (lost only).
    public var text: String
    /// Seconds since the loss (restored only).
    public var outage: Double
    /// Reconnect attempts the element reported meanwhile.
    public var attempts: Int

    /// Creates one.
    public init(element: String, state: State, text: String = "", outage: Double = 0, attempts: Int = 0) {
        self.element = element; self.state = state; self.text = text; self.outage = outage; self.attempts = attempts
    }

    /// Decodes a `viewfinder/output` structure; a state other than lost or restored is refused.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let raw = try s.required(string: "state")
        guard let state = State(rawValue: raw) else { throw MessageDecodingError("\(s.name): state '\(raw)' is neither lost nor restored") }
        self.init(
            element: try s.required(string: "element"), state: state, text: s.string("text") ?? "", outage: s.double("outage") ?? 0,
            attempts: Int(clamping: s.integer("attempts") ?? 0))
    }

    /// The structure: element, state, text, outage (s), attempts.
    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("element", .string(element)), ("state", .string(state.rawValue)), ("text", .string(text)), ("outage", .double(outage)),
                ("attempts", .int(Int32(clamping: attempts))),
            ])
    }
}
