/// An error raised by a stage; `usage` errors are found before anything runs (exit 2).
public struct StageError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Where the problem lies, like GStreamer's error domains.
    public enum Domain: String, Sendable { case usage, stream, resource, library }
    /// The domain.
    public var domain: Domain
    /// A full message naming the stage, the token and what was expected.
    public var message: String
    /// Creates an error.
    public init(_ domain: Domain, _ message: String) { self.domain = domain; self.message = message }
    /// The message.
    public var description: String { message }
}
