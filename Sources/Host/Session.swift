import Foundation
import GStreamerKit
import Stages
import Synchronization

/// A description turned into running segments: built by `SessionBuilder` (with the `Preflight` checks),
/// run here (open the stages, start the segments, `BusLoop` to the end, tear down), reported by
/// `SessionReporter`; failed photo branches are restarted by the `BranchSupervisor`.
///
/// Threads and locks: the caller's thread builds the session and runs `run()`, whose bus loop is on that
/// thread; each stage group has a worker thread; GStreamer's streaming threads feed the appsinks.
/// `requestStop()`/`abort()` may be called from any thread (signal handlers): they only set atomics
/// (`SessionSignals`). `elementMessages`/`messages(_:)` may be read from any thread (`MessageLog` has its
/// own mutex). `errors`, `branchErrors` and `report` are written by `run()` and meant to be read after it
/// returns; `onPlaying`/`onElementMessage` are set before `run()` and called on its thread.
public final class Session: @unchecked Sendable {
    /// The plan the description expanded to.
    public let plan: ExpansionPlan
    /// One pipeline per segment, in plan order.
    public let pipelines: [Pipeline]
    let groups: [StageGroup]
    let options: SessionOptions
    private let signals: SessionSignals
    private let log = MessageLog(limit: 1000)
    private let supervisor: BranchSupervisor
    /// One per watched source segment (`--reconnect`), started once the pipelines play.
    let keepers: [SourceKeeper]
    /// The clock and base time every segment uses (set by `startPipelines`).
    private var runClock: Clock?
    private var runBase: UInt64 = 0
    private let reporter: SessionReporter
    private let createdFiles: [String]
    /// The `rtspserve` servers: bound when built, serving from `run()` until it ends.
    public let rtspServers: [RTSPServer]
    /// The `hlssink2`/`hlssink` outputs with their playlist and segment locations as built (`--http` serves them).
    public let hlsOutputs: [HLSOutput]
    /// The `webrtcserve` server (nil without one): its encode pipeline plays from `run()` until it ends; peers
    /// come through the control server's `/api/webrtc`.
    public let webrtcServer: WebRTCServer?
    /// Every stage's current property values: the validated description (+ overrides), then each
    /// successful `update(stage:_:)`. Its own mutex, taken alone.
    private let values: Mutex<[String: [String: PropertyValue]]>
    /// Where the run is, and since when it was timed (nil before the pipelines play).
    /// The final report is kept here too, so other threads read it under the lock.
    private let progress = Mutex<(phase: Phase, start: Date?, final: SessionReport?)>((.built, nil, nil))
    /// Human-readable problems that ended the run (empty after a clean EOS).
    public private(set) var errors: [String] = []
    /// The figures of the last run.
    public private(set) var report: SessionReport?
    /// Called once the pipelines are PLAYING (tests use it to change things mid-run).
    public var onPlaying: (@Sendable (Session) -> Void)?
    /// The live preview of the last stage group's output (off until a viewer asks; `--http` serves it).
    public let preview: PreviewTap
    /// Whether the run has a stage group to feed the preview (a description without Viewfinder stages has none).
    public var hasPreview: Bool { !groups.isEmpty }
    /// Called for every element message, and for the host's own output messages, as they are recorded.
    public var onElementMessage: (@Sendable (BusMessage) -> Void)?
    /// Called by `update(stage:_:)` with the stage's name and the changes that took (in order), on the
    /// caller's thread (a control server task, never a video thread), after they were applied. Keep it
    /// short: it runs while the request waits (`SettingsWriter.record` only takes a mutex). Any thread may set it.
    public var onPropertiesChanged: (@Sendable (String, [(String, PropertyValue)]) -> Void)? {
        get { changeHook.withLock { $0 } }
        set { changeHook.withLock { $0 = newValue } }
    }
    private let changeHook = Mutex<(@Sendable (String, [(String, PropertyValue)]) -> Void)?>(nil)

