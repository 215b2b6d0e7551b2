import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// One fused group of adjacent stages: pulls from an appsink, runs every stage, pushes to appsrcs.
///
/// Everything it needs is given at init: the appsink is configured there (hand-off bound, drop policy,
/// the caps negotiated across the bridge) and its arrivals counted from then on; nothing is set from
/// outside. What depends on live-ness, known only once the roots answered PAUSED, is settled by the
/// group itself in `prepare(live:)`; the rest that changes later is the worker's own state.
///
/// Threads and locks: built, prepared, started, stopped and joined on the session's thread. `run()`
/// runs on the group's worker thread (`vf-NAME`), started by `start()` after `prepare` (so it sees `live`).
/// Stages push on extra outputs from the worker; GStreamer streaming threads count arrivals and collect
/// custom events (`CustomEventWatch`, its own lock). `stats` is a mutex shared by the worker (writer) and
/// the report (reader); `stopFlag` and `ended` are atomics read by the session's thread.
final class StageGroup: @unchecked Sendable {
    /// How frames are handed over at the appsink.
    struct Handoff: Sendable {
        /// Frames held between the segment and the worker.
        var maxBuffers: UInt32
        /// Leaky from the start (`--queue leaky`); `prepare(live:)` may still make it leaky for live sources.
        var drop: Bool
        /// The queue policy, to decide the drop policy once live-ness is known.
        var policy: SessionOptions.QueuePolicy
    }

    let plan: StageGroupPlan
    let stages: [(name: String, stage: any Stage)]
    let sink: AppSink
    let sinkSegment: Int
    let main: (src: AppSource, segment: Int)?
    /// "stage.output" -> appsrc of that output.
    let extras: [String: (src: AppSource, segment: Int)]
    let accepted: Set<String>?
    let stats: GroupStats
    /// Buffers that reached the appsink, kept or dropped.
    let arrivals: PadCounter
    /// Frames its hand-off dropped so far (only goes up).
    let drops: PadCounter?
    /// Time allowed for the group's stages, added to the latency of live outputs (ns).
    let budgetNs: UInt64
    /// The appsink's hand-off, as configured at init.
    let handoff: Handoff
    /// Frames pushed by the group go to these taps too (services' `frameTap`; the last group of the plan only).
    /// Set by the session before the worker starts.
    var taps: [any FrameTap] = []
    /// The session's clock, which the stages see through their context (`StageContext.clock`).
    let clock: any HostClock
    /// Called with the segment index whose latency changed, so the session recalculates it.
    let onLatencyChange: (@Sendable (Int) -> Void)?
    /// Whether the group's input is live; set by `prepare(live:)` before the worker starts.
    private(set) var live = false
    private let stopFlag = Atomic<Bool>(false)
    /// Decides over every frame before the stages see it (a service's; nil: every frame goes through). Set from
    /// any thread once the group runs (source recovery starts watching after the pipelines play).
    let inputGate = Mutex<(any GroupInputGate)?>(nil)
    /// Whether `start` ran. The thread itself is not kept: a stored Thread holds its closure, and with it this
    /// group (and its stages, their analysis threads) after the run, for every session a service ever built.
    private var started = false
    private let done = DispatchSemaphore(value: 0)

