import Foundation
import GStreamerKit
import Overlay
import Stages
import Synchronization

/// Keeps a stream going when its source goes away (`--reconnect`): the source segment (everything before
/// the first stage group) may fail, end or fall silent while every segment after it keeps running on the
/// same clock.
///
/// Lost: the bus loop reports an error or an unexpected end-of-stream of the segment (`failed`), or no
/// frame reached the group's appsink for `stall` seconds while live. From then on the group gets
/// placeholder frames (`PlaceholderFrame`, GAP-flagged, the caps and rate of the last live frame, a
/// "signal lost, retrying in N s" slate blended through `OverlayComposition`): first a backfill from the
/// last live frame to now (so a recording has no hole), then one per frame duration, stamped with the
/// running time on the shared clock. Attempts set the source segment to NULL and to PLAYING again
/// (same clock, same base time) after 1 s, doubling to 30 s, at most `attempts` times (0: for ever).
/// Restored: two new frames arrived; they replace the slate (the worker drops any whose running time
/// is not after the last placeholder's). Each transition is a `SourceMessage` (handed to the bus loop)
/// and a line on stderr.
///
/// Threads and locks: its own thread `vf-source-N` ticks (stall check, placeholders, attempts); each
/// attempt's state changes run on a detached thread `vf-source-N-restart` (setting an rtspsrc to NULL
/// can wait for its teardown), at most one at a time; the bus loop calls `failed`, `release`,
/// `drainMessages` and reads `gaveUp`. One mutex, `state`, taken briefly by all of them, never held while
/// calling GStreamer.
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

    enum Phase: Equatable { case waiting, live, lost, ended }

    private struct State {
        var phase: Phase = .waiting
        var lastCount = 0
        var lastFrameAt = Date()
        var lostAt = Date()
        var reason = ""
        var attempt = 0
        var delay = 1.0
        var nextAttemptAt = Date.distantFuture
        var restarting = false
        var losses = 0
        var restores = 0
        var placeholders = 0
        /// Running time of the last placeholder sent (ns).
        var lastPlaceholder: UInt64 = 0
        /// How far behind the clock live frames arrive (running time now - the frame's; negative when they
        /// carry times ahead of the clock, as demuxed streams do), from the newest arrival.
        var lateness: Int64 = 0
        /// When the last frame arrived (any phase).
        var lastArrivalAt = Date.distantPast
        /// Live frames the worker had passed when the source was lost.
        var passedAtLoss = 0
        var messages: [SourceMessage] = []
        var gaveUp: String?
    }

    let segment: Int
    let pipeline: Pipeline
    let group: StageGroup
    /// The source element named in messages.
    let element: String
    let policy: Policy
    private let state = Mutex(State())
    private let stopFlag = Atomic<Bool>(false)
    private var clock: Clock?
    private var baseTime: UInt64 = 0
    private var thread: Thread?
    /// The group's input gate, installed by `start` (its counters are what "restored" is judged by).
    private(set) var gate: SourceGate?
    private let slate = SlateCache()
    /// The slate cache is used by the keeper's thread and the worker (`fill`).
    private let slateLock = Mutex(())

    init(segment: Int, pipeline: Pipeline, group: StageGroup, element: String, policy: Policy) {
        self.segment = segment; self.pipeline = pipeline; self.group = group; self.element = element; self.policy = policy
        state.withLock { $0.delay = policy.firstDelay }
        pipeline.keepDynamicLinks()
    }

    /// Starts watching (after the pipelines play): the group's appsink holds end-of-stream from now on.
    func start(clock: Clock, baseTime: UInt64) {
        self.clock = clock
        self.baseTime = baseTime
        state.withLock { $0.lastFrameAt = Date() }
        group.sink.holdEndOfStream(true)
        let gate = SourceGate { [weak self] after, before, caps, segment in self?.fill(after: after, before: before, caps: caps, segment: segment) ?? [] }
        self.gate = gate
        group.inputGate.withLock { $0 = gate }
        let t = Thread { [self] in tickLoop() }
        t.name = "vf-source-\(segment)"
        thread = t
        t.start()
    }

    /// The segment failed (an error) or ended (an end-of-stream nobody asked for): lost, unless already.
    /// An error while lost is the current attempt failing: noted on stderr, the schedule stands.
    func failed(_ reason: String) {
        let now = Date()
        let note: String? = state.withLock { s in
            switch s.phase {
            case .live, .waiting:
                lose(&s, reason: reason, at: now)
                return nil
            case .lost: return s.attempt > 0 ? "viewfinder: source '\(element)': attempt \(s.attempt) failed: \(reason)\n" : nil
            case .ended: return nil
            }
        }
        if let note { AppendFile.writeStandardError(note) }
    }

    /// The host's own messages since the last call (bus loop).
    func drainMessages() -> [SourceMessage] {
        state.withLock { s in
            defer { s.messages.removeAll() }
            return s.messages
        }
    }

    /// Set once the attempts are used up: the text the run ends with.
    var gaveUp: String? { state.withLock { $0.gaveUp } }

    /// True once `release()` was called.
    var isReleased: Bool { stopFlag.load(ordering: .relaxed) }

    /// True while placeholders stand in for the source.
    var isLost: Bool { state.withLock { $0.phase == .lost } }

    /// Stops supervising (the stream is ending, or the run): no more placeholders or attempts; an
    /// end-of-stream held meanwhile goes through. Returns true when the source segment is down (lost) or never
    /// delivered a frame (a caller still trying to connect may not even take an end-of-stream), so the caller
    /// ends the group's stream itself and stops waiting for that segment's end-of-stream.
    @discardableResult func release() -> Bool {
        stopFlag.store(true, ordering: .relaxed)
        let wasLost = state.withLock { s in
            defer { s.phase = .ended }
            return s.phase == .lost || s.phase == .waiting
        }
        group.sink.holdEndOfStream(false)
        if wasLost { group.sink.endStream() }
        return wasLost
    }

    // MARK: - The keeper's thread

    private func tickLoop() {
        while !stopFlag.load(ordering: .relaxed) {
            tick(now: Date())
            usleep(10_000)
        }
    }

    private func tick(now: Date) {
        let count = group.arrivals.value
        let passed = (gate?.livePassed.load(ordering: .relaxed) ?? 0)
        let lateness = currentLateness()
        var placeholdersDue: [(UInt64, String)] = []
        var attemptDue = false
        state.withLock { s in
            if let lateness { s.lateness = lateness; s.lastArrivalAt = now }
            switch s.phase {
            case .waiting:
                if count > 0 {
                    s.phase = .live; s.lastCount = count; s.lastFrameAt = now
                } else if now.timeIntervalSince(s.lastFrameAt) >= policy.firstFrame {
                    lose(&s, reason: String(format: "no frame in the first %.0f s", policy.firstFrame), at: now)
                }
            case .live:
                if count != s.lastCount {
                    s.lastCount = count; s.lastFrameAt = now
                } else if now.timeIntervalSince(s.lastFrameAt) >= policy.stall {
                    lose(&s, reason: String(format: "no frame for %.1f s", now.timeIntervalSince(s.lastFrameAt)), at: now)
                }
            case .lost:
                // Back once live frames have flowed past the worker for half a second (placeholders fill any
                // hole until then, so the switch leaves none).
                if passed - s.passedAtLoss >= restoreFrames() {
                    restore(&s, at: now)
                    return
                }
                placeholdersDue = duePlaceholders(&s, now: now)
                // Frames coming again (a source that reconnects by itself, or the last attempt): no new
                // attempt while they do.
                if now.timeIntervalSince(s.lastArrivalAt) < 0.5 { s.nextAttemptAt = max(s.nextAttemptAt, now.addingTimeInterval(0.5)) }
                if !s.restarting && now >= s.nextAttemptAt {
                    if policy.attempts > 0 && s.attempt >= policy.attempts {
                        giveUp(&s, at: now)
                        return
                    }
                    s.attempt += 1
                    s.restarting = true
                    s.nextAttemptAt = now.addingTimeInterval(s.delay)
                    post(&s, "retrying", retryIn: s.delay, now: now)
                    s.delay = min(policy.maxDelay, s.delay * 2)
                    attemptDue = true
                }
            case .ended: break
            }
        }
        for (pts, text) in placeholdersDue { sendPlaceholder(runningTime: pts, text: text) }
        if attemptDue { restartSegment() }
    }

    /// Running time now minus that of the newest frame that arrived, when one arrived since the last look.
    private var lastSeenArrivals = 0
    private func currentLateness() -> Int64? {
        let count = group.arrivals.value
        guard count != lastSeenArrivals, let clock, let last = group.sink.lastArrival,
            let rt = last.pts.flatMap({ last.segment.runningTime($0) })
        else { return nil }
        lastSeenArrivals = count
        return Int64(bitPattern: clock.now &- baseTime) &- Int64(bitPattern: rt)
    }

    /// Live frames that count as "restored": half a second of them (at least 2).
    private func restoreFrames() -> Int {
        guard let info = group.sink.lastArrival?.caps?.videoInfo, info.fpsN > 0, info.fpsD > 0 else { return 2 }
        return max(2, info.fpsN / (2 * info.fpsD))
    }

    /// Marks the loss (under the lock): counts, message, the first attempt after `firstDelay`.
    private func lose(_ s: inout State, reason: String, at now: Date) {
        s.phase = .lost
        s.lostAt = now
        s.reason = reason
        s.losses += 1
        s.attempt = 0
        s.delay = policy.firstDelay
        s.nextAttemptAt = now.addingTimeInterval(policy.firstDelay)
        s.passedAtLoss = (gate?.livePassed.load(ordering: .relaxed) ?? 0)
        post(&s, "lost", retryIn: policy.firstDelay, now: now)
    }

    private func restore(_ s: inout State, at now: Date) {
        s.phase = .live
        s.restores += 1
        s.lastCount = group.arrivals.value
        s.lastFrameAt = now
        post(&s, "restored", retryIn: 0, now: now)
        s.attempt = 0
        s.delay = policy.firstDelay
        s.nextAttemptAt = .distantFuture
    }

    private func giveUp(_ s: inout State, at now: Date) {
        s.phase = .ended
        post(&s, "gave-up", retryIn: 0, now: now)
        s.gaveUp =
            "source '\(element)' lost (\(s.reason)) and not back after \(s.attempt) attempt\(s.attempt == 1 ? "" : "s") (--reconnect-attempts \(policy.attempts))"
    }

    /// Queues the message and writes its line on stderr (under the lock: both only append).
    private func post(_ s: inout State, _ kind: String, retryIn: Double, now: Date) {
        let outage = kind == "restored" || kind == "gave-up" ? now.timeIntervalSince(s.lostAt) : 0
        let m = SourceMessage(
            state: kind, element: element, reason: kind == "lost" || kind == "gave-up" ? s.reason : "", attempt: s.attempt,
            retryIn: retryIn, losses: s.losses, restores: s.restores, outage: outage, placeholders: s.placeholders)
        if s.messages.count >= 64 { s.messages.removeFirst() }
        s.messages.append(m)
        let line: String
        switch kind {
        case "lost": line = "source '\(element)' lost (\(s.reason)); placeholder frames go on; retrying in \(Self.seconds(retryIn))"
        case "retrying": line = "source '\(element)': attempt \(s.attempt) (next in \(Self.seconds(retryIn)) if this one fails)"
        case "restored":
            line = String(format: "source '\(element)' restored after %.1f s (attempt %d, %d placeholder frames so far)", outage, s.attempt, s.placeholders)
        default: line = "source '\(element)' gave up after \(s.attempt) attempts"
        }
        AppendFile.writeStandardError("viewfinder: \(line)\n")
    }

    static func seconds(_ d: Double) -> String { d == d.rounded() ? "\(Int(d)) s" : String(format: "%.1f s", d) }

    /// The placeholders due now (under the lock): every frame slot from the last frame passed on (live or
    /// placeholder) up to the running time a live frame arriving now would carry (the clock minus the live
    /// frames' lateness), half a frame of slack; at most `maxBackfill` s back.
    private func duePlaceholders(_ s: inout State, now: Date) -> [(UInt64, String)] {
        guard let clock, let last = group.sink.lastArrival, let caps = last.caps, let info = caps.videoInfo else { return [] }
        let duration = Self.frameDuration(info: info, fallback: last.duration)
        let target = Int64(bitPattern: clock.now &- baseTime) - s.lateness - Int64(duration / 2)
        guard target > 0 else { return [] }
        return slots(&s, after: (gate?.lastLiveRunningTime.load(ordering: .relaxed) ?? 0), upTo: UInt64(target), duration: duration, now: now)
    }

    /// Frame slots after max(`after`, the last placeholder) up to `upTo` (at most `maxBackfill` s of them),
    /// with the slate's text; counted as sent (under the lock).
    private func slots(_ s: inout State, after: UInt64, upTo target: UInt64, duration: UInt64, now: Date) -> [(UInt64, String)] {
        let backfill = UInt64(policy.maxBackfill * 1e9)
        var next = max(s.lastPlaceholder, after) + duration
        if target > backfill { next = max(next, target - backfill) }
        var due: [(UInt64, String)] = []
        let wait = max(0, s.nextAttemptAt.timeIntervalSince(now))
        let text = s.restarting ? "signal lost: reconnecting (attempt \(s.attempt))" : "signal lost, retrying in \(Int(wait.rounded(.up))) s"
        while next <= target, due.count < 1000 {
            due.append((next, text))
            s.lastPlaceholder = next
            s.placeholders += 1
            next += duration
        }
        return due
    }

    /// For the worker (`StageGroup.holeFiller`): while lost, the placeholders between the last frame it passed
    /// on (`after`) and a live frame at `before`, leaving less than one frame duration; none otherwise.
    private func fill(after: UInt64, before: UInt64, caps: Caps, segment: Segment) -> [Buffer] {
        guard let info = caps.videoInfo else { return [] }
        let duration = Self.frameDuration(info: info, fallback: nil)
        guard before > after + duration + duration / 2 else { return [] }
        let due: [(UInt64, String)] = state.withLock { s in
            guard s.phase == .lost else { return [] }
            return slots(&s, after: after, upTo: before - duration / 2 - duration / 2, duration: duration, now: Date())
        }
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
        let overlay = slateLock.withLock { _ in slate.composition(text: text, detail: "source \(element)", width: info.width, height: info.height) }
        if let overlay { try? frame.blend(overlay) }
        return frame.buffer
    }

    /// One attempt: the source segment to NULL, then PLAYING on the same clock and base time. A failure shows
    /// as an error on the bus (`failed`) or as no frame by the next attempt.
    private func restartSegment() {
        let t = Thread { [self] in
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
        t.name = "vf-source-\(segment)-restart"
        t.start()
    }
}