    /// Parses, expands and builds every segment; nothing runs yet. Usage errors here mean exit 2.
    public init(description: String, options: SessionOptions = SessionOptions()) throws(HostError) {
        GStreamer.initialize()
        // A write to a closed pipe or FIFO (`metadata-location=/dev/stdout | head`) must fail that write
        // (EPIPE, reported by the writer), not kill the process and the recordings in it.
        signal(SIGPIPE, SIG_IGN)
        let copiesAtStart = BufferCopies.count
        let signals = SessionSignals()
        let preview = PreviewTap()
        self.preview = preview
        let built = try SessionBuilder(options: options, preview: preview, onLatencyChange: { signals.latencyChanged(segment: $0) }).build(description)
        self.options = options
        self.signals = signals
        plan = built.plan
        pipelines = built.pipelines
        groups = built.groups
        createdFiles = built.createdFiles
        rtspServers = built.rtspServers
        hlsOutputs = HLSOutput.find(in: built.pipelines)
        webrtcServer = built.webrtcServer
        supervisor = BranchSupervisor(pipelines: built.pipelines, groups: built.groups)
        let policy = SourceKeeper.Policy(
            stall: options.reconnectStallSeconds, firstDelay: options.reconnectFirstDelay, maxDelay: options.reconnectMaxDelay,
            attempts: options.reconnectAttempts)
        keepers = try SourceSupervision.plan(mode: options.reconnect, plan: built.plan, pipelines: built.pipelines, groups: built.groups)
            .map { SourceKeeper(segment: $0.segment, pipeline: built.pipelines[$0.segment], group: $0.group, element: $0.element, policy: policy) }
        reporter = SessionReporter(groups: built.groups, copiesAtStart: copiesAtStart)
        var current: [String: [String: PropertyValue]] = [:]
        for g in built.plan.groups {
            for p in g.stages {
                guard let t = StageRegistry.type(of: p.kind),
                    let v = try? PropertyValues(
                        specs: t.descriptor.properties, assignments: p.properties.map { ($0.key, $0.value) }, stage: p.name)
                else { continue }
                current[p.name] = Dictionary(
                    uniqueKeysWithValues: t.descriptor.properties.compactMap { s in v.value(named: s.name).map { (s.name, $0) } })
            }
        }
        values = Mutex(current)
    }

    /// Where a session is.
    public enum Phase: String, Sendable {
        /// Built, not yet playing.
        case built
        /// The pipelines play.
        case running
        /// End-of-stream was requested; the pipelines drain.
        case stopping
        /// `run()` returned.
        case ended
    }

    /// Where the run is now (any thread).
    public var phase: Phase {
        let p = progress.withLock { $0.phase }
        return p == .running && stopRequested ? .stopping : p
    }

    /// The figures so far while the run plays (any thread; the same as the end-of-run report's), nil before
    /// the pipelines play; after the run, the final report.
    public var liveReport: SessionReport? {
        let (start, final) = progress.withLock { ($0.start, $0.final) }
        if let final { return final }
        guard let start else { return nil }
        return reporter.report(start: start)
    }

    /// The stage instances in plan order: name and kind (`compose0`, `compose`).
    public var stageInstances: [(name: String, kind: String)] { plan.groups.flatMap(\.stages).map { ($0.name, $0.kind) } }

    /// The current value of every property of stage `name` (description, overrides, then changes while
    /// playing), nil for an unknown stage. Any thread.
    public func propertyValues(ofStage name: String) -> [String: PropertyValue]? { values.withLock { $0[name] } }

