import GStreamerKit
import Stages
import Synchronization
import Testing

/// A `StageContext` test double: records every push and posted message instead of reaching a pipeline.
final class RecordingContext: StageContext, @unchecked Sendable {
    /// One frame a stage pushed on an extra output.
    struct Push {
        /// The output it went to (`snapshot`).
        var output: String
        /// The frame's index in the stream.
        var index: Int
        /// The frame's presentation timestamp.
        var pts: UInt64?
        /// The frame itself (held as is: no extra GstBuffer reference, so no copy on a later write).
        var frame: VideoFrame
    }

    /// Anything sent on an extra output, in the order it was sent.
    enum Sent {
        /// A frame (see `pushes`).
        case frame(output: String, index: Int)
        /// Tags sent ahead of the next frame.
        case tags(output: String, TagList)
        /// A custom downstream event.
        case event(output: String, MessageStructure)
    }

    private struct Log {
        var pushes: [Push] = []
        var sent: [Sent] = []
        var messages: [MessageStructure] = []
    }

    let stageName: String
    /// What every push answers (false simulates an unlinked output).
    let pushResult: Bool
    private let log = Mutex(Log())

    init(stageName: String, pushResult: Bool = true) {
        self.stageName = stageName
        self.pushResult = pushResult
    }

    /// Frames pushed so far, in order.
    var pushes: [Push] { log.withLock { $0.pushes } }
    /// Frames, tags and events sent on outputs so far, in order.
    var sent: [Sent] { log.withLock { $0.sent } }
    /// Tag lists sent on `output`, in order.
    func tags(on output: String) -> [TagList] {
        sent.compactMap { if case .tags(let o, let t) = $0, o == output { return t }; return nil }
    }
    /// Messages posted so far, in order.
    var messages: [MessageStructure] { log.withLock { $0.messages } }
    /// Indexes of the frames pushed on `output`.
    func pushedIndexes(on output: String) -> [Int] { pushes.filter { $0.output == output }.map(\.index) }

    @discardableResult func push(_ frame: VideoFrame, on output: String) -> Bool {
        log.withLock {
            $0.pushes.append(Push(output: output, index: frame.index, pts: frame.pts, frame: frame))
            $0.sent.append(.frame(output: output, index: frame.index))
        }
        return pushResult
    }

    @discardableResult func push(_ tags: TagList, on output: String) -> Bool {
        log.withLock { $0.sent.append(.tags(output: output, tags)) }
        return pushResult
    }

    @discardableResult func push(event: MessageStructure, on output: String) -> Bool {
        log.withLock { $0.sent.append(.event(output: output, event)) }
        return pushResult
    }

    func post(_ message: MessageStructure) { log.withLock { $0.messages.append(message) } }
}

extension TagList {
    /// The string value of tag `name`, if present.
    func string(_ name: String) -> String? {
        for e in entries where e.tag == name { if case .string(let v) = e.value { return v } }
        return nil
    }
    /// The tag names in order.
    var names: [String] { entries.map(\.tag) }
}

extension MessageStructure {
    /// The value of field `key`, if present.
    func value(_ key: String) -> MessageStructure.Value? { fields.first { $0.0 == key }?.1 }
    /// The integer field `key`.
    func int(_ key: String) -> Int32? { if case .int(let v)? = value(key) { return v }; return nil }
    /// The unsigned 64-bit field `key`.
    func uint64(_ key: String) -> UInt64? { if case .uint64(let v)? = value(key) { return v }; return nil }
    /// The string field `key`.
    func string(_ key: String) -> String? { if case .string(let v)? = value(key) { return v }; return nil }
    /// The boolean field `key`.
    func bool(_ key: String) -> Bool? { if case .bool(let v)? = value(key) { return v }; return nil }
}

/// Pushes frames through one stage, like gst_check's GstHarness: no pipeline, no threads.
///
/// Each frame is built from a `VideoInfo` (black, or given bytes), processed, and its queued overlays
/// are captured and then blended, as the host's stage group does after the last stage.
final class StageHarness {
    /// One processed frame with the overlays the stage queued on it (before blending cleared them).
    struct Output {
        /// The frame, blended.
        var frame: VideoFrame
        /// The overlays the stage queued.
        var overlays: [OverlayComposition]
    }

