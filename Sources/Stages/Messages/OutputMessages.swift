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
