import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Network outputs that GStreamer does not reconnect by itself (`rtmp2sink`, `rtmpsink`: an RTMP server that goes
/// away makes the sink post an error, which would end the run) run in a pipeline of their own and are started again on
/// a back-off while everything else goes on. Each such sink, with what feeds it up to its muxer (`flvmux`), is moved
/// out of its segment (`DetachedOutput`): the muxer's inputs end in appsinks that never block, relayed into appsrcs of
/// the output's pipeline. Must run before `StopDeadlineFactory` (which then finds only the taps).
struct OutputRetryFactory: ServiceFactory {
    /// The sinks that lose their connection for good on a peer's error.
    static let factories: Set<String> = ["rtmp2sink", "rtmpsink"]

    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        var services: [any SessionService] = []
        for p in build.pipelines {
            for sink in p.allElements where sink.isSink && Self.factories.contains(sink.factoryName) {
                guard let output = DetachedOutput.detach(sink, from: p, name: "vf_output_\(sink.name)") else {
                    Log.host.say(
                        .warning,
                        "viewfinder: \(sink.name) (\(sink.factoryName)) is not fed by a muxer in its own chain (e.g. '... ! flvmux ! \(sink.factoryName)'): "
                            + "it is not retried; a lost server ends the run")
                    continue
                }
                services.append(OutputRetryService(output: output, clock: build.options.clock))
            }
        }
        return services
    }
}

/// One detached network output: plays with the session (same clock, same base time), and when its sink fails after it
/// has sent (the server went away, the connection dropped) it is stopped, reported once (`viewfinder/output,
/// state=lost`), started again after 1 s, 2 s, 4 s ... at most 30 s, and reported again once it sends
/// (`state=restored`, outage and attempts). A sink that fails before it ever sent (no server, a wrong location) ends
/// the run with its error, as before: that is a mistake to fix, not an outage to ride out. Stopping: the end-of-stream
/// reaches it through the relays; it is given a second to take it, then stopped.
///
/// Threads and locks: hooks on the session's and the bus loop's thread (the same one while playing); the state under
/// one mutex; the relays on the source pipeline's streaming threads.
final class OutputRetryService: SessionService, @unchecked Sendable {
    let name = "output-retry"
    let output: DetachedOutput
    private let clock: any HostClock
    /// Seconds between two looks at the sink's byte count.
    static let lookEvery = 0.25
    /// How long the output may take to finish its end-of-stream once the run ends.
    static let drainFor = 1.0

    struct State {
        var timing: RunTiming?
        var running = false
        var stopping = false
        var ended = false
        /// It has sent (bytes grew between two looks) since it was started last.
        var sending = false
        var everSent = false
        var lastBytes: Int64?
        var lastLook = -Double.infinity
        var lostAt: Double?
        var retryAt: Double?
        var attempts = 0
        var losses = 0
        var backoff = Backoff(first: 1, maximum: 30)
    }
    private let state = Mutex(State())

    init(output: DetachedOutput, clock: any HostClock) {
        self.output = output
        self.clock = clock
    }

    private var sink: Element { output.sink }
    private var label: String { "\(sink.name) (\(sink.factoryName))" }

    func playing(_ run: RunTiming) {
        state.withLock { $0.timing = run }
        start(run)
    }

    /// Plays the output's pipeline on the session's clock and base time and opens the relays.
    private func start(_ run: RunTiming) {
        output.pipeline.use(run.clock)
        output.pipeline.fixBaseTime(run.baseTime)
        output.matchUpstreamLatency()
        let ok = output.pipeline.setState(.playing) != .failure
        state.withLock {
            $0.running = ok
            $0.sending = false
            $0.lastBytes = nil
        }
        if ok { output.open() }
    }

    private func halt() {
        output.close()
        output.pipeline.setState(.null)
        state.withLock { $0.running = false }
    }

    func stopRequested() -> Set<Int> {
        state.withLock { $0.stopping = true }
        return []
    }

