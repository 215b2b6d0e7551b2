import Foundation
import GStreamerKit
import Stages
import Synchronization

/// A description turned into running segments: parse, expand, build, run to EOS, report.
///
/// Threads: the caller's thread runs the bus loop in `run()`; each stage group has a worker
/// thread; GStreamer's streaming threads feed the appsinks. `requestStop()`/`abort()` may be
/// called from any thread (signal handlers).
public final class Session: @unchecked Sendable {
    /// The plan the description expanded to.
    public let plan: ExpansionPlan
    /// One pipeline per segment, in plan order.
    public let pipelines: [Pipeline]
    let groups: [StageGroup]
    let options: SessionOptions
    private let eosRequests = Atomic<Int>(0)
    private let aborted = Atomic<Bool>(false)
    private var createdFiles: [String] = []
    /// Human-readable problems that ended the run (empty after a clean EOS).
    public private(set) var errors: [String] = []
    /// Element messages seen, as "source: structure" lines (the newest 1000).
    public private(set) var elementMessages: [String] = []
    /// The figures of the last run.
    public private(set) var report: SessionReport?
    /// Called once the pipelines are PLAYING (tests use it to change things mid-run).
    public var onPlaying: (@Sendable (Session) -> Void)?
    /// Called for every element message (source element name, structure text).
    public var onElementMessage: (@Sendable (String, String) -> Void)?

    /// Parses, expands and builds every segment; nothing runs yet. Usage errors here mean exit 2.
    public init(description: String, options: SessionOptions = SessionOptions()) throws(HostError) {
        GStreamer.initialize()
        // A write to a closed pipe or FIFO (`metadata-location=/dev/stdout | head`) must fail that write
        // (EPIPE, reported by the writer), not kill the process and the recordings in it.
        signal(SIGPIPE, SIG_IGN)
        self.options = options
        let parsed: ParsedDescription
        do {
            parsed = try ParsedDescription.parse(description).applying(overrides: options.overrides)
        } catch { throw HostError(.usage, error.message) }
        try Session.checkFactories(parsed)

        // Instantiate stages (validates their properties) while planning.
        var made: [String: any Stage] = [:]
        var stageError: StageError?
        func instance(_ p: StagePlan) -> (any Stage)? {
            if let s = made[p.name] { return s }
            do {
                let s = try StageRegistry.make(kind: p.kind, name: p.name, assignments: p.properties.map { ($0.key, $0.value) })
                made[p.name] = s
                return s
            } catch { stageError = stageError ?? error; return nil }
        }
        let plan: ExpansionPlan
        do {
            plan = try Expansion.plan(parsed, stage: { kind in
                StageRegistry.type(of: kind).map { StageSignature(kind: kind, outputs: $0.descriptor.outputs.map(\.name)) }
            }, defaultBranch: { p, output in instance(p)?.defaultBranch(for: output) })
        } catch { throw HostError(.usage, error.message) }
        for g in plan.groups { for p in g.stages { _ = instance(p) } }
        if let stageError { throw HostError(.usage, stageError.message) }
        // Tell each stage what became of its extra outputs.
        for g in plan.groups {
            for p in g.stages {
                guard let st = made[p.name] else { continue }
                var plans: [String: OutputPlan] = [:]
                for output in type(of: st).descriptor.outputs.map(\.name) {
                    switch g.extraOutputs.first(where: { $0.stage == p.name && $0.output == output }) {
                    case nil: plans[output] = .unused
                    case let e? where !e.isDefaultBranch: plans[output] = .linked
                    case _?: plans[output] = st.defaultBranch(for: output).map { .defaultBranch($0) } ?? .unused
                    }
                }
                st.outputsPlanned(plans)
            }
        }

        // Build every segment.
        var pipes: [Pipeline] = []
        for seg in plan.segments {
            do { pipes.append(try Pipeline.parse(seg.description)) } catch {
                // GStreamer quotes the bad value in full: cut it there, and leave it out of the segment.
                throw HostError(.usage, "\(Echo.message(error.message)) (in segment \(seg.index): \(Echo.description(seg.description)))")
            }
        }
        // Directories stages create when they open (capture's DIR/.partial/...): their branches may write there.
        let stageDirectories = plan.groups.flatMap(\.stages).compactMap { made[$0.name] }.flatMap(\.createsDirectories)
        let created = try Session.checkFiles(pipes, stageDirectories: stageDirectories)
        try Session.checkLinks(pipes)

        // Wire stage groups to their appsinks/appsrcs.
        func find(_ name: String) -> (Pipeline, Int)? {
            for (i, s) in plan.segments.enumerated() where s.appSinks.contains(name) || s.appSources.contains(name) { return (pipes[i], i) }
            return nil
        }
        var gs: [StageGroup] = []
        for g in plan.groups {
            guard let (sp, si) = find(g.appSink), let sink = sp.appSink(named: g.appSink) else {
                throw HostError(.usage, "internal: appsink '\(g.appSink)' missing from the expanded segments")
            }
            var main: (AppSource, Int)?
            if let m = g.mainOutput, let (mp, mi) = find(m), let src = mp.appSource(named: m) { main = (src, mi) }
            var extras: [String: (AppSource, Int)] = [:]
            for e in g.extraOutputs {
                if let (ep, ei) = find(e.appSource), let src = ep.appSource(named: e.appSource) { extras["\(e.stage).\(e.output)"] = (src, ei) }
            }
            var stages: [(String, any Stage)] = []
            for p in g.stages {
                guard let st = made[p.name] else { throw HostError(.usage, "internal: stage '\(p.name)' was not made") }
                stages.append((p.name, st))
            }
            gs.append(StageGroup(plan: g, stages: stages, sink: sink, sinkSegment: si, main: main, extras: extras))
        }
        // Branches fed by extra outputs (snapshots) get tags per frame: make their tag setters
        // (jifmux) take each photo's tags instead of keeping the first photo's.
        let extraSegments = Set(plan.groups.flatMap { $0.extraOutputs.map(\.appSource) })
        for (i, seg) in plan.segments.enumerated() where !extraSegments.isDisjoint(with: seg.appSources) {
            for e in pipes[i].describedElements { e.replaceTagsOnEachEvent() }
        }
        // Hand-off bounds and caps must be in place before the first frame (preroll) arrives;
        // downstream groups first, so their caps show through the caps queries of upstream ones.
        for g in gs.reversed() {
            g.sink.configure(maxBuffers: UInt32(max(1, options.queueSize)), drop: options.queue == .leaky, caps: try g.negotiatedSinkCaps())
            g.arrivals = g.sink.countArrivals()
        }
        self.plan = plan
        pipelines = pipes
        groups = gs
        createdFiles = created
    }