    /// Builds the group and configures its appsink. Groups downstream must be built first: their
    /// appsink caps show through the caps queries of this group's outputs.
    init(
        plan: StageGroupPlan, stages: [(String, any Stage)], sink: AppSink, sinkSegment: Int,
        main: (AppSource, Int)?, extras: [String: (AppSource, Int)], handoff: Handoff, budgetNs: UInt64,
        clock: any HostClock = SystemClock.shared, onLatencyChange: (@Sendable (Int) -> Void)?
    ) throws(HostError) {
        self.clock = clock
        self.plan = plan
        self.stages = stages.map { (name: $0.0, stage: $0.1) }
        self.sink = sink; self.sinkSegment = sinkSegment
        self.main = main.map { (src: $0.0, segment: $0.1) }
        self.extras = extras.mapValues { (src: $0.0, segment: $0.1) }
        accepted = StageChain.acceptedFormats(stages.map { type(of: $0.1).descriptor })
        stats = GroupStats(stages: stages.map(\.0))
        stats.values.withLock { v in for (n, _) in stages { v.perStage[n] = DurationHistogram() } }
        self.handoff = handoff
        self.budgetNs = budgetNs
        self.onLatencyChange = onLatencyChange
        // Hand-off bounds and caps must be in place before the first frame (preroll) arrives.
        let name = stages.first?.0 ?? plan.appSink
        let caps = try Self.negotiatedSinkCaps(
            name: name, stageCaps: Self.stageCaps(accepted), sink: sink,
            outputs: Self.outputs(lastStage: stages.last?.0 ?? name, main: self.main, extras: self.extras),
            resizes: stages.contains { $0.1 is any ResizingStage })
        sink.configure(maxBuffers: handoff.maxBuffers, drop: handoff.drop, caps: caps)
        arrivals = sink.countArrivals()
        drops = sink.drops
    }

    var name: String { stages.first?.name ?? plan.appSink }

    /// Settles what depends on the segments' live-ness, before the pipelines play: the drop policy
    /// (`auto` is leaky for live input), the appsrcs (main output live as the input, with the stage
    /// budget as latency; extra outputs never live: their branch prerolls on the first frame pushed),
    /// and the custom-event probes.
    func prepare(live: Bool) {
        self.live = live
        sink.setDrop(handoff.policy == .leaky || (handoff.policy == .auto && live))
        main?.src.configure(live: live, maxBuffers: 4, minLatency: budgetNs)
        for e in extras.values { e.src.configure(live: false, maxBuffers: 8, minLatency: 0) }
        _ = eventWatches
    }

    /// Raw video in the `accepted` formats (any raw video when nil), overlay formats first.
    static func stageCaps(_ accepted: Set<String>?) -> String { StageChain.capsText(accepted) }

    /// The linked outputs, named for messages: the main output first, then the extra ones by name.
    private static func outputs(
        lastStage: String, main: (src: AppSource, segment: Int)?,
        extras: [String: (src: AppSource, segment: Int)]
    ) -> [(String, AppSource)] {
        var outputs: [(String, AppSource)] = []
        if let main { outputs.append(("\(lastStage) output", main.src)) }
        for (k, e) in extras.sorted(by: { $0.key < $1.key }) { outputs.append((k, e.src)) }
        return outputs
    }

    /// Caps the appsink asks for: what the stages take and every linked output's branch accepts,
    /// in the branches' order of preference — negotiation carried across the bridge, as one
    /// pipeline would do it (so `videotestsrc ! snapshot ... s.snapshot ! jpegenc` picks I420).
    private static func negotiatedSinkCaps(
        name: String, stageCaps: String, sink: AppSink,
        outputs: [(String, AppSource)], resizes: Bool
    ) throws(HostError) -> Caps {
        var caps: Caps
        do { caps = try Caps(stageCaps) } catch {
            throw HostError(.usage, "internal: stage '\(name)' declares bad caps \(stageCaps): \(error.message)")
        }
        if let up = sink.peerCaps(), !up.isAny, up.intersect(caps).isEmpty {
            let media = up.mediaTypes
            if !media.isEmpty && !media.contains("video/x-raw") {
                // videoconvert cannot make video out of audio (or encoded video): say what is there instead.
                let hint =
                    media.contains { $0.hasPrefix("video/") || $0.hasPrefix("image/") }
                    ? "decode it first (e.g. 'decodebin ! videoconvert' before the stage)"
                    : "link a video source to it"
                throw HostError(
                    .usage,
                    "stage '\(name)' needs raw video (video/x-raw) but what comes before it gives \(media.joined(separator: ", ")): \(hint)"
                )
            }
            throw HostError(
                .usage,
                "stage '\(name)' cannot take what comes before it (\(Echo.value(up.description, limit: 200))); it accepts \(stageCaps): put 'videoconvert' before it"
            )
        }
        for (what, src) in outputs {
            guard var down = src.downstreamCaps(), !down.isAny else { continue }
            // After a resizing stage (reframe) the size is the stage's, not the input's: only the format carries across.
            if resizes { down = down.removing(fields: ["width", "height", "pixel-aspect-ratio"]) }
            let next = down.intersect(caps)
            if next.isEmpty {
                throw HostError(
                    .usage,
                    "stage '\(name)': \(what) cannot be linked: the elements after it take \(down) but the stage gives \(caps): put 'videoconvert' after it"
                )
            }
            caps = next
        }
        return caps
    }