    func poll(_ out: inout ServicePoll) {
        let bus = output.pipeline.bus
        while let m = bus.pop() {
            switch m.kind {
            case .eos:
                state.withLock { $0.ended = true }
            case .error(let text, let debug):
                failed(m, text: text, debug: debug, &out)
            default:
                break
            }
        }
        let now = clock.now
        let (due, run) = state.withLock { s -> (Bool, RunTiming?) in
            guard let at = s.retryAt, now >= at, !s.stopping else { return (false, nil) }
            s.retryAt = nil
            s.attempts += 1
            return (true, s.timing)
        }
        if due, let run { start(run) }
        look(now: now, &out)
    }

    /// An error of the output's pipeline: the run's end when it never sent, else a loss to retry.
    private func failed(_ m: Message, text: String, debug: String?, _ out: inout ServicePoll) {
        let (everSent, stopping, firstLoss, delay) = state.withLock { s -> (Bool, Bool, Bool, Double) in
            guard s.everSent, !s.stopping else { return (s.everSent, s.stopping, false, 0) }
            let first = s.lostAt == nil
            if first {
                s.lostAt = clock.now
                s.losses += 1
                s.attempts = 0
            }
            let d = s.backoff.next()
            s.retryAt = clock.now + d
            return (true, false, first, d)
        }
        halt()
        if stopping { return }
        guard everSent else {
            // As the bus loop words a segment's error (no stage group feeds this pipeline, so no caps hint).
            out.failure = BusLoop.errorText(segment: -1, message: m, text: text, debug: debug, groups: [])
            return
        }
        if firstLoss {
            let message = NetworkOutputMessage(element: sink.name, state: .lost, text: text)
            out.record.append((BusMessage(source: sink.name, structure: message.structure), toStages: false))
            Log.host.say(.warning, "viewfinder: output \(label) lost its server (\(text)); retrying in \(Self.seconds(delay)), the rest goes on")
        } else {
            Log.host.debug("\(label): attempt failed (\(text)); next in \(Self.seconds(delay))")
        }
    }

    /// Every quarter second while running: bytes sent growing means it sends (again).
    private func look(now: Double, _ out: inout ServicePoll) {
        let due = state.withLock { s -> Bool in
            guard s.running, !s.sending, now - s.lastLook >= Self.lookEvery else { return false }
            s.lastLook = now
            return true
        }
        guard due else { return }
        let bytes = sink.structure("stats")?.integer("out-bytes-total")
        let restored = state.withLock { s -> (outage: Double, attempts: Int)? in
            defer { s.lastBytes = bytes }
            guard let bytes, let before = s.lastBytes, bytes > before, output.isOpen else { return nil }
            s.sending = true
            s.everSent = true
            s.backoff.reset()
            guard let lost = s.lostAt else { return nil }
            s.lostAt = nil
            return (now - lost, s.attempts)
        }
        guard let restored else { return }
        let message = NetworkOutputMessage(element: sink.name, state: .restored, outage: restored.outage, attempts: restored.attempts)
        out.record.append((BusMessage(source: sink.name, structure: message.structure), toStages: false))
        Log.host.say(
            .notice,
            "viewfinder: output \(label) sends again after \(String(format: "%.1f", restored.outage)) s (\(restored.attempts) attempt\(restored.attempts == 1 ? "" : "s"))")
    }

    /// Gives a running output up to `drainFor` seconds to take the end-of-stream, then stops it.
    func runEnding() {
        // Bounded in steps of the bus, not on the session's clock (a manual clock may not move here).
        var steps = Int(Self.drainFor / 0.05)
        while steps > 0 && state.withLock({ $0.running && !$0.ended }) {
            steps -= 1
            guard let m = output.pipeline.bus.pop(timeout: 50_000_000) else { continue }
            if case .eos = m.kind { state.withLock { $0.ended = true } }
            if case .error = m.kind { break }
        }
        halt()
    }

    func close() { halt() }

    var reportLines: [String] {
        let s = state.withLock { $0 }
        guard s.losses > 0 else { return [] }
        return ["output: \(label): lost its server \(s.losses) time\(s.losses == 1 ? "" : "s")\(s.lostAt == nil ? ", sending again at the end" : ", still lost at the end")"]
    }

    static func seconds(_ d: Double) -> String { d < 10 ? String(format: "%.1f s", d) : "\(Int(d)) s" }
}
