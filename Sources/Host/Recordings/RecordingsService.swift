import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// The `recordings` elements of a session (one `Recorder` each) and their retention while they record.
///
/// Hooks: `willPlay` makes each directory, rebuilds its index and starts the sweeper; `elementMessage` takes
/// splitmuxsink's `splitmuxsink-fragment-opened` / `-closed` (element messages of any element reach every service:
/// the bus loop records them) and asks for a sweep at each close; `poll` hands the deletions to the bus loop as
/// `viewfinder/recordings` messages (recorded: printed with `-m`, to event clients and MQTT, not to stages);
/// `runEnded` stops the sweeper, marks nothing open, sweeps once more and writes the indexes (what that last sweep
/// deletes is logged and counted, but not recorded as a message: the bus loop has ended).
///
/// The sweeper is one thread that sweeps every recorder each `sweepInterval` seconds of the session's clock (a
/// `ManualClock` in tests) and at once when a segment closes.
///
/// Threads and locks: hooks on the session's and the bus loop's threads; the sweeper on its own; `poke` and `stop`
/// under one mutex; each recorder has its own locks (see `Recorder`).
public final class RecordingsService: SessionService, @unchecked Sendable {
    public let name = RecordingsElement.factory
    /// One per element, in description order.
    public let recorders: [Recorder]
    /// Seconds between two sweeps without a close: the shortest segment, at least 1 s, at most 60 s.
    public let sweepInterval: Double
    private let clock: any HostClock
    /// The wakeup of the sweeper's current sleep, whether a sweep is asked for, whether it must end.
    private let control = Mutex<(wakeup: Wakeup, poked: Bool, stopping: Bool)>((Wakeup(), false, false))
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// Sweeps done (tests wait for it).
    private let sweeps = Atomic<Int>(0)

    init(recorders: [Recorder], clock: any HostClock) {
        self.recorders = recorders
        self.clock = clock
        sweepInterval = Double(min(60, max(1, recorders.map(\.plan.segment).min() ?? 60)))
    }

    /// The recorder of the element named `name`.
    public func recorder(named name: String) -> Recorder? { recorders.first { $0.plan.name == name } }

    // MARK: hooks

    public func willPlay(_ session: Session) { start() }

    /// Opens every recorder and starts the sweeper (at most once).
    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        for r in recorders { r.open() }
        WorkerThread.start("vf-recordings") { [self] in run() }
    }

    public func elementMessage(_ message: BusMessage) {
        for r in recorders where r.take(message) {
            if message.structure.name == "splitmuxsink-fragment-closed" { poke() }
        }
    }

    public func poll(_ out: inout ServicePoll) {
        for r in recorders {
            for m in r.drainMessages() { out.record.append((BusMessage(source: r.plan.name, structure: m.structure), toStages: false)) }
        }
    }

    public func runEnded() { stop() }

    /// Stops the sweeper (waits for it), then each recorder's last sweep and index.
    func stop() {
        guard started.load(ordering: .relaxed) else { return }
        let wakeup = control.withLock { c -> Wakeup in
            c.stopping = true
            return c.wakeup
        }
        wakeup.signal()
        _ = finished.wait(timeout: .now() + 10)
        for r in recorders {
            r.finish()
            r.sweep()
        }
    }

    public var startLines: [String] {
        recorders.map { r in
            "recordings: \(r.plan.name) -> \(SegmentName.pattern(directory: r.plan.directory, format: r.plan.format)) from index \(r.startIndex) (\(r.plan.limitsText))"
        }
    }

    public var reportLines: [String] {
        recorders.map { r in
            let (segments, _) = r.snapshot
            let total = segments.reduce(Int64(0)) { $0 + $1.bytes }
            let (byReason, bytes) = r.deletions
            let deleted = byReason.values.reduce(0, +)
            let detail =
                byReason.isEmpty
                ? ""
                : " ("
                    + byReason.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
                    + ")"
            return
                "recordings \(r.plan.name): \(segments.count) segments, \(total) bytes in \(r.plan.directory); deleted \(deleted)\(detail), \(bytes) bytes"
        }
    }

    /// `viewfinder_recording_bytes{element}` (the segments on disk now) and `viewfinder_recording_segments{element}`.
    public var metricSamples: [MetricSample] {
        recorders.flatMap { r -> [MetricSample] in
            let segments = r.snapshot.segments
            return [
                MetricSample(
                    "viewfinder_recording_bytes", .gauge, help: "Bytes a recordings element's segments take on disk now",
                    labels: [("element", r.plan.name)], value: Double(segments.reduce(Int64(0)) { $0 + $1.bytes })),
                MetricSample(
                    "viewfinder_recording_segments", .gauge, help: "Segments a recordings element's index lists now",
                    labels: [("element", r.plan.name)], value: Double(segments.count)),
            ]
        }
    }

    // MARK: the sweeper

    /// Asks for a sweep now.
    func poke() {
        let wakeup = control.withLock { c -> Wakeup in
            c.poked = true
            return c.wakeup
        }
        wakeup.signal()
    }

    /// Sweeps done so far.
    public var sweepCount: Int { sweeps.load(ordering: .relaxed) }

    private func run() {
        defer { finished.signal() }
        var next = clock.now + sweepInterval
        while true {
            // A fresh wakeup for this sleep, unless a sweep is asked for already (a poke signals the current one).
            let (wakeup, asked, stopping) = control.withLock { c -> (Wakeup, Bool, Bool) in
                if !c.poked && !c.stopping { c.wakeup = Wakeup() }
                return (c.wakeup, c.poked, c.stopping)
            }
            if stopping { return }
            if !asked { _ = clock.sleep(until: next, unlessSignalled: wakeup) }
            let (poked, stop) = control.withLock { c -> (Bool, Bool) in
                defer { c.poked = false }
                return (c.poked, c.stopping)
            }
            if stop { return }
            guard poked || clock.now >= next else { continue }
            for r in recorders { r.sweep() }
            sweeps.add(1, ordering: .relaxed)
            next = clock.now + sweepInterval
        }
    }
}