    /// Every element factory named in the description must exist (stages aside).
    static func checkFactories(_ parsed: ParsedDescription) throws(HostError) {
        for chain in parsed.chains {
            for node in chain.nodes {
                guard case .element(let f, _, _) = node else { continue }
                if StageRegistry.type(of: f) != nil || GStreamer.hasElementFactory(f) { continue }
                throw HostError(.usage, "unknown element or stage '\(Echo.value(f))': no GStreamer plugin provides it and it is not a Viewfinder stage (\(StageRegistry.all.map { $0.descriptor.kind }.joined(separator: ", "))); check the spelling or install the plugin")
            }
        }
    }

    /// An always-pad left unlinked means a missing '!' (or a dangling branch).
    static func checkLinks(_ pipes: [Pipeline]) throws(HostError) {
        for p in pipes {
            let elements = p.describedElements
            // After decodebin or a demuxer, gst_parse_launch links what follows once pads appear.
            let delayedLinks = elements.contains { $0.hasSometimesOutputs }
            let unlinked = elements.flatMap { e in e.unlinkedAlwaysPads.map { (e, $0) } }
            // Outputs first: "a b ! c" is best explained as a missing '!' after a.
            if let (e, pad) = unlinked.first(where: { $0.1.isSource }) {
                throw HostError(.usage, "element '\(e.name)' (\(e.factoryName)) has nothing linked to its output '\(pad.pad)': missing '!' after '\(e.factoryName)'?")
            }
            if !delayedLinks, let (e, pad) = unlinked.first {
                throw HostError(.usage, "element '\(e.name)' (\(e.factoryName)) has nothing linked into its input '\(pad.pad)': missing '!' before '\(e.factoryName)'?")
            }
        }
    }

