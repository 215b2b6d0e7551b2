import GStreamerKit

/// A `recordings` element's retention (or a delete through the control API) removed one of its segments, or could
/// not: `viewfinder/recordings, event=deleted, element=rec, file=REC_00003.mp4, bytes=1048576, reason=size, text=""`.
/// Posted by the host, not a stage.
public struct RecordingsMessage: ViewfinderMessage {
    /// `viewfinder/recordings`.
    public static let structureName = "viewfinder/recordings"
    /// What happened to the segment.
    public enum Event: String, Sendable, CaseIterable {
        /// It was removed.
        case deleted
        /// Removing it failed (`text` says why); it stays, the run goes on.
        case deleteFailed = "delete-failed"
    }
    /// Why it was (to be) removed.
    public enum Reason: String, Sendable, CaseIterable {
        /// Older than `max-age` (its end, the file's modification time, against the host's wall clock).
        case age
        /// The element's segments together were larger than `max-size` (the oldest go first).
        case size
        /// Asked for: `DELETE /api/recordings/NAME/FILE`.
        case request
    }
    /// `deleted` or `delete-failed`.
    public var event: Event
    /// The `recordings` element's name.
    public var element: String
    /// The segment's file name (in the element's directory).
    public var file: String
    /// Its size in bytes when it was (to be) removed.
    public var bytes: Int64
    /// Why.
    public var reason: Reason
    /// Why the removal failed (`delete-failed` only), else empty.
    public var text: String

    /// Creates one.
    public init(event: Event, element: String, file: String, bytes: Int64, reason: Reason, text: String = "") {
        self.event = event; self.element = element; self.file = file; self.bytes = bytes; self.reason = reason; self.text = text
    }

    /// Decodes a `viewfinder/recordings` structure; an unknown event or reason is refused, naming it.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let rawEvent = try s.required(string: "event")
        guard let event = Event(rawValue: rawEvent) else {
            throw MessageDecodingError(
                "\(s.name): event '\(rawEvent)': expected \(Event.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        let rawReason = try s.required(string: "reason")
        guard let reason = Reason(rawValue: rawReason) else {
            throw MessageDecodingError(
                "\(s.name): reason '\(rawReason)': expected \(Reason.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.init(
            event: event, element: try s.required(string: "element"), file: try s.required(string: "file"),
            bytes: try s.required(integer: "bytes"), reason: reason, text: s.string("text") ?? "")
    }

    /// The structure: event, element, file, bytes (guint64), reason, text.
    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("event", .string(event.rawValue)), ("element", .string(element)), ("file", .string(file)),
                ("bytes", .uint64(UInt64(max(0, bytes)))), ("reason", .string(reason.rawValue)), ("text", .string(text)),
            ])
    }
}