    func start() {
        started = true
        WorkerThread.start("vf-\(name)") { [self] in
            run()
            done.signal()
        }
    }

    /// Asks the worker to leave (used on abort; EOS normally ends it).
    func stop() { stopFlag.store(true, ordering: .relaxed) }

    /// Waits for the worker to finish.
    func join(timeout: Double = 5) -> Bool {
        guard started else { return true }
        return done.wait(timeout: .now() + timeout) == .success
    }

    private func fail(_ text: String) {
        sink.postError(text, debug: "stage group \(stages.map(\.name).joined(separator: " ! ")) (appsink \(plan.appSink))")
        endAll()
    }

    /// Set once the worker has sent end-of-stream on its outputs.
    let ended = Atomic<Bool>(false)

    private func endAll() {
        ended.store(true, ordering: .sequentiallyConsistent)
        main?.src.endOfStream()
        for e in extras.values { e.src.endOfStream() }
    }

    /// Custom events the host hands the group (the control API's capture with a timer), at most 64 (the
    /// oldest go first); delivered with the watched ones, on the worker, before the next frame.
    private let injected = Mutex<[MessageStructure]>([])

    /// Queues a custom event for the group's stages (any thread).
    func inject(_ event: MessageStructure) {
        injected.withLock { q in
            if q.count >= 64 { q.removeFirst() }
            q.append(event)
        }
    }

    /// Custom events reaching the group: downstream into its appsink, upstream into any of its appsrcs.
    private lazy var eventWatches: [CustomEventWatch] = {
        var w = [sink.watchCustomEvents(pad: "sink", names: [])]
        if let main { w.append(main.src.watchCustomEvents(pad: "src", names: [])) }
        for e in extras.values { w.append(e.src.watchCustomEvents(pad: "src", names: [])) }
        return w
    }()

