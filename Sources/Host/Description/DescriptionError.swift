/// A mistake in a pipeline description, an override or a pipeline file, naming the offending token.
public struct DescriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The full human message: the offending token and what was expected instead.
    public var message: String
    /// The offending token as written by the user.
    public var token: String
    /// Character offset of the token in the description, or -1 when it has no position.
    public var offset: Int

    /// Creates an error from its message, offending token and offset.
    public init(message: String, token: String, offset: Int = -1) {
        self.message = message
        self.token = token
        self.offset = offset
    }

    /// The message, so `print(error)` shows what went wrong.
    public var description: String { message }
}
