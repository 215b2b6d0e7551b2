import Foundation
import GStreamerKit
import Stages
import Synchronization

/// One plugin element's Swift side: its property values, and while it runs (READY -> PAUSED until
/// PAUSED -> READY) the stage, the same `StageChain` the host drives (one stage), the context and the
/// default branches.
///
/// Threads and locks: properties are set on the application's thread (`settings`, one mutex; a running
/// stage's `update` is called under it); `start`/`stop` run on the state-change thread, before streaming
/// starts and after it stopped (GstBaseTransform's start/stop), so `running` is only touched by them and by
/// the streaming thread (`process`, `endOfStream`) in between. Custom events may come from any thread
/// (`events`, at most 64, the oldest dropped).
final class PluginInstance: @unchecked Sendable {
    let entry: PluginCatalog.Entry
    private var kind: String { entry.descriptor.kind }

    private struct Settings {
        /// Values set so far (name, text), the last one for each name.
        var assignments: [(String, String)] = []
        /// The running stage (between start and stop), for changes while playing and caps queries.
        var stage: (any Stage)?
    }
    private let settings = Mutex(Settings())
    private let events = Mutex<[MessageStructure]>([])

    /// What exists while the element runs.
    private final class Running {
        let element: PluginElement
        let stage: any Stage
        let chain: StageChain
        let context: PluginContext
        var ended = false
        private var closed = false
        /// `Stage.close()` once (end-of-stream and stop both want it).
        func close() {
            guard !closed else { return }
            closed = true
            stage.close()
        }
        init(element: PluginElement, stage: any Stage, chain: StageChain, context: PluginContext) {
            self.element = element; self.stage = stage; self.chain = chain; self.context = context
        }
    }
    private var running: Running?

    init(entry: PluginCatalog.Entry) { self.entry = entry }

    /// Validates and keeps a property value (the GObject value as text). While running, a property marked
    /// `.playing` changes the stage (effective on the next frame); others are refused. Returns the error text,
    /// which starts with `element` (the element's name) as the host's start with the stage's.
    func set(_ name: String, _ text: String, element: String?) -> String? {
        let label = element ?? "vf\(kind)"
        guard let spec = entry.descriptor.properties.first(where: { $0.name == name }) else {
            return "\(label): no property '\(name)'"
        }
        do throws(StageError) {
            let value = try spec.parse(text, stage: label)
            try settings.withLock { s throws(StageError) in
                if let stage = s.stage {
                    guard spec.mutability == .playing else {
                        throw StageError(
                            .usage, "\(label): property '\(name)' can only be set before the element starts (it is not changeable while playing)")
                    }
                    try stage.update(name, value: value)
                }
                s.assignments.removeAll { $0.0 == name }
                s.assignments.append((name, text))
            }
        } catch {
            return error.message
        }
        return nil
    }

    /// READY -> PAUSED: makes the stage (validating every property), tells it what its outputs became
    /// (a requested pad: linked; else its default branch, started here; else unused), opens it.
    func start(_ element: PluginElement) -> String? {
        let name = element.name
        let assignments = settings.withLock { $0.assignments }
        let stage: any Stage
        var branches: [String: DefaultBranch] = [:]
        var plans: [String: OutputPlan] = [:]
        do throws(StageError) {
            stage = try StageRegistry.make(kind: kind, name: name, assignments: assignments)
            for o in entry.descriptor.outputs {
                if element.hasPad(o.name) {
                    plans[o.name] = .linked
                } else if let fragment = stage.defaultBranch(for: o.name) {
                    branches[o.name] = try DefaultBranch(stage: name, output: o.name, fragment: fragment)
                    plans[o.name] = .defaultBranch(fragment)
                } else {
                    plans[o.name] = .unused
                }
            }
            stage.outputsPlanned(plans)
            try stage.open()
        } catch {
            return error.message
        }
        for b in branches.values {
            if let problem = b.start() {
                for other in branches.values { other.stop() }
                stage.close()
                return "\(name): \(problem)"
            }
        }
        let linked = entry.descriptor.outputs.map(\.name).filter { plans[$0] == .linked }
        let context = PluginContext(stageName: name, element: element, branches: branches, linked: linked)
        context.start()
        running = Running(element: element, stage: stage, chain: StageChain(stages: [(name, stage)], contexts: [context]), context: context)
        settings.withLock { $0.stage = stage }
        return nil
    }

