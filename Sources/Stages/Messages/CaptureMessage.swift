import FrameAnalysis
import GStreamerKit

/// A `viewfinder/capture` element message: what the `capture` stage did or decided.
///
/// The fields and their order on the bus are those `gst-launch-1.0 -m` users and the tests read:
/// `event` first, then the fields of that event kind.
public struct CaptureMessage: ViewfinderMessage {
    /// `viewfinder/capture`.
    public static let structureName = "viewfinder/capture"

    /// What happened.
    public enum Event: Sendable, Equatable {
        /// The state, its reason or the readiness changed (`pts`: of the frame it changed on, `UInt64.max` unknown).
        case state(CapturePhase, reason: String, readiness: CaptureReadiness, shots: Int, pending: Int, pts: UInt64)
        /// A frame was chosen and pushed down `snapshot` (`score` -1: no analysis of it).
        case capture(
            number: Int, trigger: CaptureTrigger, pts: UInt64, frame: UInt64, score: Double,
            width: Int, height: Int, state: CapturePhase, readiness: CaptureReadiness)
        /// A photo's files are in place (and indexed).
        case saved(number: Int, file: String?)
        /// A capture or a save failed (`number` nil: before a photo number was given).
        case error(number: Int?, file: String?, reason: String)
        /// A trigger was refused (`trigger` nil: an auto capture or any trigger while busy).
        case refused(trigger: CaptureTrigger?, reason: String, readiness: CaptureReadiness?)
        /// The self-timer was armed: it fires at `firesAt` (running time, ns).
        case timer(trigger: CaptureTrigger, seconds: Int, firesAt: UInt64)
        /// Something the user should know (index repaired, no compose meta).
        case warning(String)
    }

    /// The event and its fields.
    public var event: Event

    /// A message of `event`.
    public init(_ event: Event) { self.event = event }

    /// The structure posted on the bus.
    public var structure: MessageStructure {
        var f: [(String, MessageStructure.Value)]
        switch event {
        case .state(let phase, let reason, let readiness, let shots, let pending, let pts):
            f = [
                ("event", .string("state")), ("state", .string(phase.rawValue)), ("reason", .string(reason)),
                ("readiness", .string(readiness.rawValue)), ("shots", .int(Int32(clamping: shots))),
                ("pending", .int(Int32(clamping: pending))), ("pts", .uint64(pts)),
            ]
        case .capture(let number, let trigger, let pts, let frame, let score, let width, let height, let state, let readiness):
            f = [
                ("event", .string("capture")), ("number", .int(Int32(clamping: number))), ("trigger", .string(trigger.rawValue)),
                ("pts", .uint64(pts)), ("frame", .uint64(frame)), ("score", .double(score)),
                ("width", .int(Int32(clamping: width))), ("height", .int(Int32(clamping: height))),
                ("state", .string(state.rawValue)), ("readiness", .string(readiness.rawValue)),
            ]
        case .saved(let number, let file):
            f = [("event", .string("saved")), ("number", .int(Int32(clamping: number)))]
            if let file { f.append(("file", .string(file))) }
        case .error(let number, let file, let reason):
            f = [("event", .string("error"))]
            if let number { f.append(("number", .int(Int32(clamping: number)))) }
            if let file { f.append(("file", .string(file))) }
            f.append(("reason", .string(reason)))
        case .refused(let trigger, let reason, let readiness):
            f = [("event", .string("refused"))]
            if let trigger { f.append(("trigger", .string(trigger.rawValue))) }
            f.append(("reason", .string(reason)))
            if let readiness { f.append(("readiness", .string(readiness.rawValue))) }
        case .timer(let trigger, let seconds, let firesAt):
            f = [
                ("event", .string("timer")), ("trigger", .string(trigger.rawValue)),
                ("seconds", .int(Int32(clamping: seconds))), ("fires-at", .uint64(firesAt)),
            ]
        case .warning(let text):
            f = [("event", .string("warning")), ("text", .string(text))]
        }
        return MessageStructure(Self.structureName, f)
    }

    /// Decodes a `viewfinder/capture` structure; an unknown event or a missing field is an error.
    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let kind = try s.required(string: "event")
        func int(_ key: String) throws(MessageDecodingError) -> Int { Int(try s.required(integer: key)) }
        func u64(_ key: String) throws(MessageDecodingError) -> UInt64 { UInt64(bitPattern: try s.required(integer: key)) }
        func word<W: RawRepresentable>(_ key: String, as _: W.Type) throws(MessageDecodingError) -> W where W.RawValue == String {
            let text = try s.required(string: key)
            guard let w = W(rawValue: text) else { throw MessageDecodingError("\(Self.structureName): unknown \(key) '\(text)'") }
            return w
        }
        func optional<W: RawRepresentable>(_ key: String, as _: W.Type) throws(MessageDecodingError) -> W? where W.RawValue == String {
            s[key] == nil ? nil : try word(key, as: W.self)
        }
        switch kind {
        case "state":
            event = .state(
                try word("state", as: CapturePhase.self), reason: try s.required(string: "reason"),
                readiness: try word("readiness", as: CaptureReadiness.self), shots: try int("shots"),
                pending: try int("pending"), pts: try u64("pts"))
        case "capture":
            event = .capture(
                number: try int("number"), trigger: try word("trigger", as: CaptureTrigger.self), pts: try u64("pts"),
                frame: try u64("frame"), score: try s.required(double: "score"), width: try int("width"),
                height: try int("height"), state: try word("state", as: CapturePhase.self),
                readiness: try word("readiness", as: CaptureReadiness.self))
        case "saved":
            event = .saved(number: try int("number"), file: s.string("file"))
        case "error":
            event = .error(number: s.integer("number").map { Int($0) }, file: s.string("file"), reason: try s.required(string: "reason"))
        case "refused":
            event = .refused(
                trigger: try optional("trigger", as: CaptureTrigger.self), reason: try s.required(string: "reason"),
                readiness: try optional("readiness", as: CaptureReadiness.self))
        case "timer":
            event = .timer(trigger: try word("trigger", as: CaptureTrigger.self), seconds: try int("seconds"), firesAt: try u64("fires-at"))
        case "warning":
            event = .warning(try s.required(string: "text"))
        default:
            throw MessageDecodingError("\(Self.structureName): unknown event '\(kind)'")
        }
    }
}
