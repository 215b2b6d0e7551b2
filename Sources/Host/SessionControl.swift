import Foundation
import GStreamerKit
import Stages
import Timing

/// What other threads ask of a session: where it is, its figures, its stages and their properties, custom
/// events, stop and abort. Every member may be called from any thread.
extension Session {
    /// The clock the session times things by (`SessionOptions.clock`).
    public var clock: any HostClock { options.clock }

    /// Where the run is now.
    public var phase: Phase {
        let p = progress.withLock { $0.phase }
        return p == .running && stopRequested ? .stopping : p
    }

    /// The figures so far while the run plays (the same as the end-of-run report's), nil before the pipelines
    /// play; after the run, the final report.
    public var liveReport: SessionReport? {
        let (start, final) = progress.withLock { ($0.start, $0.final) }
        if let final { return final }
        guard let start else { return nil }
        return reporter.report(start: start)
    }

    /// The stage instances in plan order: name and kind (`compose0`, `compose`).
    public var stageInstances: [(name: String, kind: String)] { plan.groups.flatMap(\.stages).map { ($0.name, $0.kind) } }

    /// The current value of every property of stage `name` (description, overrides, then changes while
    /// playing), nil for an unknown stage.
    public func propertyValues(ofStage name: String) -> [String: PropertyValue]? { properties.values(ofStage: name) }

    /// Called by `update(stage:_:)` with the stage's name and the changes that took (in order), on the caller's
    /// thread (a control server task, never a video thread), after they were applied and the services were told.
    public var onPropertiesChanged: (@Sendable (String, [(String, PropertyValue)]) -> Void)? {
        get { properties.changeHook.withLock { $0 } }
        set { properties.changeHook.withLock { $0 = newValue } }
    }

    /// Applies validated values to properties marked `.playing` of stage `name` with `Stage.update`
    /// (effective on the next frame), in order, and records each that took. Throws the first refusal (unknown
    /// stage, a stage that refuses); the ones before it stay applied. The ones that took go to the services'
    /// `propertiesChanged` and `onPropertiesChanged` (also when a later one was refused).
    public func update(stage name: String, _ changes: [(String, PropertyValue)]) throws(StageError) {
        guard let stage = stage(named: name) else { throw StageError(.usage, "no stage '\(name)'") }
        var applied: [(String, PropertyValue)] = []
        defer {
            if !applied.isEmpty {
                for s in services { s.propertiesChanged(stage: name, applied) }
                if let hook = onPropertiesChanged { hook(name, applied) }
            }
        }
        for (property, value) in changes {
            try stage.update(property, value: value)
            properties.set(value, of: property, stage: name)
            applied.append((property, value))
        }
    }

    /// Element messages seen (and the host's own messages), oldest first: the newest 1000.
    public var elementMessages: [BusMessage] { log.all }

    /// The kept messages of kind `M` that decode, oldest first (`messages(OutputErrorMessage.self)`).
    public func messages<M: ViewfinderMessage>(_ kind: M.Type) -> [M] { log.messages(kind) }

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
    /// delivered to its stages on their worker before their next frame (`Stage.customEvent`).
    public func sendCustomEvent(_ event: MessageStructure) { for g in groups { g.inject(event) } }

    /// Ends the stream at every source (as Ctrl-C does): the pipelines drain, files get finalised.
    public func requestStop() { signals.eosRequests.add(1, ordering: .relaxed) }
    /// True once `requestStop()` was called (the stream was ended on purpose).
    public var stopRequested: Bool { signals.eosRequests.load(ordering: .relaxed) > 0 }
    /// Stops at once without draining.
    public func abort() { signals.aborted.store(true, ordering: .relaxed) }
    /// True once `abort()` was called.
    public var wasAborted: Bool { signals.aborted.load(ordering: .relaxed) }
}
