import FrameAnalysis
import GStreamerKit

/// A `viewfinder/snapshot` element message: the `snapshot` stage took a shot.
///
/// Fields on the bus, in this order: `stage`, `shot`, `frame`, `pts`, `reason`, `pushed`.
public struct SnapshotMessage: ViewfinderMessage {
    /// `viewfinder/snapshot`.
    public static let structureName = "viewfinder/snapshot"

    /// The stage instance's name.
    public var stage: String
    /// The shot's number, from 1.
    public var shot: Int
    /// The frame's number in the stream, from 0.
    public var frame: UInt64
    /// The frame's pts (ns), `UInt64.max` when it has none.
    public var pts: UInt64
    /// What triggered it: manual, at or interval.
    public var reason: CaptureTrigger
    /// Whether the frame went down the `snapshot` output (false: not linked, or stopped).
    public var pushed: Bool

    /// A message with these fields.
    public init(stage: String, shot: Int, frame: UInt64, pts: UInt64, reason: CaptureTrigger, pushed: Bool) {
        self.stage = stage; self.shot = shot; self.frame = frame; self.pts = pts; self.reason = reason; self.pushed = pushed
    }

    /// The structure posted on the bus.
    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("stage", .string(stage)), ("shot", .int(Int32(clamping: shot))), ("frame", .uint64(frame)),
                ("pts", .uint64(pts)), ("reason", .string(reason.rawValue)), ("pushed", .bool(pushed)),
            ])
    }

    /// Decodes a `viewfinder/snapshot` structure; a missing field or an unknown reason is an error.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let reasonText = try s.required(string: "reason")
        guard let reason = CaptureTrigger(rawValue: reasonText) else {
            throw MessageDecodingError("\(Self.structureName): unknown reason '\(reasonText)'")
        }
        self.init(
            stage: try s.required(string: "stage"), shot: Int(try s.required(integer: "shot")),
            frame: UInt64(bitPattern: try s.required(integer: "frame")), pts: UInt64(bitPattern: try s.required(integer: "pts")),
            reason: reason, pushed: try s.required(bool: "pushed"))
    }
}
