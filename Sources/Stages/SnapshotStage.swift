import GStreamerKit
import Synchronization

/// Pushes the current clean frame on its `snapshot` output when triggered.
///
/// Triggers: every `interval` seconds of stream time (the first frame included), the frame numbers
/// in `at`, and — when `manual` is on — SIGUSR1 or the `s` key on a terminal. The frame is the one
/// the stage sees, before any overlay of its group is blended, so photos stay clean.
public final class SnapshotStage: Stage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "snapshot",
        blurb: "Sends the clean current frame to its 'snapshot' output on SIGUSR1, the 's' key, an interval or frame numbers",
        properties: [
            PropertySpec("interval", "Seconds of stream time between automatic snapshots (0: off)", .double(0...86_400), default: "0", mutability: .playing),
            PropertySpec("at", "Frame numbers (from 0) to snapshot, comma-separated", .intList, default: ""),
            PropertySpec("manual", "React to SIGUSR1 and to the 's' key when stdin is a terminal", .bool, default: "true", mutability: .playing),
            PropertySpec("max-shots", "Stop after this many snapshots (0: no limit)", .int(0...1_000_000), default: "0", mutability: .playing),
            PropertySpec("location", "Files written by the default branch when 'snapshot' is not linked (multifilesink pattern)", .string, default: "snapshot-%05d.jpg"),
            PropertySpec("quality", "JPEG quality of the default branch", .int(1...100), default: "90"),
        ],
        outputs: [OutputSpec("snapshot", "the clean frame at each trigger, with its timestamps")],
        formats: ["ANY"])

    // Lock order: settings, then state.
    private struct Settings { var interval: Double; var at: [Int]; var manual: Bool; var maxShots: Int; var location: String; var quality: Int }
    private struct State { var lastShot: UInt64?; var seenTriggers: Int; var shots = 0; var nextAt = 0 }
    private let settings: Mutex<Settings>
    private let state: Mutex<State>
    private let triggers: Triggers

    /// Creates the stage listening to the process-wide triggers.
    public convenience init(name: String, properties: PropertyValues) throws(StageError) {
        try self.init(name: name, properties: properties, triggers: .shared)
    }

    /// Creates the stage listening to `triggers` (tests pass their own).
    public init(name: String, properties p: PropertyValues, triggers: Triggers) throws(StageError) {
        settings = Mutex(Settings(interval: p.double("interval"), at: p.intList("at"), manual: p.bool("manual"),
                                  maxShots: p.int("max-shots"), location: p.string("location"), quality: p.int("quality")))
        self.triggers = triggers
        state = Mutex(State(seenTriggers: triggers.count))
    }

    /// Snapshots taken so far.
    public var shots: Int { state.withLock { $0.shots } }

    /// The default branch: `queue ! jpegenc ! jifmux ! multifilesink location=...` (jifmux writes the EXIF tags).
    public func defaultBranch(for output: String) -> String? {
        let s = settings.withLock { $0 }
        return "queue ! jpegenc quality=\(s.quality) ! jifmux ! multifilesink location=\(Pipeline.quoted(s.location)) post-messages=true"
    }

    /// Changes interval, manual or max-shots while playing.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        try settings.withLock { (s: inout Settings) throws(StageError) in
            switch (property, value) {
            case ("interval", .double(let d)): s.interval = d
            case ("manual", .bool(let b)): s.manual = b
            case ("max-shots", .int(let i)): s.maxShots = i
            default: throw StageError(.usage, "snapshot: property '\(property)' cannot change while playing")
            }
        }
    }

    /// Decides whether this frame is a snapshot and pushes it.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        let fired = triggers.count
        let reason: String? = state.withLock { st in
            defer { st.seenTriggers = fired }
            if s.maxShots > 0 && st.shots >= s.maxShots { return nil }
            if s.manual && fired != st.seenTriggers { return "manual" }
            while st.nextAt < s.at.count && s.at[st.nextAt] < frame.index { st.nextAt += 1 }
            if st.nextAt < s.at.count && s.at[st.nextAt] == frame.index { st.nextAt += 1; return "at" }
            if s.interval > 0, let t = frame.pts {
                // 1 ms slack so 30 fps timestamps (33.333 ms) land on whole seconds.
                if let last = st.lastShot, Double(t) + 1e6 < Double(last) + s.interval * 1e9 { return nil }
                return "interval"
            }
            return nil
        }
        guard let reason else { return }
        let shot = state.withLock { st -> Int in
            st.shots += 1
            if let t = frame.pts, reason == "interval" || st.lastShot == nil { st.lastShot = t }
            return st.shots
        }
        // Tags first: jifmux (default branch) turns them into EXIF for this very frame.
        let pushed = ShotSender.send(frame, tags: ShotSender.tags(description: "Viewfinder snapshot \(shot) by \(context.stageName) (\(reason)) at frame \(frame.index)"),
                                     on: "snapshot", context: context)
        context.post(MessageStructure("viewfinder/snapshot", [
            ("stage", .string(context.stageName)), ("shot", .int(Int32(shot))), ("frame", .uint64(UInt64(frame.index))),
            ("pts", .uint64(frame.pts ?? UInt64.max)), ("reason", .string(reason)), ("pushed", .bool(pushed)),
        ]))
    }
}

import Foundation