    let stage: any Stage
    let context: RecordingContext
    /// Layout of the frames `feed` builds.
    var info: VideoInfo
    /// Index of the next frame fed.
    private(set) var nextIndex = 0
    /// Nanoseconds per frame at the layout's rate, rounded down (33_333_333 at 30 fps); frame i has pts i * this.
    var frameDuration: UInt64 { 1_000_000_000 * UInt64(info.fpsD) / UInt64(info.fpsN) }

    /// Makes the stage through `StageRegistry`, validating `assignments` like a description does.
    convenience init(kind: String, name: String? = nil, assignments: [(String, String)] = [], info: VideoInfo) throws {
        let name = name ?? "\(kind)0"
        try self.init(stage: StageRegistry.make(kind: kind, name: name, assignments: assignments), name: name, info: info)
    }

    /// Wraps a stage built by the test (e.g. a SnapshotStage with its own Triggers).
    init(stage: any Stage, name: String, info: VideoInfo, pushResult: Bool = true) throws {
        self.stage = stage
        self.context = RecordingContext(stageName: name, pushResult: pushResult)
        self.info = info
        try stage.open()
        try stage.configure(info)
    }

    /// Validated property values for `kind` (defaults filled in).
    static func values(kind: String, name: String, _ assignments: [(String, String)] = []) throws -> PropertyValues {
        let type = try #require(StageRegistry.type(of: kind))
        return try PropertyValues(specs: type.descriptor.properties, assignments: assignments, stage: name)
    }

    /// Switches the layout of the frames fed from now on (the stage is reconfigured).
    func renegotiate(_ newInfo: VideoInfo) throws {
        info = newInfo
        try stage.configure(newInfo)
    }

    /// Black bytes for `info`: Y=16 and U=V=128 for YUV, 0,0,0,255 for 4-byte RGB.
    static func blackBytes(_ info: VideoInfo) -> [UInt8] {
        if ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444"].contains(info.format) {
            var bytes = [UInt8](repeating: 128, count: info.size)
            for i in 0..<(info.planes > 1 ? info.offset(plane: 1) : info.size) { bytes[i] = 16 }
            return bytes
        }
        precondition(["RGBA", "BGRA", "RGBx", "BGRx"].contains(info.format), "no black for \(info.format)")
        return (0..<info.size).map { $0 % 4 == 3 ? 255 : 0 }
    }

    /// Feeds `count` black frames (or frames of `bytes`), stamped at the frame rate; returns them processed.
    @discardableResult func feed(_ count: Int = 1, bytes: [UInt8]? = nil) throws -> [Output] {
        let caps = try Caps(info.capsString)
        let pixels = bytes ?? Self.blackBytes(info)
        var out: [Output] = []
        for _ in 0..<count {
            let buffer = Buffer(bytes: pixels)
            buffer.pts = UInt64(nextIndex) * frameDuration
            buffer.duration = frameDuration
            let frame = VideoFrame(buffer: buffer, info: info, caps: caps, segment: Segment(), index: nextIndex)
            nextIndex += 1
            try stage.process(frame, context: context)
            let overlays = frame.overlays
            try frame.blendOverlays()
            out.append(Output(frame: frame, overlays: overlays))
        }
        return out
    }
}

/// Byte columns of an 8-bit plane, for checking drawn lines.
extension VideoFrame {
    /// The bytes at `x * bytesPerPixel + channel` of every row of `plane`.
    func column(_ x: Int, plane: Int = 0, bytesPerPixel: Int = 1, channel: Int = 0) throws -> [UInt8] {
        let p = try planeBytes(plane: plane)
        return (0..<p.rows).map { p.bytes[$0 * p.rowBytes + x * bytesPerPixel + channel] }
    }

    /// The bytes at `x * bytesPerPixel + channel` for every x of row `y` of `plane`.
    func row(_ y: Int, plane: Int = 0, bytesPerPixel: Int = 1, channel: Int = 0) throws -> [UInt8] {
        let p = try planeBytes(plane: plane)
        return (0..<info.width).map { p.bytes[y * p.rowBytes + $0 * bytesPerPixel + channel] }
    }
}
