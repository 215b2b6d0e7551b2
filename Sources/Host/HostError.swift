/// An error that stops the host, with the exit code it maps to.
public struct HostError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Usage errors are found before anything runs (exit 2); runtime errors after start (exit 1).
    public enum Kind: Sendable { case usage, runtime }
    /// Usage or runtime.
    public var kind: Kind
    /// A message naming the token or element and what was expected.
    public var message: String
    /// Creates an error.
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    /// The process exit code for this error.
    public var exitCode: Int32 { kind == .usage ? 2 : 1 }
    /// The message.
    public var description: String { message }
}
