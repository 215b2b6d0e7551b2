import Foundation
import GStreamerKit
import Stages

/// Watches the source segments `--reconnect` supervises (one `SourceKeeper` each).
struct SourceRecoveryFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        let o = build.options
        let policy = SourceKeeper.Policy(
            stall: o.reconnectStallSeconds, firstDelay: o.reconnectFirstDelay, maxDelay: o.reconnectMaxDelay, attempts: o.reconnectAttempts)
        let keepers = try SourceSupervision.plan(mode: o.reconnect, plan: build.plan, pipelines: build.pipelines, groups: build.groups)
            .map {
                SourceKeeper(
                    segment: $0.segment, pipeline: build.pipelines[$0.segment], group: $0.group, element: $0.element, policy: policy,
                    clock: o.clock)
            }
        return keepers.isEmpty ? [] : [SourceRecoveryService(keepers: keepers)]
    }
}

/// Source recovery: a watched source segment that fails or ends while nobody asked for the end is lost, not
/// finished (its keeper shows a slate and retries); when the keeper gives up, the run ends with its text.
final class SourceRecoveryService: SessionService, @unchecked Sendable {
    let name = "source-recovery"
    /// By segment index.
    let keepers: [Int: SourceKeeper]
    /// In plan order.
    let ordered: [SourceKeeper]

    init(keepers: [SourceKeeper]) {
        ordered = keepers
        self.keepers = Dictionary(keepers.map { ($0.segment, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func playing(_ run: RunTiming) { for k in ordered { k.start(clock: run.clock, baseTime: run.baseTime) } }

    func busMessage(_ m: ServiceBusMessage, _ out: inout ServicePoll) -> BusVerdict {
        guard let k = keepers[m.segment], !m.stopping, !k.isReleased else { return .pass }
        switch m.message.kind {
        case .eos:
            k.failed("end of stream")
            return .handled
        case .error(let text, _):
            k.failed("\(m.message.source): \(text)")
            out.announce.append(
                BusMessage(
                    source: "viewfinder", structure: RunProblemMessage(level: "warning", element: m.message.source, text: "source lost: \(text)").structure))
            return .handled
        default: return .pass
        }
    }

    func poll(_ out: inout ServicePoll) {
        for k in ordered {
            for m in k.drainMessages() { out.record.append((BusMessage(source: "viewfinder", structure: m.structure), true)) }
            if let text = k.gaveUp, out.failure == nil {
                out.announce.append(
                    BusMessage(source: "viewfinder", structure: RunProblemMessage(level: "error", element: k.element, text: text).structure))
                out.failure = text
            }
        }
    }

    /// Supervision ends first, so the end-of-stream goes through; a source segment that is down has nothing to send:
    /// its group's stream is ended here and its segment counts as ended.
    func stopRequested() -> Set<Int> { Set(ordered.filter { $0.release() }.map(\.segment)) }

    func runEnding() { for k in ordered { k.release() } }

    /// Per watched source (label `source`, the element): `viewfinder_source_up` (1 while live),
    /// `viewfinder_source_state` (1 for its state of waiting, live, lost, ended; 0 for the others),
    /// `viewfinder_source_losses_total`, `viewfinder_source_reconnects_total` (restored) and
    /// `viewfinder_source_reconnect_attempts_total`.
    var metricSamples: [MetricSample] {
        var out: [MetricSample] = []
        for k in ordered {
            let f = k.figures
            let source = ("source", k.element)
            out.append(
                MetricSample(
                    "viewfinder_source_up", .gauge, help: "1 while the watched source delivers live frames, else 0", labels: [source],
                    value: f.phase == .live ? 1 : 0))
            for state in SourceRecovery.Phase.allCases {
                out.append(
                    MetricSample(
                        "viewfinder_source_state", .gauge,
                        help: "1 for the watched source's state (waiting, live, lost, ended), 0 for the others", labels: [source, ("state", state.rawValue)], value: f.phase == state ? 1 : 0))
            }
            out.append(
                MetricSample(
                    "viewfinder_source_losses_total", .counter, help: "Times the watched source was lost", labels: [source],
                    value: Double(f.losses)))
            out.append(
                MetricSample(
                    "viewfinder_source_reconnects_total", .counter, help: "Times the watched source came back after a loss", labels: [source],
                    value: Double(f.restores)))
            out.append(
                MetricSample(
                    "viewfinder_source_reconnect_attempts_total", .counter, help: "Restarts of the watched source's segment tried after losses",
                    labels: [source], value: Double(f.attempts)))
        }
        return out
    }
}

/// Keeps photo branches going (`BranchSupervisor`) in sessions whose stages have extra outputs.
struct PhotoBranchFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        guard build.groups.contains(where: { !$0.extras.isEmpty }) else { return [] }
        return [PhotoBranchService(supervisor: BranchSupervisor(pipelines: build.pipelines, groups: build.groups, clock: build.options.clock))]
    }
}

/// A failed photo branch is stopped on its own while the stream goes on, and started again later.
final class PhotoBranchService: SessionService, @unchecked Sendable {
    let name = "photo-branches"
    let supervisor: BranchSupervisor
    /// Set once end-of-stream was asked for: nothing is restarted from then on. Bus loop thread only.
    private var stopping = false

    init(supervisor: BranchSupervisor) { self.supervisor = supervisor }

    func busMessage(_ m: ServiceBusMessage, _ out: inout ServicePoll) -> BusVerdict {
        guard case .error(let text, _) = m.message.kind,
            let failed = supervisor.branchFailed(segment: m.segment, source: m.message.source, text: text)
        else { return .pass }
        out.record.append((failed, false))
        return .segmentEnded
    }

    func poll(_ out: inout ServicePoll) {
        var down = Set(supervisor.dead.keys)
        let before = down
        for m in supervisor.restartDue(stopping: stopping, eos: &down) { out.record.append((m, false)) }
        out.restarted.formUnion(before.subtracting(down))
    }

    func stopRequested() -> Set<Int> {
        stopping = true
        return []
    }
}

extension Session {
    /// Errors of photo branches that were stopped while the stream went on ("element: text").
    public var branchErrors: [String] { services(PhotoBranchService.self).first?.supervisor.errors ?? [] }
    /// The source keepers (`--reconnect`), in plan order.
    var keepers: [SourceKeeper] { services(SourceRecoveryService.self).first?.ordered ?? [] }
}
