import Foundation
import GStreamerKit
import Stages

/// Builds what a session runs, in order: description -> plan -> stages -> pipelines -> groups, with the
/// preflight checks (`Preflight`) between the steps. Nothing runs and nothing is written; every failure
/// is a usage error (exit 2).
///
/// Threads and locks: none of its own; runs on the thread creating the `Session`.
struct SessionBuilder {
    /// What was built.
    struct Built {
        /// The plan the description expanded to.
        var plan: ExpansionPlan
        /// One pipeline per segment, in plan order.
        var pipelines: [Pipeline]
        /// One stage group per planned group, in plan order, appsinks configured.
        var groups: [StageGroup]
        /// Files the run will create (removed again if it fails to start).
        var createdFiles: [String]
        /// The services the factories made, in factory order.
        var services: [any SessionService]
    }

    let options: SessionOptions
    /// Called by stage workers with the segment whose latency changed.
    let onLatencyChange: @Sendable (Int) -> Void

    /// Every step, in order; the services last, from `factories` (which may claim description elements).
    func build(_ description: String, factories: [any ServiceFactory] = ServiceRegistry.builtIn) throws(HostError) -> Built {
        let (parsed, claims) = try parse(description, elements: factories.flatMap(\.elements))
        let (plan, stages) = try planStages(parsed)
        let pipes = try pipelines(plan)
        // Directories stages create when they open (capture's DIR/.partial/...): their branches may write there; and
        // those services create before the run plays (a claimed element's replacement writes there).
        let stageDirectories = plan.groups.flatMap(\.stages).compactMap { stages[$0.name] }.flatMap(\.createsDirectories)
        let serviceDirectories = claims.flatMap { $0.replacement?.createsDirectories ?? [] }
        let created = try Preflight.checkFiles(pipes, stageDirectories: stageDirectories + serviceDirectories)
        try Preflight.checkLinks(pipes)
        let groups = try groups(plan, stages: stages, pipelines: pipes)
        let build = ServiceBuild(plan: plan, pipelines: pipes, groups: groups, options: options, claims: claims)
        var services: [any SessionService] = []
        for f in factories { services += try f.make(build) }
        return Built(plan: plan, pipelines: pipes, groups: groups, createdFiles: created, services: services)
    }

    /// The description with the settings file's stage settings, then the `--set` overrides applied (the
    /// command line wins), the elements services provide (`elements`: `rtspserve`, `webrtcserve`...) replaced by
    /// relay appsinks or the real elements their specs compute (`ServiceClaims`); every element factory must exist; `srtsink`/`srtsrc` carry their mode
    /// inside the uri, and their uris are ones GStreamer reads as meant; video encoders get 4:2:0 unless a format is
    /// written (`EncoderInput`).
    func parse(_ description: String, elements: [ServiceElementSpec]) throws(HostError) -> (ParsedDescription, [ClaimedElement]) {
        var parsed: ParsedDescription
        do { parsed = try ParsedDescription.parse(description) } catch { throw HostError(.usage, error.message) }
        if let settings = options.settings { parsed = try settings.applied(to: parsed, elements: elements) }
        do { parsed = try parsed.applying(overrides: options.overrides) } catch { throw HostError(.usage, error.message) }
        let (rewritten, claims) = try ServiceClaims.extract(from: parsed, specs: elements)
        try Preflight.checkFactories(rewritten)
        try Preflight.checkSRTModes(rewritten)
        try Preflight.checkSRTURIs(rewritten)
        return (EncoderInput.constrained(rewritten), claims)
    }

    /// Expands the description and makes its stages (which validates their properties) while planning;
    /// then tells each stage what became of its extra outputs.
    func planStages(_ parsed: ParsedDescription) throws(HostError) -> (ExpansionPlan, [String: any Stage]) {
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
            plan = try Expansion.plan(
                parsed,
                stage: { kind in
                    StageRegistry.type(of: kind).map { StageSignature(kind: kind, outputs: $0.descriptor.outputs.map(\.name)) }
                }, defaultBranch: { p, output in instance(p)?.defaultBranch(for: output) })
        } catch { throw HostError(.usage, error.message) }
        for g in plan.groups { for p in g.stages { _ = instance(p) } }
        if let stageError { throw HostError(.usage, stageError.message) }
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
        return (plan, made)
    }

    /// One pipeline per segment.
    func pipelines(_ plan: ExpansionPlan) throws(HostError) -> [Pipeline] {
        var pipes: [Pipeline] = []
        for seg in plan.segments {
            do { pipes.append(try Pipeline.parse(seg.description)) } catch {
                // GStreamer quotes the bad value in full: cut it there, and leave it out of the segment.
                throw HostError(.usage, "\(Echo.message(error.message)) (in segment \(seg.index): \(Echo.description(seg.description)))")
            }
        }
        // Branches fed by extra outputs (snapshots) get tags per frame: make their tag setters
        // (jifmux) take each photo's tags instead of keeping the first photo's.
        let extraSegments = Set(plan.groups.flatMap { $0.extraOutputs.map(\.appSource) })
        for (i, seg) in plan.segments.enumerated() where !extraSegments.isDisjoint(with: seg.appSources) {
            for e in pipes[i].describedElements { e.replaceTagsOnEachEvent() }
        }
        return pipes
    }

    /// Stage groups wired to their appsinks and appsrcs. Downstream groups are made first, so their
    /// caps show through the caps queries of upstream ones; returned in plan order.
    func groups(_ plan: ExpansionPlan, stages made: [String: any Stage], pipelines pipes: [Pipeline]) throws(HostError) -> [StageGroup] {
        func find(_ name: String) -> (Pipeline, Int)? {
            for (i, s) in plan.segments.enumerated() where s.appSinks.contains(name) || s.appSources.contains(name) { return (pipes[i], i) }
            return nil
        }
        let handoff = StageGroup.Handoff(
            maxBuffers: UInt32(max(1, options.queueSize)), drop: options.queue == .leaky, policy: options.queue)
        let budget = UInt64(max(0, options.stageBudgetMs) * 1e6)
        var gs: [StageGroup] = []
        for g in plan.groups.reversed() {
            guard let (sp, si) = find(g.appSink), let sink = sp.appSink(named: g.appSink) else {
                throw HostError(.usage, "internal: appsink '\(g.appSink)' missing from the expanded segments")
            }
            var main: (AppSource, Int)?
            if let m = g.mainOutput, let (mp, mi) = find(m), let src = mp.appSource(named: m) { main = (src, mi) }
            var extras: [String: (AppSource, Int)] = [:]
            for e in g.extraOutputs {
                if let (ep, ei) = find(e.appSource), let src = ep.appSource(named: e.appSource) {
                    extras["\(e.stage).\(e.output)"] = (src, ei)
                }
            }
            var stages: [(String, any Stage)] = []
            for p in g.stages {
                guard let st = made[p.name] else { throw HostError(.usage, "internal: stage '\(p.name)' was not made") }
                stages.append((p.name, st))
            }
            gs.append(
                try StageGroup(
                    plan: g, stages: stages, sink: sink, sinkSegment: si, main: main, extras: extras,
                    handoff: handoff, budgetNs: budget, clock: options.clock, onLatencyChange: onLatencyChange))
        }
        return gs.reversed()
    }
}
