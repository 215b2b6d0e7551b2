import GStreamerKit
import Stages

/// `viewfinder/clip`: what a clip recorder (`clips`) did. Fields, in order: `event` (`opened`: a clip was begun;
/// `saved`: its file is complete and listed; `error`: it failed, `reason` says why), `element` (the recorder's name),
/// `id`, `file` (relative to `directory`), then for `opened` and `saved` the `trigger`, `start-pts` and `end-pts` (ns)
/// and for `saved` `duration` (s), `frames`, `bytes` and `url` (the file's path on the control server, under its
/// mount), and `notes` (`; `-joined, when there are any).
public struct ClipMessage: ViewfinderMessage {
    public static let structureName = "viewfinder/clip"

    public enum Event: String, Sendable, Equatable { case opened, saved, error }
    public var event: Event
    public var element: String
    public var id: Int
    public var file: String
    public var trigger: String?
    public var startPts: UInt64?
    public var endPts: UInt64?
    public var duration: Double?
    public var frames: Int?
    public var bytes: Int?
    public var url: String?
    public var reason: String?
    public var notes: [String]

    public init(
        _ event: Event, element: String, id: Int, file: String, trigger: String? = nil, startPts: UInt64? = nil, endPts: UInt64? = nil,
        duration: Double? = nil, frames: Int? = nil, bytes: Int? = nil, url: String? = nil, reason: String? = nil, notes: [String] = []
    ) {
        self.event = event; self.element = element; self.id = id; self.file = file; self.trigger = trigger; self.startPts = startPts
        self.endPts = endPts; self.duration = duration; self.frames = frames; self.bytes = bytes; self.url = url; self.reason = reason
        self.notes = notes
    }

    public var structure: MessageStructure {
        var f: [(String, MessageStructure.Value)] = [
            ("event", .string(event.rawValue)), ("element", .string(element)), ("id", .int(Int32(clamping: id))), ("file", .string(file)),
        ]
        if let trigger { f.append(("trigger", .string(trigger))) }
        if let startPts { f.append(("start-pts", .uint64(startPts))) }
        if let endPts { f.append(("end-pts", .uint64(endPts))) }
        if let duration { f.append(("duration", .double(duration))) }
        if let frames { f.append(("frames", .int(Int32(clamping: frames)))) }
        if let bytes { f.append(("bytes", .uint64(UInt64(max(0, bytes))))) }
        if let url { f.append(("url", .string(url))) }
        if let reason { f.append(("reason", .string(reason))) }
        if !notes.isEmpty { f.append(("notes", .string(notes.joined(separator: "; ")))) }
        return MessageStructure(Self.structureName, f)
    }

    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        let kind = try s.required(string: "event")
        guard let e = Event(rawValue: kind) else { throw MessageDecodingError("\(Self.structureName): unknown event '\(kind)'") }
        event = e
        element = try s.required(string: "element")
        id = Int(try s.required(integer: "id"))
        file = try s.required(string: "file")
        trigger = s.string("trigger")
        startPts = s.integer("start-pts").map { UInt64(bitPattern: $0) }
        endPts = s.integer("end-pts").map { UInt64(bitPattern: $0) }
        duration = s.double("duration")
        frames = s.integer("frames").map { Int($0) }
        bytes = s.integer("bytes").map { Int($0) }
        url = s.string("url")
        reason = s.string("reason")
        notes = s.string("notes").map { $0.components(separatedBy: "; ") } ?? []
    }
}