    /// Applies validated values to properties marked `.playing` of stage `name` with `Stage.update`
    /// (effective on the next frame), in order, and records each that took. Any thread. Throws the
    /// first refusal (unknown stage, a stage that refuses); the ones before it stay applied. The ones that
    /// took go to `onPropertiesChanged` (also when a later one was refused).
    public func update(stage name: String, _ changes: [(String, PropertyValue)]) throws(StageError) {
        guard let stage = stage(named: name) else { throw StageError(.usage, "no stage '\(name)'") }
        var applied: [(String, PropertyValue)] = []
        defer { if !applied.isEmpty, let hook = onPropertiesChanged { hook(name, applied) } }
        for (property, value) in changes {
            try stage.update(property, value: value)
            values.withLock { $0[name, default: [:]][property] = value }
            applied.append((property, value))
        }
    }

    /// Element messages seen (and the host's output messages), oldest first: the newest 1000.
    /// `description` gives the old "source: structure" line.
    public var elementMessages: [BusMessage] { log.all }

    /// The kept messages of kind `M` that decode, oldest first (`messages(OutputErrorMessage.self)`).
    public func messages<M: ViewfinderMessage>(_ kind: M.Type) -> [M] { log.messages(kind) }

    /// Errors of photo branches that were stopped while the stream went on ("element: text").
    public var branchErrors: [String] { supervisor.errors }

    /// Finds an element by name in any segment.
    public func element(named name: String) -> Element? {
        for p in pipelines { if let e = p.element(named: name) { return e } }
        return nil
    }

    /// The stage instance with that name.
    public func stage(named name: String) -> (any Stage)? {
        for g in groups { if let s = g.stages.first(where: { $0.name == name }) { return s.stage } }
        return nil
    }

    /// Hands a custom event (as an application's GST_EVENT_CUSTOM_* would carry) to every stage group,
    /// delivered to its stages on their worker before their next frame (`Stage.customEvent`). Any thread.
    public func sendCustomEvent(_ event: MessageStructure) { for g in groups { g.inject(event) } }

    /// Ends the stream at every source (as Ctrl-C does): the pipelines drain, files get finalised.
    public func requestStop() { signals.eosRequests.add(1, ordering: .relaxed) }
    /// True once `requestStop()` was called (the stream was ended on purpose).
    public var stopRequested: Bool { signals.eosRequests.load(ordering: .relaxed) > 0 }
    /// Stops at once without draining.
    public func abort() { signals.aborted.store(true, ordering: .relaxed) }
    /// True once `abort()` was called.
    public var wasAborted: Bool { signals.aborted.load(ordering: .relaxed) }

    /// Runs to the end: returns the exit code (0 after EOS everywhere, 1 on a runtime error or abort).
    public func run() -> Int32 {
        if let code = openStages() { return code }
        // Clients may connect from now on; their media is fed once the pipelines play.
        for s in rtspServers { s.start() }
        webrtcServer?.start()
        let start: Date
        switch startPipelines() {
        case .success(let s): start = s
        case .failure(let problem): return finish(code: 1, fallback: problem.text, start: problem.start)
        }
        progress.withLock { $0 = (.running, start, nil) }
        if let runClock { for k in keepers { k.start(clock: runClock, baseTime: runBase) } }
        onPlaying?(self)
        let loop = BusLoop(
            pipelines: pipelines, groups: groups, appSources: Set(plan.segments.flatMap(\.appSources)), options: options,
            signals: signals, log: log, supervisor: supervisor, reporter: reporter, keepers: keepers, onElementMessage: onElementMessage)
        loop.announce(RunStateMessage(state: .running))
        defer { loop.announce(RunStateMessage(state: .ended, code: Int(wasAborted ? 130 : (errors.isEmpty ? 0 : 1)))) }
        switch loop.run(start: start) {
        case .ended: return finish(code: 0, fallback: nil, start: start)
        case .failed(let text): errors.append(text)
        case .aborted: errors.append("aborted")
        }
        return finish(code: 1, fallback: nil, start: start)
    }

