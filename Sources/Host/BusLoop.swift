import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Requests reaching a running session from other threads: stop (drain), abort, and latency changes.
///
/// Threads and locks: atomics only. Signal handlers and tests call `requestStop()`/`abort()` from any
/// thread; stage workers call `latencyChanged(segment:)`; the bus loop reads them.
final class SessionSignals: Sendable {
    let eosRequests = Atomic<Int>(0)
    let aborted = Atomic<Bool>(false)
    /// The segment index + 1 whose latency changed (0: none).
    let latencyDirty = Atomic<Int>(0)

    /// A stage worker saw its outputs' latency change (segment `i` must recalculate).
    func latencyChanged(segment i: Int) { latencyDirty.store(i + 1, ordering: .relaxed) }
}

/// The loop reading every segment's bus until all have ended (or an error, or an abort): end-of-stream
/// per segment, errors (a photo branch's go to the `BranchSupervisor`, the others end the run),
/// warnings, latency, element messages (recorded, passed to the stages, printed with `-m`), stop
/// requests and the progress line.
///
/// Threads and locks: `run` runs on the thread calling `Session.run()`; nothing else calls into it. It
/// polls the buses (no GLib main loop), reads `SessionSignals` atomics, appends to the `MessageLog`
/// (its own mutex) and calls stages' `busMessage`, `outputFailed`, `outputRestarted` on this thread.
/// Sending end-of-stream to the sources happens on a detached thread (it can block).
final class BusLoop {
    /// How the loop ended.
    enum Outcome: Equatable {
        /// Every segment reached end-of-stream.
        case ended
        /// An error ended the run (the text for `Session.errors`).
        case failed(String)
        /// `abort()` was called.
        case aborted
    }

    let session: Session
    let pipelines: [Pipeline]
    let groups: [StageGroup]
    /// Our own appsrcs (`sendEOS` leaves them to the workers).
    let appSources: Set<String>
    let options: SessionOptions
    let signals: SessionSignals
    let log: MessageLog
    let reporter: SessionReporter
    let services: [any SessionService]

    init(session: Session) {
        self.session = session
        pipelines = session.pipelines; groups = session.groups; appSources = Set(session.plan.segments.flatMap(\.appSources))
        options = session.options; signals = session.signals; log = session.log; reporter = session.reporter
        services = session.services
    }

    /// Reads the buses until every segment ended, an error or an abort.
    func run(start: Double) -> Outcome {
        let buses = pipelines.map(\.bus)
        let clock = options.clock
        var eos = Set<Int>()
        var handledStops = 0
        var lastProgress = clock.now
        while eos.count < pipelines.count {
            if signals.aborted.load(ordering: .relaxed) { return .aborted }
            let stops = signals.eosRequests.load(ordering: .relaxed)
            if stops > handledStops {
                handledStops = stops
                // Off the bus thread: sending EOS can block (a sink waiting for a client), and the
                // loop must keep reading the bus and the abort flag meanwhile.
                if stops == 1 {
                    announce(RunStateMessage(state: .stopping))
                    // Services first (supervision ends, so the end-of-stream below goes through; a segment that is
                    // down counts as ended).
                    for s in services { eos.formUnion(s.stopRequested()) }
                    Thread.detachNewThread { [pipelines, appSources] in Self.sendEOS(pipelines, except: appSources) }
                }
            }
            var said = ServicePoll()
            for s in services { s.poll(&said) }
            if let failure = take(said, eos: &eos) { return .failed(failure) }
            let dirty = signals.latencyDirty.exchange(0, ordering: .relaxed)
            if dirty > 0 { pipelines[dirty - 1].recalculateLatency() }
            var idle = true
            for (i, bus) in buses.enumerated() {
                while let m = bus.pop() {
                    idle = false
                    if case .error = m.kind, eos.contains(i) { continue }
                    switch m.kind {
                    case .eos, .error, .warning: break
                    default:
                        handle(m, segment: i)
                        continue
                    }
                    var out = ServicePoll()
                    var verdict = BusVerdict.pass
                    let seen = ServiceBusMessage(message: m, segment: i, stopping: handledStops > 0)
                    for s in services where verdict == .pass { verdict = s.busMessage(seen, &out) }
                    if let failure = take(out, eos: &eos) { return .failed(failure) }
                    switch verdict {
                    case .handled: continue
                    case .segmentEnded: eos.insert(i); continue
                    case .pass: break
                    }
                    switch m.kind {
                    case .eos: eos.insert(i)
                    case .error(let text, let debug):
                        let failure = Self.errorText(segment: i, message: m, text: text, debug: debug, groups: groups)
                        announce(RunProblemMessage(level: "error", element: m.source, text: failure))
                        return .failed(failure)
                    case .warning: handle(m, segment: i)
                    default: break
                    }
                }
            }
            if options.progress, clock.elapsed(since: lastProgress) >= 1 {
                lastProgress = clock.now
                let r = reporter.report(start: start)
                Log.host.say(
                    .info, String(format: "\r[%6.1f s] in %d out %d dropped %d  %.1f fps   ", r.seconds, r.framesIn, r.framesOut, r.dropped, r.fps),
                    terminator: "")
            }
            if idle { usleep(5_000) }
        }
        if options.progress { Log.host.say(.info, "") }
        return .ended
    }