/// The slate's text as an overlay, drawn with cairo/pango once per text and frame size.
///
/// Threads and locks: used by the keeper's thread only.
final class SlateCache {
    private var key: (String, Int, Int)?
    private var cached: OverlayComposition?

    func composition(text: String, detail: String, width: Int, height: Int) -> OverlayComposition? {
        if let key, key == (text, width, height) { return cached }
        guard width >= 16, height >= 16 else { return nil }
        let canvas = Canvas(width: width, height: height)
        let size = max(10, Double(min(width, height)) / 16)
        let white = RGBAColor(red: 1, green: 1, blue: 1)
        let backdrop = RGBAColor(red: 0.55, green: 0.05, blue: 0.05, alpha: 0.85)
        let m = canvas.measureText(text, fontSize: size, backdrop: true)
        let y = Double(height) / 2 - m.height
        canvas.drawText(text, x: (Double(width) - m.width) / 2, y: y, fontSize: size, color: white, backdrop: backdrop)
        let d = canvas.measureText(detail, fontSize: size * 0.6, backdrop: false)
        canvas.drawText(detail, x: (Double(width) - d.width) / 2, y: y + m.height + size * 0.4, fontSize: size * 0.6, color: white, backdrop: nil)
        let img = canvas.image()
        let overlay = OverlayComposition(bgra: img.pixels, width: img.width, height: img.height, stride: img.stride)
        key = (text, width, height)
        cached = overlay
        return overlay
    }
}

