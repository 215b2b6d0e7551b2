import GStreamerKit

/// A named pipeline of `viewfinder serve` changing state, announced by the process (not posted by an element), so
/// the overview's event clients and MQTT see cameras start, fail, wait for a restart and end:
/// `viewfinder/pipeline, name=door, state=restarting, error="...", retry-in=2.0, restarts=1`.
public struct PipelineMessage: ViewfinderMessage {
    /// `viewfinder/pipeline`.
    public static let structureName = "viewfinder/pipeline"
    /// Where a named pipeline is.
    public enum State: String, Sendable, CaseIterable {
        /// Its session is being built and started.
        case starting
        /// Its pipelines play.
        case playing
        /// End-of-stream was asked for (stop, restart, delete); it drains.
        case stopping
        /// It ended with an error and starts again in `retry-in` s.
        case restarting
        /// It ended with end-of-stream and stays ended (unless its settings ask for restarts).
        case ended
        /// It cannot start (its description or settings no longer build); it waits for a start or a change.
        case failed
        /// Stopped by a user; it waits for a start.
        case stopped
        /// Deleted: its recordings are finalised and it is gone.
        case removed
    }
    /// The pipeline's name.
    public var name: String
    /// Its new state.
    public var state: State
    /// Why it ended (restarting, failed); empty otherwise.
    public var error: String
    /// Seconds until the next start (restarting); 0 otherwise.
    public var retryIn: Double
    /// Restarts after errors so far.
    public var restarts: Int

    /// Creates one.
    public init(name: String, state: State, error: String = "", retryIn: Double = 0, restarts: Int = 0) {
        self.name = name; self.state = state; self.error = error; self.retryIn = retryIn; self.restarts = restarts
    }

    /// Decodes a `viewfinder/pipeline` structure; an unknown state is refused.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let text = try s.required(string: "state")
        guard let state = State(rawValue: text) else {
            throw MessageDecodingError("\(s.name): state '\(text)' is none of \(State.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.init(
            name: try s.required(string: "name"), state: state, error: s.string("error") ?? "",
            retryIn: try s.required(double: "retry-in"), restarts: Int(try s.required(integer: "restarts")))
    }

    /// The structure: every field, always.
    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("name", .string(name)), ("state", .string(state.rawValue)), ("error", .string(error)), ("retry-in", .double(retryIn)),
                ("restarts", .int(Int32(clamping: restarts))),
            ])
    }
}