    /// Local files read must exist (and be files); files written must have a writable directory (or one a
    /// stage creates when it opens, `stageDirectories`). Which elements read or write local files is decided
    /// from the element (its URI handler's protocols, or a known file-writing sink), never from a property
    /// name: `rtspsrc location=rtsp://...` or `rtmpsink location=rtmp://...` are not files.
    /// Nothing is created here. Returns the files this run will create (removed again if it fails to start).
    static func checkFiles(_ pipes: [Pipeline], stageDirectories: [String] = []) throws(HostError) -> [String] {
        var created: [String] = []
        for p in pipes {
            for e in p.describedElements {
                for f in e.localFiles {
                    let what = "\(f.property) of \(e.factoryName)"
                    switch f.role {
                    case .reads:
                        let problem = f.isPattern ? PathCheck.readableDirectory(of: f.path) : PathCheck.readableFile(f.path)
                        if let problem { throw HostError(.usage, "\(e.name): \(problem) (\(what))") }
                    case .writes:
                        if let problem = PathCheck.writableFile(f.path, willExist: stageDirectories) {
                            throw HostError(.usage, "\(e.name): cannot write '\(Echo.value(f.path))': \(problem) (\(what))")
                        }
                        if !f.isPattern && !FileManager.default.fileExists(atPath: f.path) { created.append(f.path) }
                    }
                }
            }
        }
        return created
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

    /// Ends the stream at every source (as Ctrl-C does): the pipelines drain, files get finalised.
    public func requestStop() { eosRequests.add(1, ordering: .relaxed) }
    /// True once `requestStop()` was called (the stream was ended on purpose).
    public var stopRequested: Bool { eosRequests.load(ordering: .relaxed) > 0 }
    /// Stops at once without draining.
    public func abort() { aborted.store(true, ordering: .relaxed) }
    /// True once `abort()` was called.
    public var wasAborted: Bool { aborted.load(ordering: .relaxed) }

    private func sendEOSToSources() {
        let ours = Set(plan.segments.flatMap(\.appSources))
        for p in pipelines {
            for s in p.sourceElements where !ours.contains(s.name) { s.sendEOS() }
        }
    }

    /// Runs to the end: returns the exit code (0 after EOS everywhere, 1 on a runtime error or abort).
    public func run() -> Int32 {
        if let code = openStages() { return code }
        let clock = Clock.system()
        for p in pipelines { p.use(clock) }
        let roots = plan.segments.filter { $0.appSources.isEmpty }.map(\.index)

        // Which segments are live: roots by their answer to PAUSED, the rest by what feeds them.
        var live = Set<Int>()
        for r in roots {
            let res = pipelines[r].setState(.paused)
            if res == .failure { return finish(code: 1, fallback: "segment \(r) failed to start") }
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
        let budget = UInt64(options.stageBudgetMs * 1e6)
        for g in groups {
            g.live = live.contains(g.sinkSegment)
            g.budgetNs = budget
            let leaky = options.queue == .leaky || (options.queue == .auto && g.live)
            g.sink.setDrop(leaky)
            g.main?.src.configure(live: g.live, maxBuffers: 4, minLatency: budget)
            // Snapshot-like outputs are not live: their branch prerolls on the first frame pushed.
            for e in g.extras.values { e.src.configure(live: false, maxBuffers: 8, minLatency: 0) }
            g.onLatencyChange = { [weak self] seg in self?.latencyDirty.store(seg + 1, ordering: .relaxed) }
            g.watchEvents()
        }

        let base = clock.now
        for p in pipelines { p.fixBaseTime(base) }
        let start = Date()
        // Downstream first, so every appsrc branch is ready before frames flow.
        for i in pipelines.indices.reversed() where !roots.contains(i) {
            if pipelines[i].setState(.playing) == .failure { return finish(code: 1, fallback: "segment \(i) failed to start", start: start) }
        }
        // Workers only once every appsink is started: a stopped appsink answers "EOS", and a worker
        // that believed it ended its group for good (the second stage of `passthrough ! identity !
        // passthrough` never saw a frame and the run hung).
        for g in groups { g.start() }
        for r in roots {
            if pipelines[r].setState(.playing) == .failure { return finish(code: 1, fallback: "segment \(r) failed to start", start: start) }
        }
        onPlaying?(self)

        let buses = pipelines.map(\.bus)
        var eos = Set<Int>()
        var handledStops = 0
        var lastProgress = Date()
        while eos.count < pipelines.count {
            if aborted.load(ordering: .relaxed) {
                errors.append("aborted")
                return finish(code: 1, fallback: nil, start: start)
            }
            let stops = eosRequests.load(ordering: .relaxed)
            if stops > handledStops {
                handledStops = stops
                // Off the bus thread: sending EOS can block (a sink waiting for a client), and the
                // loop must keep reading the bus and the abort flag meanwhile.
                if stops == 1 { Thread.detachNewThread { [self] in sendEOSToSources() } }
            }
            restartBranches(stopping: stops > 0, eos: &eos)
            let dirty = latencyDirty.exchange(0, ordering: .relaxed)
            if dirty > 0 { pipelines[dirty - 1].recalculateLatency() }
            var idle = true
            for (i, bus) in buses.enumerated() {
                while let m = bus.pop() {
                    idle = false
                    switch m.kind {
                    case .eos: eos.insert(i)
                    case .error(let text, let debug):
                        if let (group, output) = branchOwner(segment: i), !eos.contains(i) {
                            // A photo branch failed (full disk, unwritable directory): report it, stop that
                            // branch only, tell its stage; the stream goes on, and the branch is tried
                            // again later (5 s, doubling up to a minute) in case space comes back.
                            let delay = min(60, (deadBranches[i]?.delay ?? 2.5) * 2)
                            AppendFile.writeStandardError("ERROR from element \(m.source) in the '\(output)' branch (stopped; the stream goes on; retrying in \(Int(delay)) s): \(text)\n")
                            if branchErrors.count < 100 { branchErrors.append("\(m.source): \(text)") }
                            pipelines[i].setState(.null)
                            eos.insert(i)
                            deadBranches[i] = (Date().addingTimeInterval(delay), delay, group, output)
                            let (stageName, out) = Self.splitOutput(output)
                            for st in group.stages where st.name == stageName { st.stage.outputFailed(out, reason: text) }
                            continue
                        }
                        if eos.contains(i) { continue }
                        errors.append(errorText(segment: i, message: m, text: text, debug: debug))
                        return finish(code: 1, fallback: nil, start: start)
                    case .warning(let text, let debug):
                        AppendFile.writeStandardError((MessageText.warning(source: m.source, factory: m.sourceFactory, text: text, debug: debug) + "\n"))
                    case .latency:
                        pipelines[i].recalculateLatency()
                    case .element(let structure):
                        let fields = structure.text
                        if elementMessages.count >= 1000 { elementMessages.removeFirst(elementMessages.count - 999) }
                        elementMessages.append("\(m.source): \(fields)")
                        onElementMessage?(m.source, fields)
                        let message = BusMessage(source: m.source, structure: structure)
                        for g in groups { for st in g.stages { st.stage.busMessage(message) } }
                        if options.printMessages { print(MessageText.element(source: m.source, structure: fields)) }
                    default: break
                    }
                }
            }
            if options.progress, Date().timeIntervalSince(lastProgress) >= 1 {
                lastProgress = Date()
                let r = currentReport(start: start)
                AppendFile.writeStandardError(String(format: "\r[%6.1f s] in %d out %d dropped %d  %.1f fps   ", r.seconds, r.framesIn, r.framesOut, r.dropped, r.fps))
            }
            if idle { usleep(5_000) }
        }
        if options.progress { AppendFile.writeStandardError("\n") }
        return finish(code: 0, fallback: nil, start: start)
    }

    /// Errors of photo branches that were stopped while the stream went on.
    public private(set) var branchErrors: [String] = []

    /// Photo branches stopped by an error: when to try again, the current delay, their owner.
    private var deadBranches: [Int: (retryAt: Date, delay: Double, group: StageGroup, output: String)] = [:]

    /// Starts stopped photo branches again once their delay is over, unless the stream is ending.
    private func restartBranches(stopping: Bool, eos: inout Set<Int>) {
        for (i, d) in deadBranches where Date() >= d.retryAt {
            if stopping || d.group.ended.load(ordering: .sequentiallyConsistent) { deadBranches[i] = nil; continue }
            deadBranches[i]!.retryAt = .distantFuture
            guard pipelines[i].setState(.playing) != .failure else { deadBranches[i]!.retryAt = Date().addingTimeInterval(d.delay); continue }
            eos.remove(i)
            // The worker may have ended the stream while the branch was down: end this branch too.
            if d.group.ended.load(ordering: .sequentiallyConsistent) { d.group.extras[d.output]?.src.endOfStream() }
            AppendFile.writeStandardError("viewfinder: the '\(d.output)' branch was started again\n")
            let (stageName, out) = Self.splitOutput(d.output)
            for st in d.group.stages where st.name == stageName { st.stage.outputRestarted(out) }
        }
    }

    /// "stage.output" split in two.
    private static func splitOutput(_ key: String) -> (stage: String, output: String) {
        guard let dot = key.lastIndex(of: ".") else { return (key, "") }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }

    /// The stage group and "stage.output" whose extra output feeds segment `i`, when that segment is a
    /// branch fed only by that output (a photo branch), not a path to other stages or the main output.
    private func branchOwner(segment i: Int) -> (StageGroup, String)? {
        for g in groups {
            guard let (key, _) = g.extras.first(where: { $0.value.segment == i }) else { continue }
            if groups.contains(where: { $0.sinkSegment == i }) || groups.contains(where: { $0.main?.segment == i }) { return nil }
            return (g, key)
        }
        return nil
    }

    private let latencyDirty = Atomic<Int>(0)
    private let copiesAtStart = BufferCopies.count

    private func errorText(segment: Int, message m: Message, text: String, debug: String?) -> String {
        var s = "ERROR from element \(m.source)\(m.sourceFactory.isEmpty ? "" : " (\(m.sourceFactory))"): \(text)"
        if let debug, debug.contains("not-negotiated") {
            for g in groups where g.sinkSegment == segment && g.accepted != nil {
                let offered = g.sink.peerCaps()?.description ?? "?"
                s += "\n  stage '\(g.name)' accepts \(g.accepted!.sorted().joined(separator: ", ")); upstream offers \(offered): put 'videoconvert' before it"
            }
        }
        s += MessageText.indentedDebug(debug)
        return s
    }

    func currentReport(start: Date) -> SessionReport {
        var framesIn = 0, framesOut = 0, dropped = 0, reneg = 0
        var timings: [SessionReport.StageTiming] = []
        // Frames in: what reached the first workers; frames out: what the last workers passed on.
        let feeding = Set(groups.compactMap { $0.main?.segment })
        for g in groups {
            let v = g.stats.values.withLock { $0 }
            let arrived = g.arrivals?.value ?? v.pulled
            if !feeding.contains(g.sinkSegment) { framesIn += arrived }
            if g.main == nil || !groups.contains(where: { $0.sinkSegment == g.main!.segment }) { framesOut += v.pushed }
            dropped += max(0, arrived - v.pulled)
            reneg += v.renegotiations
            for n in g.stats.stageOrder {
                let h = v.perStage[n]!
                timings.append(.init(name: n, frames: h.count, meanMs: h.mean, p95Ms: h.quantile(0.95)))
            }
        }
        return SessionReport(framesIn: framesIn, framesOut: framesOut, dropped: dropped, seconds: Date().timeIntervalSince(start),
                             renegotiations: reneg, copies: BufferCopies.count - copiesAtStart, stages: timings)
    }

    private func finish(code: Int32, fallback: String?, start: Date = Date()) -> Int32 {
        if let fallback {
            // A failed state change says why on the bus: report GStreamer's own error first.
            for (i, p) in pipelines.enumerated() {
                while let m = p.bus.pop() {
                    if case .error(let text, let debug) = m.kind { errors.append(errorText(segment: i, message: m, text: text, debug: debug)) }
                }
            }
            errors.append(fallback)
        }
        for g in groups { g.stop() }
        // Sources first so nothing new enters while the rest shuts down.
        for p in pipelines { p.setState(.null) }
        for g in groups { _ = g.join() }
        for g in groups { for st in g.stages { st.stage.close() } }
        let r = currentReport(start: start)
        report = r
        report?.notes = groups.flatMap { g in g.stages.compactMap { $0.stage.summary() } }
        if code != 0 && r.framesOut == 0 {
            // A failed start leaves no half-written files behind.
            for f in createdFiles { try? FileManager.default.removeItem(atPath: f) }
        }
        return code
    }
}