    private func run() {
        var latencySet = false
        let taps = self.taps
        let chain = StageChain(stages: stages, contexts: stages.map { GroupContext(stageName: $0.name, group: self) })
        /// One frame through the chain and out; false when the worker must end.
        func handle(_ buffer: Buffer, _ capsOrNil: Caps?, _ segment: Segment) -> Bool {
            guard let caps = capsOrNil ?? chain.caps else { fail("stage '\(name)': a frame arrived without caps"); return false }
            let frame: VideoFrame, times: [Double]
            do {
                if try chain.configure(caps) {
                    // Extra outputs may get tags or events before their first frame: give them
                    // their caps now so the stream starts in order (stream-start, caps, segment).
                    for (key, e) in extras { e.src.setCaps(chain.caps(seenBy: String(key.prefix { $0 != "." })) ?? caps) }
                    stats.values.withLock { $0.renegotiations += 1 }
                }
                if live && !latencySet {
                    latencySet = true
                    if let up = sink.upstreamLatency() {
                        for out in [main].compactMap({ $0 }) + Array(extras.values) {
                            out.src.setLatency(min: up.min + budgetNs, max: nil)
                            onLatencyChange?(out.segment)
                        }
                    }
                }
                let hosted = injected.withLock { q in
                    defer { q.removeAll() }
                    return q
                }
                chain.deliver(hosted + eventWatches.flatMap { $0.drain() })
                (frame, times) = try chain.process(buffer, caps: caps, segment: segment)
            } catch {
                fail(error.message); return false
            }
            let placeholder = frame.buffer.isPlaceholder
            stats.values.withLock { v in
                if placeholder { v.placeholders += 1 } else { v.pulled += 1 }
                for (i, s) in stages.enumerated() { v.perStage[s.name]?.record(ms: times[i]) }
            }
            for t in taps { t.offer(frame) }
            if let main {
                // Given away: the next group finds the frame writable (no copy-on-write race with us).
                // A resizing stage (reframe) gives other caps than came in: the appsrc renegotiates on a change.
                if main.src.push(consuming: frame.buffer, caps: frame.caps, segment: segment) {
                    stats.values.withLock { $0.pushed += 1 }
                } else if stopFlag.load(ordering: .relaxed) {
                    return false
                }
            } else {
                stats.values.withLock { $0.pushed += 1 }
            }
            return true
        }
        while !stopFlag.load(ordering: .relaxed) {
            switch sink.pull(timeout: 50_000_000) {
            case .timeout, .stopped:
                // Stopped: the sink's segment is not started yet (or is being shut down); only a real
                // end-of-stream ends the worker.
                continue
            case .eos:
                chain.finish()
                endAll()
                return
            case .sample(let buffer, let capsOrNil, let segment):
                guard let gate = inputGate.withLock({ $0 }) else {
                    if !handle(buffer, capsOrNil, segment) { return }
                    continue
                }
                let admitted = gate.admit(buffer, caps: capsOrNil ?? chain.caps, segment: segment)
                if admitted.behind > 0 { stats.values.withLock { $0.behind += admitted.behind } }
                for b in admitted.buffers where !handle(b, b === buffer ? capsOrNil : (capsOrNil ?? chain.caps), segment) { return }
            }
        }
    }

    func push(_ frame: VideoFrame, stage: String, output: String) -> Bool {
        guard let out = extras["\(stage).\(output)"] else { return false }
        let ok = out.src.push(frame.buffer.shared(), caps: frame.caps, segment: frame.segment)
        if ok { stats.values.withLock { $0.snapshots += 1 } }
        return ok
    }
}

/// The StageContext a stage sees: its name, its extra outputs, the bus.
///
/// Threads and locks: stages call it on their group's worker thread, and some from their own threads
/// (capture posts "saved" from its writer); it keeps no state of its own and takes no lock (appsrc and
/// bus posting are thread-safe in GStreamer).
final class GroupContext: StageContext, @unchecked Sendable {
    let stageName: String
    /// Weak: a stage keeps its context (compose posts from its analysis thread), and the group keeps its stages. A
    /// stage's thread that outlives its group (an analysis still running at teardown) pushes and posts nothing.
    weak var group: StageGroup?
    let clock: any HostClock
    init(stageName: String, group: StageGroup) { self.stageName = stageName; self.group = group; clock = group.clock }
    func push(_ frame: VideoFrame, on output: String) -> Bool { group?.push(frame, stage: stageName, output: output) ?? false }
    func push(_ tags: TagList, on output: String) -> Bool {
        group?.extras["\(stageName).\(output)"]?.src.sendTags(tags) ?? false
    }
    func push(event: MessageStructure, on output: String) -> Bool {
        group?.extras["\(stageName).\(output)"]?.src.sendCustomEvent(event) ?? false
    }
    func backlog(on output: String) -> Int {
        group?.extras["\(stageName).\(output)"]?.src.queuedBuffers ?? 0
    }
    func post(_ message: MessageStructure) {
        var m = message
        if !m.fields.contains(where: { $0.0 == "stage" }) { m.fields.insert(("stage", .string(stageName)), at: 0) }
        group?.sink.postElementMessage(m)
    }
}