    /// Opens every stage (directories, indexes, metadata files), just before the pipelines start, so a
    /// description refused before this point (exit 2, `--dry-run`) has written nothing. A stage that cannot
    /// open ends the run with exit 1 naming it (stages opened before it are closed again).
    /// Returns nil when all opened, else the exit code.
    private func openStages() -> Int32? {
        var opened: [any Stage] = []
        for g in groups {
            for (name, stage) in g.stages {
                do { try stage.open() } catch {
                    errors.append("stage '\(name)' cannot start: \(error.message)")
                    for s in opened { s.close() }
                    return 1
                }
                opened.append(stage)
            }
        }
        return nil
    }

    /// A segment that would not start, and since when the run was timed.
    private struct StartFailure: Error { var text: String; var start: Date }

    /// Live-ness, one clock and base time, then PLAYING downstream first, the workers, the roots.
    /// Returns when the run started (or which segment failed).
    private func startPipelines() -> Result<Date, StartFailure> {
        let clock = Clock.system()
        for p in pipelines { p.use(clock) }
        let roots = plan.segments.filter { $0.appSources.isEmpty }.map(\.index)
        // Which segments are live: roots by their answer to PAUSED, the rest by what feeds them.
        var live = Set<Int>()
        for r in roots {
            let res = pipelines[r].setState(.paused)
            if res == .failure { return .failure(StartFailure(text: "segment \(r) failed to start", start: Date())) }
            if res == .noPreroll { live.insert(r) }
        }
        var changed = true
        while changed {
            changed = false
            for g in groups where live.contains(g.sinkSegment) {
                for seg in [g.main?.segment].compactMap({ $0 }) + g.extras.values.map(\.segment) where !live.contains(seg) {
                    live.insert(seg); changed = true
                }
            }
        }
        for g in groups { g.prepare(live: live.contains(g.sinkSegment)) }
        let base = clock.now
        for p in pipelines { p.fixBaseTime(base) }
        runClock = clock
        runBase = base
        let start = Date()
        // Downstream first, so every appsrc branch is ready before frames flow.
        for i in pipelines.indices.reversed() where !roots.contains(i) {
            if pipelines[i].setState(.playing) == .failure {
                return .failure(StartFailure(text: "segment \(i) failed to start", start: start))
            }
        }
        // Workers only once every appsink is started: a stopped appsink answers "EOS", and a worker
        // that believed it ended its group for good (the second stage of `passthrough ! identity !
        // passthrough` never saw a frame and the run hung).
        for g in groups { g.start() }
        for r in roots {
            if pipelines[r].setState(.playing) == .failure {
                return .failure(StartFailure(text: "segment \(r) failed to start", start: start))
            }
        }
        return .success(start)
    }

    /// Stops workers and pipelines, closes the stages, keeps the report; removes the files this run
    /// created when it failed before a frame came out.
    private func finish(code: Int32, fallback: String?, start: Date) -> Int32 {
        if let fallback {
            // A failed state change says why on the bus: report GStreamer's own error first.
            for (i, p) in pipelines.enumerated() {
                while let m = p.bus.pop() {
                    if case .error(let text, let debug) = m.kind {
                        errors.append(BusLoop.errorText(segment: i, message: m, text: text, debug: debug, groups: groups))
                    }
                }
            }
            errors.append(fallback)
        }
        preview.close()
        for k in keepers { k.release() }
        for g in groups { g.stop() }
        // Sources first so nothing new enters while the rest shuts down.
        for p in pipelines { p.setState(.null) }
        for g in groups { _ = g.join() }
        for g in groups { for st in g.stages { st.stage.close() } }
        // After the pipelines: the clients get the end of the stream, then their connections close.
        for s in rtspServers { s.stop() }
        webrtcServer?.stop()
        var r = reporter.report(start: start)
        r.notes = reporter.notes()
        report = r
        progress.withLock {
            $0.phase = .ended; $0.final = r
        }
        if code != 0 && r.framesOut == 0 {
            // A failed start leaves no half-written files behind.
            for f in createdFiles { try? FileManager.default.removeItem(atPath: f) }
        }
        return code
    }
}
