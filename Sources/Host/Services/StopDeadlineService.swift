import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Network sinks never hold the rest of a run. While it plays: the `queue` before each network sink (srtsink,
/// rtmp2sink, udpsink...; klass `Network`) drops its oldest data when full (`leaky=downstream`, unless the description
/// made it leaky already), so a sink that blocks — srtsink reconnecting to a listener that went away (GStreamer 1.22
/// does, by itself, and resumes when one comes back), a peer too slow to keep up — never blocks the `tee` feeding it
/// and the other outputs and recordings go on. Losses and returns are told by `NetworkOutputService`. At the stop:
/// `StopDeadlineService`.
struct StopDeadlineFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        let sinks = build.pipelines.flatMap { p in p.allElements.filter { $0.isSink && StopDeadlineService.isNetwork($0.factoryName) } }
        for sink in sinks {
            guard let queue = StopDeadlineService.queueUpstream(of: sink), queue.uint32("leaky") == 0 else { continue }
            try? queue.set("leaky", "downstream")
        }
        var services: [any SessionService] = [StopDeadlineService(pipelines: build.pipelines, networkSinks: sinks, clock: build.options.clock)]
        if !sinks.isEmpty { services.append(NetworkOutputService(sinks: sinks, clock: build.options.clock)) }
        return services
    }
}

/// One stop always ends a run, with every recording finished, even when a network sink never takes end-of-stream
/// (srtsink waiting for a peer or reconnecting, rtmp2sink stalled): such a sink blocks in its render, so the
/// end-of-stream behind it never arrives, a full queue before it blocks the `tee` feeding it, and the recordings on
/// the tee's other branches never get their end-of-stream either (a Matroska file without its end, an MP4 without
/// its index).
///
/// Every sink is watched for end-of-stream from the start (`StreamEndWatch`). `releaseAfter` seconds after the stop
/// was asked for, each network sink (klass `.../Network`) that has not taken end-of-stream gets the `queue` upstream
/// of it made leaky and woken (`Element.leakAndWake`): the tee goes on, the end-of-stream reaches the other branches
/// and the recordings finish. Once every sink but those network sinks has taken end-of-stream, every segment counts
/// as ended: the session stops the pipelines (NULL unblocks the network sinks) and the run ends. A stop where only
/// non-network sinks are slow is left alone (a draining encoder may take its time; a second Ctrl-C aborts).
///
/// Threads and locks: built on the session's thread; `stopRequested`/`poll` on the bus loop's; the state under one
/// mutex. The watches' probes run on streaming threads (their own lock).
final class StopDeadlineService: SessionService, @unchecked Sendable {
    let name = "stop-deadline"
    /// Seconds after the stop before stuck network sinks are let go.
    static let releaseAfter = 0.5
    private let pipelines: [Pipeline]
    private let watches: [StreamEndWatch]
    /// The network sinks, by name.
    private let network: Set<String>
    private let clock: any HostClock
    private let state = Mutex<(stopAt: Double?, released: Bool, ended: Bool)>((nil, false, false))

    /// `networkSinks`: the network sinks among the pipelines' elements (the factory found them).
    init(pipelines: [Pipeline], networkSinks: [Element], clock: any HostClock) {
        self.pipelines = pipelines
        self.clock = clock
        watches = pipelines.map { $0.watchStreamEnd() }
        network = Set(networkSinks.map(\.name))
    }

    func stopRequested() -> Set<Int> {
        let now = clock.now
        state.withLock { $0.stopAt = $0.stopAt ?? now }
        return []
    }

    func poll(_ out: inout ServicePoll) {
        let (stopAt, released, ended) = state.withLock { ($0.stopAt, $0.released, $0.ended) }
        guard let stopAt, !ended, clock.now - stopAt >= Self.releaseAfter else { return }
        let (network, others) = stuckSinks()
        guard !network.isEmpty else { return }
        if !released {
            state.withLock { $0.released = true }
            for sink in network {
                let queue = Self.queueUpstream(of: sink)
                queue?.leakAndWake()
                Log.host.say(
                    .warning,
                    "viewfinder: \(sink.name) (\(sink.factoryName)) has not taken end-of-stream \(String(format: "%.1f", Self.releaseAfter)) s after the stop"
                        + (queue.map { ": \($0.name) before it now drops, so the other outputs finish" } ?? ""))
            }
        }
        guard others == 0 else { return }
        state.withLock { $0.ended = true }
        out.ended = Set(pipelines.indices)
        Log.host.say(.warning, "viewfinder: ended without waiting for \(network.map { "\($0.name) (\($0.factoryName))" }.joined(separator: ", "))")
    }

    /// The watched sinks that have not taken end-of-stream: the network ones, and how many others.
    private func stuckSinks() -> (network: [Element], others: Int) {
        var network: [Element] = []
        var others = 0
        for (p, w) in zip(pipelines, watches) {
            let done = Set(w.seen.map(\.sink)), watched = Set(w.watched)
            for e in p.allElements where watched.contains(e.name) && !done.contains(e.name) {
                if self.network.contains(e.name) { network.append(e) } else { others += 1 }
            }
        }
        return (network, others)
    }

    /// True for a sink whose klass says it sends to the network (srtsink, rtmp2sink, udpsink, tcpserversink...).
    static func isNetwork(_ factory: String) -> Bool {
        ElementFactoryInfo(factory)?.klass.split(separator: "/").contains("Network") ?? false
    }

    /// The nearest `queue` upstream of `sink` along single-input elements (parsers, muxers with one input,
    /// encoders), nil when a tee, a second input or the segment's start comes first.
    static func queueUpstream(of sink: Element) -> Element? {
        var e = sink.upstreamElement
        var steps = 0
        while let current = e, steps < 32 {
            if current.factoryName == "queue" { return current }
            if current.factoryName == "tee" { return nil }
            e = current.upstreamElement
            steps += 1
        }
        return nil
    }
}
