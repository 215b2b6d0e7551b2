/// Why a trained cascade file could not be loaded: names the file and what was expected there.
public struct CascadeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Path of the offending file.
    public var file: String
    /// What was expected and what was found instead.
    public var reason: String

    /// Creates an error for `file`.
    public init(file: String, reason: String) { self.file = file; self.reason = reason }

    /// "cascade FILE: REASON".
    public var description: String { "cascade \(file): \(reason)" }
}