/// Which source segments a `SourceKeeper` watches, decided when the session is built.
enum SourceSupervision {
    /// Sources reached over a network: supervised by default (`--reconnect` auto).
    static let networkFactories: Set<String> = [
        "rtspsrc", "srtsrc", "srtclientsrc", "srtserversrc", "udpsrc", "tcpclientsrc", "tcpserversrc", "souphttpsrc",
        "rtmpsrc", "rtmp2src", "ristsrc", "whepsrc", "webrtcsrc", "rtpsrc", "rtspclientsink",
    ]
    /// Elements taking a `uri`: network when its scheme is not `file`.
    static let uriFactories: Set<String> = ["uridecodebin", "uridecodebin3", "urisourcebin", "playbin", "playbin3"]

    /// Whether `e` reads from a network.
    static func isNetwork(_ e: Element) -> Bool {
        let f = e.factoryName
        if networkFactories.contains(f) { return true }
        if uriFactories.contains(f), let uri = e.string("uri"), let colon = uri.firstIndex(of: ":") {
            return uri[..<colon].lowercased() != "file"
        }
        return false
    }

    /// Whether `e` is a live source: a network source or a live GstBaseSrc (v4l2src, videotestsrc is-live=true).
    static func isLive(_ e: Element) -> Bool { isNetwork(e) || e.isLiveBaseSource == true }

