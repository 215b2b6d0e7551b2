import FrameAnalysis
import GStreamerKit
import Synchronization
import Timing

/// Pushes the current clean frame on its `snapshot` output when triggered.
///
/// Triggers (`ShotSchedule`): every `interval` seconds of stream time (the first frame included), the
/// frame numbers in `at`, and — when `manual` is on — SIGUSR1 or the `s` key on a terminal. The frame is
/// the one the stage sees, before any overlay of its group is blended, so photos stay clean.
///
/// Threads: `process` runs on the group's worker, `update` on any thread. One lock (`state`).
public final class SnapshotStage: Stage {
    /// The schedule's properties, with snapshot's blurbs.
    static let schedule = ShotSchedule.Keys(
        interval: "Seconds of stream time between automatic snapshots (0: off)",
        at: "Frame numbers (from 0) to snapshot, comma-separated",
        maxShots: "Stop after this many snapshots (0: no limit)",
        quality: "JPEG quality of the default branch")
    /// `location`: the default branch's multifilesink pattern.
    static let location = Property(
        "location", "Files written by the default branch when 'snapshot' is not linked (multifilesink pattern)",
        .string, default: "snapshot-%05d.jpg")

    /// Its one extra output.
    public enum Output: String, StageOutputName {
        /// The clean frame at each trigger.
        case snapshot
    }

    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "snapshot",
        blurb: "Sends the clean current frame to its 'snapshot' output on SIGUSR1, the 's' key, an interval or frame numbers",
        properties: [
            schedule.interval.spec, schedule.at.spec, schedule.manual.spec, schedule.maxShots.spec, location.spec, schedule.quality.spec,
        ],
        outputs: [OutputSpec(Output.snapshot, "the clean frame at each trigger, with its timestamps")],
        formats: ["ANY"])

    private struct State { var schedule: ShotSchedule; var shots = 0 }
    private let location: String
    private let state: Mutex<State>
    private let triggers: Triggers

    /// Creates the stage listening to the process-wide triggers.
    public convenience init(name: String, properties: PropertyValues) throws(StageError) {
        try self.init(name: name, properties: properties, triggers: .shared)
    }

    /// Creates the stage listening to `triggers` (tests pass their own).
    public init(name: String, properties p: PropertyValues, triggers: Triggers) throws(StageError) {
        location = p[Self.location]
        self.triggers = triggers
        state = Mutex(State(schedule: ShotSchedule(p, keys: Self.schedule, triggers: triggers)))
    }

    /// Snapshots taken so far.
    public var shots: Int { state.withLock { $0.shots } }

    /// The default branch: `queue ! jpegenc ! jifmux ! multifilesink location=...` (jifmux writes the EXIF tags).
    public func defaultBranch(for output: String) -> String? {
        let quality = state.withLock { $0.schedule.quality }
        return "queue ! jpegenc quality=\(quality) ! jifmux ! multifilesink location=\(Pipeline.quoted(location)) post-messages=true"
    }

    /// Changes interval, manual or max-shots while playing.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        let known = try state.withLock { (st: inout State) throws(StageError) in
            try st.schedule.update(property, value: value, keys: Self.schedule, stage: "snapshot")
        }
        guard known else { throw StageError(.usage, "snapshot: property '\(property)' cannot change while playing") }
    }

    /// Decides whether this frame is a snapshot and pushes it.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let fired = triggers.count
        let shot: (number: Int, reason: CaptureTrigger)? = state.withLock { st in
            guard let reason = st.schedule.due(frame: frame.index, time: frame.pts, fired: fired, shots: st.shots, firstOnly: true).first
            else { return nil }
            st.shots += 1
            if let t = frame.pts { st.schedule.startIntervalClock(at: t) }
            return (st.shots, reason)
        }
        guard let shot else { return }
        // Tags first: jifmux (default branch) turns them into EXIF for this very frame.
        let pushed = ShotSender.send(
            frame,
            tags: ShotSender.tags(
                description: "Viewfinder snapshot \(shot.number) by \(context.stageName) (\(shot.reason.rawValue)) at frame \(frame.index)",
                date: context.clock.wallNow),
            on: Output.snapshot, context: context)
        context.post(
            SnapshotMessage(
                stage: context.stageName, shot: shot.number, frame: UInt64(frame.index),
                pts: frame.pts ?? UInt64.max, reason: shot.reason, pushed: pushed
            ).structure)
    }
}

extension SnapshotStage: StageMetrics {
    /// `viewfinder_photos_total`: snapshots sent to the `snapshot` output so far.
    public var metricSamples: [MetricSample] { [.photos(shots)] }
}
