import GStreamerKit

/// One thing that came out of an output of the stages under test, in the order it was sent.
public enum HarnessItem: Sendable {
    /// A frame: pushed on an extra output (shared with the stage, as the host's appsrc shares it), or
    /// the processed frame on the main output (overlays blended).
    case frame(VideoFrame)
    /// Tags sent ahead of the next frame (a TAG event).
    case tags(TagList)
    /// A custom downstream event.
    case event(MessageStructure)
    /// End of stream (sent on every output by `StageHarness.endOfStream()`).
    case endOfStream

    /// The frame, if this item is one.
    public var frame: VideoFrame? { if case .frame(let f) = self { return f }; return nil }
    /// The tags, if this item is a tag event.
    public var tags: TagList? { if case .tags(let t) = self { return t }; return nil }
    /// The event's structure, if this item is a custom event.
    public var event: MessageStructure? { if case .event(let e) = self { return e }; return nil }
    /// True for the end-of-stream marker.
    public var isEndOfStream: Bool { if case .endOfStream = self { return true }; return false }

    /// A short name of the item's kind (`frame`, `tags`, `event`, `eos`), for asserting orders.
    public var kind: String {
        switch self {
        case .frame: "frame"
        case .tags: "tags"
        case .event: "event"
        case .endOfStream: "eos"
        }
    }
}
