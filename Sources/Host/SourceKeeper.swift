import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Keeps a stream going when its source goes away (`--reconnect`): the source segment (everything before
/// the first stage group) may fail, end or fall silent while every segment after it keeps running on the
/// same clock.
///
/// Lost: the bus loop reports an error or an unexpected end-of-stream of the segment (`failed`), or no
/// frame reached the group's appsink for `stall` seconds while live. From then on the group gets
/// placeholder frames (`PlaceholderFrame`, GAP-flagged, the caps and rate of the last live frame, a
/// "signal lost, retrying in N s" slate blended through `OverlayComposition`): first a backfill from the
/// last live frame to now (so a recording has no hole), then one per frame duration, stamped with the
/// running time on the pipelines' clock. Attempts set the source segment to NULL and to PLAYING again
/// (same clock, same base time) after 1 s, doubling to 30 s, at most `attempts` times (0: for ever).
/// Restored: half a second of live frames passed the worker; they replace the slate (the worker drops any
/// whose running time is not after the last placeholder's). Each transition is a `SourceMessage` (handed to
/// the bus loop) and a line on stderr. The decisions are `SourceRecovery`'s; this class reads the group and
/// the pipeline, ticks, and makes the frames.
///
/// Two clocks: `clock` (a `HostClock`) times the ticks, the stall, the attempts and the outages; the
/// pipelines' GStreamer clock (`start(clock:baseTime:)`) stamps the placeholders, which must fit between live
/// frames.
///
/// Threads and locks: its own thread `vf-source-N` ticks every 10 ms of `clock` (stall check, placeholders,
/// attempts); each attempt's state changes run on a detached thread `vf-source-N-restart` (setting an
/// rtspsrc to NULL can wait for its teardown), at most one at a time; the bus loop calls `failed`,
/// `release`, `drainMessages` and reads `gaveUp`. One mutex, `state`, taken briefly by all of them, never held
/// while calling GStreamer except `lastArrival` (the hand-off's condition) and atomics; stderr lines are
/// written after it is released.
final class SourceKeeper: @unchecked Sendable {
    /// Timing of the attempts.
    struct Policy: Sendable {
        var stall: Double = 2
        var firstDelay: Double = 1
        var maxDelay: Double = 30
        /// 0: unlimited.
        var attempts: Int = 0
        /// The most placeholder time a backfill covers (s).
        var maxBackfill: Double = 5
        /// Seconds to wait for the first frame before the source counts as lost (connections take a while).
        var firstFrame: Double = 10
    }

    let segment: Int
    let pipeline: Pipeline
    let group: StageGroup
    /// The source element named in messages and on the slate (after a source switch, the new one's).
    var element: String { state.withLock { $0.element } }
    let policy: Policy
    /// Times the ticks, stalls, attempts and outages.
    let clock: any HostClock
    private let state: Mutex<SourceRecovery>
    private let stopFlag = Atomic<Bool>(false)
    /// Ends the tick thread's sleep at `release`.
    private let wakeup = Wakeup()
    /// The pipelines' clock and base time: placeholders are stamped on them.
    private var pipelineClock: Clock?
    private var baseTime: UInt64 = 0
    /// The group's input gate, installed by `start` (its counters are what "restored" is judged by).
    private(set) var gate: SourceGate?
    private let slate = SlateCache()
    /// The slate cache is used by the keeper's thread and the worker (`fill`).
    private let slateLock = Mutex(())

    init(
        segment: Int, pipeline: Pipeline, group: StageGroup, element: String, policy: Policy,
        clock: any HostClock = SystemClock.shared
    ) {
        self.segment = segment; self.pipeline = pipeline; self.group = group; self.policy = policy
        self.clock = clock
        state = Mutex(SourceRecovery(element: element, policy: policy, now: clock.now))
        pipeline.keepDynamicLinks()
    }

    /// Starts watching (after the pipelines play) with the pipelines' `clock` and `baseTime`: the group's
    /// appsink holds end-of-stream from now on.
    func start(clock: Clock, baseTime: UInt64) {
        pipelineClock = clock
        self.baseTime = baseTime
        let now = self.clock.now
        state.withLock { $0.start(at: now) }
        group.sink.holdEndOfStream(true)
        let gate = SourceGate { [weak self] after, before, caps, segment in self?.fill(after: after, before: before, caps: caps, segment: segment) ?? [] }
        self.gate = gate
        group.inputGate.withLock { $0 = gate }
        WorkerThread.start("vf-src-\(segment)") { [self] in tickLoop() }
    }

    /// The segment failed (an error) or ended (an end-of-stream nobody asked for): lost, unless already.
    /// An error while lost is the current attempt failing: noted on stderr, the schedule stands.
    func failed(_ reason: String) {
        let now = clock.now
        let passed = (gate?.livePassed.load(ordering: .relaxed) ?? 0)
        let (note, lines) = state.withLock { s in (s.failed(reason, at: now, passed: passed), s.drainLines()) }
        write(lines + (note.map { [$0] } ?? []))
    }

    /// The source segment's elements were replaced (`Session.switchSource`): `element` is the source named from now
    /// on. The keeper goes on watching the same segment: its restarts bring up the new elements.
    func sourceReplaced(by element: String) { state.withLock { $0.element = element } }

    /// The host's own messages since the last call (bus loop).
    func drainMessages() -> [SourceMessage] { state.withLock { $0.drainMessages() } }

    /// Where the source is, and its losses, restores and attempts so far (`GET /metrics`; any thread).
    var figures: (phase: SourceRecovery.Phase, losses: Int, restores: Int, attempts: Int) {
        state.withLock { ($0.phase, $0.losses, $0.restores, $0.attempts) }
    }

    /// Set once the attempts are used up: the text the run ends with.
    var gaveUp: String? { state.withLock { $0.gaveUp } }

    /// True once `release()` was called.
    var isReleased: Bool { stopFlag.load(ordering: .relaxed) }

    /// Stops supervising (the stream is ending, or the run): no more placeholders or attempts; an
    /// end-of-stream held meanwhile goes through. Returns true when the source segment is down (lost) or never
    /// delivered a frame (a caller still trying to connect may not even take an end-of-stream), so the caller
    /// ends the group's stream itself and stops waiting for that segment's end-of-stream.
    @discardableResult func release() -> Bool {
        stopFlag.store(true, ordering: .relaxed)
        wakeup.signal()
        let wasLost = state.withLock { $0.end() }
        group.sink.holdEndOfStream(false)
        if wasLost { group.sink.endStream() }
        return wasLost
    }

    // MARK: - The keeper's thread

    private func tickLoop() {
        while !stopFlag.load(ordering: .relaxed) {
            tick(now: clock.now)
            _ = clock.sleep(seconds: 0.01, unlessSignalled: wakeup)
        }
    }

    private func tick(now: Double) {
        let count = group.arrivals.value
        let passed = (gate?.livePassed.load(ordering: .relaxed) ?? 0)
        let lateness = currentLateness()
        let restore = restoreFrames()
        let timing = placeholderTiming()
        var placeholdersDue: [(UInt64, String)] = []
        var attemptDue = false
        let lines: [String] = state.withLock { s in
            if s.observe(now: now, arrivals: count, passed: passed, lateness: lateness, restoreFrames: restore) {
                if let timing {
                    placeholdersDue = s.duePlaceholders(
                        clockRunningTime: timing.runningTime, after: timing.after, duration: timing.duration, now: now)
                }
                attemptDue = s.attemptIfDue(at: now)
            }
            return s.drainLines()
        }
        write(lines)
        for (pts, text) in placeholdersDue { sendPlaceholder(runningTime: pts, text: text) }
        if attemptDue { restartSegment() }
    }

    /// Says the state machine's lines (`Log.host`: the CLI's stderr; never under the lock).
    private func write(_ lines: [String]) {
        for l in lines { Log.host.say(.warning, l.hasSuffix("\n") ? String(l.dropLast()) : l) }
    }

    /// Running time now minus that of the newest frame that arrived, when one arrived since the last look.
    private var lastSeenArrivals = 0
    private func currentLateness() -> Int64? {
        let count = group.arrivals.value
        guard count != lastSeenArrivals, let pipelineClock, let last = group.sink.lastArrival,
            let rt = last.pts.flatMap({ last.segment.runningTime($0) })
        else { return nil }
        lastSeenArrivals = count
        return Int64(bitPattern: pipelineClock.now &- baseTime) &- Int64(bitPattern: rt)
    }

    /// Live frames that count as "restored": half a second of them (at least 2).
    private func restoreFrames() -> Int {
        guard let info = group.sink.lastArrival?.caps?.videoInfo, info.fpsN > 0, info.fpsD > 0 else { return 2 }
        return max(2, info.fpsN / (2 * info.fpsD))
    }

    /// What placeholders are stamped against: the pipelines' running time now, the last frame the worker passed
    /// on, the frame duration of the last arrival's caps; nil before a frame with caps arrived.
    private func placeholderTiming() -> (runningTime: Int64, after: UInt64, duration: UInt64)? {
        guard let pipelineClock, let last = group.sink.lastArrival, let info = last.caps?.videoInfo else { return nil }
        return (
            Int64(bitPattern: pipelineClock.now &- baseTime), (gate?.lastLiveRunningTime.load(ordering: .relaxed) ?? 0),
            Self.frameDuration(info: info, fallback: last.duration)
        )
    }

    /// For the worker (the `SourceGate` it installs): while lost, the placeholders between the last frame it passed
    /// on (`after`) and a live frame at `before`, leaving less than one frame duration; none otherwise.
    private func fill(after: UInt64, before: UInt64, caps: Caps, segment: Segment) -> [Buffer] {
        guard let info = caps.videoInfo else { return [] }
        let duration = Self.frameDuration(info: info, fallback: nil)
        let now = clock.now
        let due = state.withLock { $0.holeSlots(after: after, before: before, duration: duration, now: now) }
        return due.compactMap { makePlaceholder(runningTime: $0.0, text: $0.1, caps: caps, info: info, segment: segment) }
    }

    /// A frame's duration from the caps' rate (else the last buffer's, else 1/30 s), in ns.
    static func frameDuration(info: VideoInfo, fallback: UInt64?) -> UInt64 {
        if info.fpsN > 0 && info.fpsD > 0 { return UInt64(1e9 * Double(info.fpsD) / Double(info.fpsN)) }
        return fallback.flatMap { $0 > 0 ? $0 : nil } ?? 33_333_333
    }

    /// Builds one placeholder (grey, slate text blended) stamped at `runningTime` and queues it for the worker.
    private func sendPlaceholder(runningTime: UInt64, text: String) {
        guard let last = group.sink.lastArrival, let caps = last.caps, let info = caps.videoInfo,
            let buffer = makePlaceholder(runningTime: runningTime, text: text, caps: caps, info: info, segment: last.segment)
        else { return }
        // Our own thread: wait for the worker rather than drop a placeholder of the backfill.
        group.sink.inject(buffer, caps: caps, segment: last.segment, wait: 1)
    }

    /// A placeholder frame: grey, the slate's text blended through an `OverlayComposition`, GAP-flagged,
    /// at the segment position of `runningTime`.
    private func makePlaceholder(runningTime: UInt64, text: String, caps: Caps, info: VideoInfo, segment: Segment) -> Buffer? {
        let duration = Self.frameDuration(info: info, fallback: nil)
        guard let pts = segment.position(runningTime: runningTime),
            let buffer = try? PlaceholderFrame.make(info, grey: 40, pts: pts, duration: duration)
        else { return nil }
        let frame = VideoFrame(buffer: buffer, info: info, caps: caps, segment: segment, index: 0)
        let name = element
        let overlay = slateLock.withLock { _ in slate.composition(text: text, detail: "source \(name)", width: info.width, height: info.height) }
        if let overlay { try? frame.blend(overlay) }
        return frame.buffer
    }

    /// One attempt: the source segment to NULL, then PLAYING on the same clock and base time. A failure shows
    /// as an error on the bus (`failed`) or as no frame by the next attempt.
    private func restartSegment() {
        WorkerThread.start("vf-src-restart") { [self] in
            pipeline.setState(.null)
            if !stopFlag.load(ordering: .relaxed) {
                pipeline.fixBaseTime(baseTime)
                group.sink.holdEndOfStream(true)
                if pipeline.setState(.playing) == .failure {
                    failed("could not start the source segment")
                }
            }
            state.withLock { $0.restarting = false }
        }
    }
}
