import Diagnostics
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Makes the source switch of every session: the target (the one source segment in front of a stage group) or why
/// there is none.
struct SourceSwitchFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        [SourceSwitchService(target: Self.target(plan: build.plan, pipelines: build.pipelines, groups: build.groups))]
    }

    /// The source segment a switch replaces, or why none can be.
    static func target(plan: ExpansionPlan, pipelines: [Pipeline], groups: [StageGroup]) -> Result<
        SourceSwitchService.Target, SourceSwitchError
    > {
        if groups.isEmpty {
            return .failure(
                SourceSwitchError(
                    .conflict, "the description has no Viewfinder stage: there is nothing to switch a source in front of (one segment)"))
        }
        let fed = groups.filter { plan.segments[$0.sinkSegment].appSources.isEmpty }
        guard let group = fed.first else { return .failure(SourceSwitchError(.conflict, "no source segment feeds a stage")) }
        if fed.count > 1 {
            return .failure(
                SourceSwitchError(
                    .conflict,
                    "the description has \(fed.count) sources in front of stages (\(fed.map(\.name).joined(separator: ", "))): which one to switch is not said"
                ))
        }
        let pipeline = pipelines[group.sinkSegment]
        let others = pipeline.describedElements.filter { $0.isSink && $0.name != group.sink.name }.map(\.name)
        if !others.isEmpty {
            return .failure(
                SourceSwitchError(
                    .conflict,
                    "the source segment also feeds \(others.joined(separator: ", ")): a switch would take them away; put branches after a stage to switch the source"
                ))
        }
        return .success(.init(segment: group.sinkSegment, pipeline: pipeline, group: group))
    }
}

/// The source switch (`Session.switchSource(to:)`): runs the switch on the caller's thread, one at a time; on the bus
/// loop it takes the errors of the new source while it is tried (they are the switch's refusal, not the run's end)
/// and those of the old source's elements as they are taken out, and records each switch as a `viewfinder/source`
/// message (`state=switched`).
///
/// Threads and locks: `switchSource` on any thread; the hooks on the session's (bus loop) thread; `state` is a mutex
/// shared by both, never held while calling GStreamer.
final class SourceSwitchService: SessionService, @unchecked Sendable {
    let name = "source-switch"
    /// What a switch replaces.
    struct Target: @unchecked Sendable {
        let segment: Int
        let pipeline: Pipeline
        let group: StageGroup
    }
    let target: Result<Target, SourceSwitchError>

    struct State {
        var timing: RunTiming?
        var ended = false
        var busy = false
        /// The elements of the source being tried, and the first error one of them posted.
        var trial: Set<String> = []
        var trialError: String?
        /// Elements taken out by switches (their late messages are not the run's), and those of the current source.
        var retired: Set<String> = []
        var current: Set<String> = []
        var messages: [SourceMessage] = []
        var switches = 0
    }
    let state = Mutex(State())

    init(target: Result<Target, SourceSwitchError>) { self.target = target }

    func playing(_ run: RunTiming) { state.withLock { $0.timing = run } }
    func stopRequested() -> Set<Int> {
        state.withLock { $0.ended = true }
        return []
    }
    func runEnding() { state.withLock { $0.ended = true } }

    func busMessage(_ m: ServiceBusMessage, _ out: inout ServicePoll) -> BusVerdict {
        guard case .success(let t) = target, m.segment == t.segment else { return .pass }
        let source = m.message.source
        return state.withLock { s in
            if s.trial.contains(source) {
                if case .error(let text, let debug) = m.message.kind, s.trialError == nil {
                    // GStreamer's debug text ends with the detail (the file, the device): keep its last line.
                    let detail = debug?.split(separator: "\n").last.map { " (\($0.trimmingCharacters(in: .whitespaces)))" } ?? ""
                    s.trialError = "\(source): \(text)\(detail)"
                }
                return .handled
            }
            return s.retired.contains(source) && !s.current.contains(source) ? .handled : .pass
        }
    }

    func poll(_ out: inout ServicePoll) {
        let due = state.withLock { s in
            defer { s.messages.removeAll() }
            return s.messages
        }
        for m in due { out.record.append((BusMessage(source: "viewfinder", structure: m.structure), true)) }
    }

    var reportLines: [String] {
        let n = state.withLock { $0.switches }
        return n == 0 ? [] : ["source: switched \(n) time\(n == 1 ? "" : "s")"]
    }