    /// The loop's own handling of messages services do not look at (warnings, latency, element messages).
    private func handle(_ m: Message, segment i: Int) {
        switch m.kind {
        case .warning(let text, let debug):
            let warning = MessageText.warning(source: m.source, factory: m.sourceFactory, text: text, debug: debug)
            Log.host.say(.warning, warning)
            announce(RunProblemMessage(level: "warning", element: m.source, text: warning))
        case .latency:
            pipelines[i].recalculateLatency()
        case .element(let structure):
            record(BusMessage(source: m.source, structure: structure), toStages: true)
        default: break
        }
    }

    /// Records and announces what services said, applies their ended/restarted segments; their failure, if any.
    private func take(_ said: ServicePoll, eos: inout Set<Int>) -> String? {
        for m in said.announce { publish(m) }
        for (m, toStages) in said.record { record(m, toStages: toStages) }
        eos.formUnion(said.ended)
        eos.subtract(said.restarted)
        return said.failure
    }

    /// A message of the host's own about the run (state, problems): kept and handed to `onElementMessage`
    /// (event clients), not to stages, not printed (the terminal has its own lines for them).
    func announce(_ message: some ViewfinderMessage) { publish(BusMessage(source: "viewfinder", structure: message.structure)) }

    /// Kept, handed to `onElementMessage` (first: benches stamp the hand-over there) and the services.
    private func publish(_ m: BusMessage) {
        log.append(m)
        session.onElementMessage?(m)
        for s in services { s.elementMessage(m) }
    }

    /// An element message: kept, handed to `onElementMessage`, to every stage (bus messages only: the
    /// host's own output messages reach stages as `outputFailed`/`outputRestarted`), printed with `-m`.
    private func record(_ message: BusMessage, toStages: Bool) {
        publish(message)
        if toStages { for g in groups { for st in g.stages { st.stage.busMessage(message) } } }
        if options.printMessages { Log.host.say(.info, MessageText.element(source: message.source, structure: message.structure.text), on: .standardOutput) }
    }

    /// Ends the stream at every source element but ours (`except`), as Ctrl-C does.
    private static func sendEOS(_ pipelines: [Pipeline], except ours: Set<String>) {
        for p in pipelines {
            for s in p.sourceElements where !ours.contains(s.name) { s.sendEOS() }
        }
    }

    /// An error as the session reports it: element, factory, text, a hint when caps did not
    /// negotiate into a stage, and GStreamer's debug text.
    static func errorText(segment: Int, message m: Message, text: String, debug: String?, groups: [StageGroup]) -> String {
        var s = "ERROR from element \(m.source)\(m.sourceFactory.isEmpty ? "" : " (\(m.sourceFactory))"): \(text)"
        if let debug, debug.contains("not-negotiated") {
            for g in groups where g.sinkSegment == segment {
                guard let accepted = g.accepted else { continue }
                let offered = g.sink.peerCaps()?.description ?? "?"
                s +=
                    "\n  stage '\(g.name)' accepts \(accepted.sorted().joined(separator: ", ")); upstream offers \(offered): put 'videoconvert' before it"
            }
        }
        s += MessageText.indentedDebug(debug)
        return s
    }
}