    /// The source segments to watch: segment index -> (the group it feeds, the source element's name).
    /// `.on` with no live source before a stage is a usage error; a watched segment with other sinks gets a
    /// warning (they restart with the source).
    static func plan(
        mode: SessionOptions.ReconnectMode, plan: ExpansionPlan, pipelines: [Pipeline], groups: [StageGroup]
    ) throws(HostError) -> [(segment: Int, group: StageGroup, element: String)] {
        if mode == .off { return [] }
        var out: [(Int, StageGroup, String)] = []
        for seg in plan.segments where seg.appSources.isEmpty {
            let feeding = groups.filter { $0.sinkSegment == seg.index }
            guard feeding.count == 1, let group = feeding.first else { continue }
            let elements = pipelines[seg.index].describedElements
            let pick: Element? =
                mode == .on ? elements.first(where: { isLive($0) }) : elements.first(where: { isNetwork($0) })
            guard let source = pick else { continue }
            let others = elements.filter { $0.isSink && $0.name != group.sink.name }.map(\.name)
            if !others.isEmpty {
                AppendFile.writeStandardError(
                    "viewfinder: warning: --reconnect restarts everything before the first stage with the source '\(source.name)', "
                        + "including \(others.joined(separator: ", ")): put branches after a stage to keep them running\n")
            }
            out.append((seg.index, group, source.name))
        }
        if mode == .on && out.isEmpty {
            if groups.isEmpty {
                throw HostError(
                    .usage,
                    "--reconnect: the description has no Viewfinder stage; expected a live source followed by a stage (e.g. 'rtspsrc location=... ! decodebin ! videoconvert ! compose ! ...'): the host restarts what comes before the first stage while the rest keeps running"
                )
            }
            throw HostError(
                .usage,
                "--reconnect: no live source before the first stage; expected a network or camera source (rtspsrc, srtsrc, udpsrc, souphttpsrc, v4l2src, videotestsrc is-live=true...): a file that ends ends the run"
            )
        }
        return out
    }
}