    /// See `Session.switchSource(to:firstFrameWithin:)`.
    func switchSource(to text: String, firstFrameWithin seconds: Double, keeper: SourceKeeper?) throws(SourceSwitchError) -> SourceSwitched
    {
        let t = try target.get()
        let timing: RunTiming = try state.withLock { s throws(SourceSwitchError) in
            guard let timing = s.timing, !s.ended else { throw SourceSwitchError(.conflict, "the session is not running") }
            guard !s.busy else { throw SourceSwitchError(.conflict, "a source switch is under way") }
            s.busy = true
            return timing
        }
        defer {
            state.withLock {
                $0.busy = false; $0.trial = []; $0.trialError = nil
            }
        }
        let element = try SourceSwitch.check(text)
        try SourceSwitch.checkMedia(text)
        let number = state.withLock { $0.switches } + 1
        let caps = t.group.sink.lastArrival?.caps ?? t.group.sink.acceptedCaps
        let splice = try SourceSwitch.build(text, caps: caps, name: "vf_source\(number)")
        try trial(splice, in: t, within: seconds, keeper: keeper)
        // The old source stops where it enters the appsink; the new one's frames follow its last.
        let sink = t.group.sink
        let d = caps?.videoInfo.map { SourceKeeper.frameDuration(info: $0, fallback: nil) } ?? 33_333_333
        let chosen = Atomic<Int64>(0)
        let clock = timing.clock, base = timing.baseTime
        let spliced = splice.splice(into: sink) { first, duration in
            let last = sink.lastArrival
            let oldLast = last.flatMap { l in l.pts.flatMap { l.segment.runningTime($0) } }
            let o = SourceSwitch.offset(first: first, duration: duration, oldLast: oldLast, frame: d, now: clock.now &- base)
            chosen.store(o, ordering: .relaxed)
            return o
        }
        guard spliced else {
            splice.detach(from: t.pipeline)
            throw SourceSwitchError(.invalid, "the new source could not be linked to the stage group's input")
        }
        let newNames = splice.elementNames
        let oldNames = Set(t.pipeline.allElements.map(\.name)).subtracting(newNames).subtracting([sink.name])
        state.withLock {
            $0.retired.formUnion(oldNames)
            $0.current = newNames
            $0.trial = []
        }
        // Wait (bounded, real time) for the first frame through, so the offset is known and the old feed is done.
        let deadline = SystemClock.shared.now + 2
        while splice.frames.passed == 0 && SystemClock.shared.now < deadline { SystemClock.shared.sleep(seconds: 0.005) }
        let retired = t.pipeline.retireChildren(keeping: [sink], splice: splice)
        if let keeper {
            let sources = splice.elements.filter(\.isSource)
            let named = sources.first(where: SourceSupervision.isLive) ?? sources.first
            keeper.sourceReplaced(by: named?.name ?? element)
        }
        t.pipeline.recalculateLatency()
        let message = SourceMessage(
            state: .switched, element: element, reason: text, losses: 0, restores: 0,
            placeholders: t.group.stats.values.withLock { $0.placeholders })
        state.withLock {
            $0.switches += 1
            $0.messages.append(message)
        }
        Log.host.say(.notice, "viewfinder: source switched to '\(Echo.value(text, limit: 200))'")
        return SourceSwitched(description: text, element: element, offsetNs: chosen.load(ordering: .relaxed), retired: retired)
    }

    /// Plays `splice` parked in the source segment until it gave two frames; its errors meanwhile, or no frame within
    /// `seconds` (real time), take it out again and refuse the switch.
    private func trial(_ splice: SourceSplice, in t: Target, within seconds: Double, keeper: SourceKeeper?) throws(SourceSwitchError) {
        if keeper != nil { splice.keepDynamicLinks() }
        if let failed = splice.start() {
            splice.setState(.null)
            throw SourceSwitchError(.invalid, "the new source could not be started: \(failed)")
        }
        state.withLock { $0.trial = splice.elementNames }
        let real = SystemClock.shared
        guard splice.attach(to: t.pipeline) else {
            // Its element said why on the bus: the bus loop hands it over within a few passes.
            let until = real.now + 0.5
            var why = state.withLock { $0.trialError }
            while why == nil && real.now < until {
                real.sleep(seconds: 0.01)
                why = state.withLock { $0.trialError }
            }
            throw SourceSwitchError(.invalid, "the new source could not be started: \(why ?? "it refused to play")")
        }
        let deadline = real.now + seconds
        while true {
            if let error = state.withLock({ $0.trialError }) {
                splice.detach(from: t.pipeline)
                throw SourceSwitchError(.invalid, "the new source failed when tried: \(error)")
            }
            if splice.frames.parked >= 2 { return }
            if real.now >= deadline {
                splice.detach(from: t.pipeline)
                throw SourceSwitchError(.invalid, "the new source gave no frame in \(seconds) s when tried")
            }
            real.sleep(seconds: 0.01)
        }
    }
}

extension Session {
    /// Replaces the source segment (everything in front of the first stage group) of the running session by
    /// `description`, a gst-launch fragment giving video (no stage; `videoconvert ! videoscale` to the caps the stages
    /// get now are appended), while the stages and everything after them go on, on the same clock: the new frames'
    /// running time follows the old ones'. Checked fully before the running source is touched (parsed, factories,
    /// links, raw video, then tried in the segment until it gave frames, its errors meanwhile caught); any refusal
    /// leaves the old source running. Records a `viewfinder/source` message (`state=switched`). Any thread; one switch
    /// at a time. `firstFrameWithin`: real seconds the new source has to give its first frames when tried.
    @discardableResult
    public func switchSource(to description: String, firstFrameWithin seconds: Double = 5) throws(SourceSwitchError) -> SourceSwitched {
        guard let service = services(SourceSwitchService.self).first else {
            throw SourceSwitchError(.conflict, "this session has no source switch")
        }
        if case .success = service.target, phase != .running {
            throw SourceSwitchError(.conflict, "the session is not running (\(phase.rawValue))")
        }
        let segment = try? service.target.get().segment
        return try service.switchSource(to: description, firstFrameWithin: seconds, keeper: keepers.first { $0.segment == segment })
    }
}