    /// The frame size a resizing stage passes on for `width` x `height` input in `format` (nil: the first format
    /// the stage takes), asked by the element's `transform_caps` on any thread. A width or height of 0 is an input
    /// size not fixed yet: then the answer is the size the properties fix whatever the input (the same for two
    /// unlike inputs), or nil. Asks the running stage (under `settings`, as its `update`); nil before start: caps
    /// are only negotiated once the element started (GstBaseTransform's start comes first), so a link-time query
    /// may leave the size free and no stage is made just to answer it.
    func outputSize(format: String?, width: Int, height: Int) -> (width: Int, height: Int)? {
        guard entry.resizes else { return nil }
        let fallback = entry.descriptor.formats.first { $0 != "ANY" } ?? "I420"
        func info(_ w: Int, _ h: Int) -> VideoInfo? {
            (try? VideoInfo(format: format ?? fallback, width: w, height: h)) ?? (try? VideoInfo(format: fallback, width: w, height: h))
        }
        return settings.withLock { s -> (width: Int, height: Int)? in
            guard let stage = s.stage as? any ResizingStage else { return nil }
            if width > 0 && height > 0 {
                guard let i = info(width, height) else { return nil }
                return stage.outputSize(for: i)
            }
            guard let landscape = info(1920, 1080), let portrait = info(720, 1280) else { return nil }
            let a = stage.outputSize(for: landscape), b = stage.outputSize(for: portrait)
            return a == b ? a : nil
        }
    }

    /// PAUSED -> READY: the stage closes (capture waits for its writer), branches stop, the element
    /// reference goes.
    func stop() {
        settings.withLock { $0.stage = nil }
        guard let r = running else { return }
        running = nil
        r.context.stopOutputs()
        for b in r.context.branches.values { b.stop() }
        r.close()
        events.withLock { $0.removeAll() }
    }

    /// Queues a custom event for the stage, delivered on the streaming thread before the next frame.
    func customEvent(_ text: String) {
        guard let s = MessageStructure(parsing: text) else { return }
        events.withLock { q in
            if q.count >= 64 { q.removeFirst() }
            q.append(s)
        }
    }

    /// One frame through the chain. Returns the frame to pass on: `buffer` (possibly a copy, when a stage had to
    /// write into a shared buffer), or the new buffer a resizing stage rendered; `buffer` itself on error, with the
    /// error text.
    func process(_ buffer: Buffer, caps: Caps, segment: Segment) -> (Buffer, String?) {
        guard let r = running else { return (buffer, "vf\(kind): a frame arrived before the element started") }
        let out: Buffer
        do throws(StageError) {
            if try r.chain.configure(caps) {
                // Default branches get the caps at once, so tags sent before their first frame keep their order.
                for b in r.context.branches.values { b.setCaps(caps) }
            }
            let pending = events.withLock { q in
                defer { q.removeAll() }
                return q
            }
            if !pending.isEmpty { r.chain.deliver(pending) }
            if !r.context.branches.isEmpty || !entry.descriptor.outputs.isEmpty {
                r.context.current.withLock { $0 = (caps, segment) }
            }
            let (frame, _) = try r.chain.process(buffer, caps: caps, segment: segment)
            // Extra outputs carry what the stage saw: the input caps, also after a resizing stage.
            r.context.frameDone(frame, caps: caps)
            out = frame.buffer
        } catch {
            return (buffer, error.message)
        }
        if !r.context.branches.isEmpty { pollBranches(r) }
        return (out, nil)
    }

    /// Hands the default branches' messages to the stage (a failed branch is reported once and stopped), and
    /// starts failed ones again when their wait is over.
    private func pollBranches(_ r: Running) {
        for b in r.context.branches.values {
            b.poll { report($0, branch: b, r) }
            if !r.ended, b.restartIfDue(caps: r.chain.caps) {
                r.stage.outputRestarted(b.output)
                r.context.post(OutputRestartedMessage(stage: r.context.stageName, output: b.output).structure)
            }
        }
    }

    private func report(_ event: BranchEvent, branch: DefaultBranch, _ r: Running) {
        switch event {
        case .message(let m):
            r.stage.busMessage(m)
        case .failed(let element, let text):
            branch.failedNow()
            r.stage.outputFailed(branch.output, reason: text)
            r.context.post(OutputErrorMessage(stage: r.context.stageName, output: branch.output, element: element, text: text).structure)
            r.element.postWarning("\(r.context.stageName): default branch of '\(branch.output)' failed: \(text)")
        }
    }

    /// End of stream: the stage finishes, requested outputs end, default branches write everything they
    /// were given (up to 10 s each), and the stage closes, so its files are complete before EOS goes on.
    func endOfStream() {
        guard let r = running, !r.ended else { return }
        r.ended = true
        r.chain.finish()
        r.context.endOutputs()
        for b in r.context.branches.values { b.finish(timeout: 10) { report($0, branch: b, r) } }
        r.close()
    }
}
