import GStreamerKit

/// A message a stage or the host posts on the bus (`viewfinder/...`), as a typed value.
///
/// Each kind encodes itself to the GstStructure users see (`gst-launch-1.0 -m`, `viewfinder -m`) and
/// decodes from one; the two must round-trip (value -> structure -> value).
public protocol ViewfinderMessage: Sendable, Equatable {
    /// The structure name (`viewfinder/capture`).
    static var structureName: String { get }
    /// Decodes a structure of this kind; a missing or mistyped field is an error naming it.
    init(structure: MessageStructure) throws(MessageDecodingError)
    /// The structure posted on the bus.
    var structure: MessageStructure { get }
}

/// Why a structure did not decode to a typed message.
public struct MessageDecodingError: Error, Equatable, CustomStringConvertible {
    /// What was wrong ("viewfinder/capture: no string field 'event'").
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// An element message seen on a segment's bus: who posted it and its structure.
public struct BusMessage: Sendable, Equatable, CustomStringConvertible {
    /// The posting element's name.
    public var source: String
    /// The structure, parsed by GStreamer.
    public var structure: MessageStructure
    /// Creates one.
    public init(source: String, structure: MessageStructure) { self.source = source; self.structure = structure }

    /// The typed value, when the structure is of kind `M` and decodes.
    public func decode<M: ViewfinderMessage>(_ kind: M.Type) -> M? {
        guard structure.name == M.structureName else { return nil }
        return try? M(structure: structure)
    }

    /// `source: name, field=(type)value, ...` as `gst-launch-1.0 -m` prints it.
    public var description: String { "\(source): \(structure.text)" }
}

extension MessageStructure {
    /// Checks the structure name before decoding a `M`.
    public func expect<M: ViewfinderMessage>(_ kind: M.Type) throws(MessageDecodingError) {
        guard name == M.structureName else { throw MessageDecodingError("expected a '\(M.structureName)' structure, got '\(name)'") }
    }
    /// A required string field.
    public func required(string key: String) throws(MessageDecodingError) -> String {
        guard let v = string(key) else { throw MessageDecodingError("\(name): no string field '\(key)'") }
        return v
    }
    /// A required integer field (any integer type).
    public func required(integer key: String) throws(MessageDecodingError) -> Int64 {
        guard let v = integer(key) else { throw MessageDecodingError("\(name): no integer field '\(key)'") }
        return v
    }
    /// A required real field (integers accepted).
    public func required(double key: String) throws(MessageDecodingError) -> Double {
        guard let v = double(key) else { throw MessageDecodingError("\(name): no double field '\(key)'") }
        return v
    }
    /// A required boolean field.
    public func required(bool key: String) throws(MessageDecodingError) -> Bool {
        guard let v = bool(key) else { throw MessageDecodingError("\(name): no boolean field '\(key)'") }
        return v
    }
}
