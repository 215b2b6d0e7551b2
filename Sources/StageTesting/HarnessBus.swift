import GStreamerKit
import Stages
import Synchronization
import Timing

/// What the stages under test send anywhere: items on outputs, posted messages. Shared by every
/// stage's context; stages may post from their own threads (compose's analysis), so it is locked.
final class HarnessBus: Sendable {
    struct Log {
        /// Items per output key (`""` main, `stage.output` extra), in order.
        var items: [String: [HarnessItem]] = [:]
        /// Items of each output already pulled.
        var cursors: [String: Int] = [:]
        /// Every message seen on the simulated bus, in order.
        var messages: [BusMessage] = []
        /// Messages posted by stages not yet handed to the stages' `busMessage`.
        var undelivered: [BusMessage] = []
        /// Simulated appsrc queues (`backlog(on:)`).
        var backlog: [String: Int] = [:]
        /// Outputs whose pushes are refused (unused, or refused by the test).
        var refused: Set<String> = []
        /// Simulated default branches writing files.
        var branches: [String: FileBranch] = [:]
    }

    let log = Mutex(Log())
    /// The clock the contexts hand the stages (`StageHarness.clock`).
    let clock = Mutex<any HostClock>(SystemClock.shared)
    /// Every stage, to hand bus messages to (as the host hands every element message to every stage).
    let stages: [(name: String, stage: any Stage)]

    init(stages: [(name: String, stage: any Stage)]) { self.stages = stages }

    func append(_ item: HarnessItem, on key: String) {
        log.withLock { $0.items[key, default: []].append(item) }
    }

    /// Hands `message` to every stage's `busMessage`, outside the lock.
    func deliver(_ message: BusMessage) {
        for s in stages { s.stage.busMessage(message) }
    }

    /// Delivers what stages posted since the last call (the host does so on its own thread, later).
    func deliverPosted() {
        let pending = log.withLock { l in
            defer { l.undelivered.removeAll() }; return l.undelivered
        }
        for m in pending { deliver(m) }
    }
}

/// The `StageContext` each stage under test sees: pushes land on the harness's outputs, posts on its bus.
final class HarnessContext: StageContext {
    let stageName: String
    let bus: HarnessBus

    init(stageName: String, bus: HarnessBus) { self.stageName = stageName; self.bus = bus }

    var clock: any HostClock { bus.clock.withLock { $0 } }

    private func key(_ output: String) -> String { "\(stageName).\(output)" }

    func push(_ frame: VideoFrame, on output: String) -> Bool {
        let k = key(output)
        // Held as the host's appsrc holds it: one more reference, so a later write (blending) copies.
        let shared = VideoFrame(
            buffer: frame.buffer.shared(), info: frame.info, caps: frame.caps, segment: frame.segment, index: frame.index)
        let (accepted, report): (Bool, BusMessage?) = bus.log.withLock { l in
            guard !l.refused.contains(k) else { return (false, nil) }
            l.items[k, default: []].append(.frame(shared))
            guard var branch = l.branches[k] else { return (true, nil) }
            let m = branch.write(shared)
            l.branches[k] = branch
            if let m { l.messages.append(m) }
            return (true, m)
        }
        if let report { bus.deliver(report) }
        return accepted
    }

    func push(_ tags: TagList, on output: String) -> Bool {
        let k = key(output)
        return bus.log.withLock { l in
            guard !l.refused.contains(k) else { return false }
            l.items[k, default: []].append(.tags(tags))
            return true
        }
    }

    func push(event: MessageStructure, on output: String) -> Bool {
        let k = key(output)
        return bus.log.withLock { l in
            guard !l.refused.contains(k) else { return false }
            l.items[k, default: []].append(.event(event))
            return true
        }
    }

    func post(_ message: MessageStructure) {
        // As the host's context does: the posting stage is named in a leading `stage` field.
        var m = message
        if !m.fields.contains(where: { $0.0 == "stage" }) { m.fields.insert(("stage", .string(stageName)), at: 0) }
        let bm = BusMessage(source: stageName, structure: m)
        bus.log.withLock {
            $0.messages.append(bm); $0.undelivered.append(bm)
        }
    }

    func backlog(on output: String) -> Int { bus.log.withLock { $0.backlog[key(output)] ?? 0 } }
}
