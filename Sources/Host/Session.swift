import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// A description turned into running segments and the services beside them: built by `SessionBuilder` (with the
/// `Preflight` checks), prepared (`prepare()`: services bind), run here (open the stages, start the segments,
/// `BusLoop` to the end, tear down), reported by `SessionReporter`, closed (`close()`). Everything else a run has —
/// servers, outputs, taps, supervisors — is a `SessionService`, reached only through that protocol.
///
/// Threads and locks: the caller's thread builds the session and runs `run()`, whose bus loop is on that
/// thread; each stage group has a worker thread; GStreamer's streaming threads feed the appsinks.
/// `requestStop()`/`abort()` may be called from any thread (signal handlers): they only set atomics
/// (`SessionSignals`). `elementMessages`/`messages(_:)` may be read from any thread (`MessageLog` has its
/// own mutex). `errors` and `report` are written by `run()` and meant to be read after it returns; `onPlaying`
/// and `onElementMessage` are set before `run()` and called on its thread.
public final class Session: @unchecked Sendable {
    /// The plan the description expanded to.
    public let plan: ExpansionPlan
    /// One pipeline per segment, in plan order.
    public let pipelines: [Pipeline]
    let groups: [StageGroup]
    let options: SessionOptions
    let signals = SessionSignals()
    let log = MessageLog(limit: 1000)
    /// Everything beside the stage groups, in the order their hooks are called.
    public let services: [any SessionService]
    let reporter: SessionReporter
    private let createdFiles: [String]
    /// Every stage's current property values (description, overrides, then changes while playing).
    let properties: PropertyStore
    /// Where the run is, and since when it was timed (`options.clock`; nil before the pipelines play).
    /// The final report is kept here too, so other threads read it under the lock.
    let progress = Mutex<(phase: Phase, start: Double?, final: SessionReport?)>((.built, nil, nil))
    /// Human-readable problems that ended the run (empty after a clean EOS).
    public internal(set) var errors: [String] = []
    /// The figures of the last run.
    public private(set) var report: SessionReport?
    /// Called once the pipelines are PLAYING (tests use it to change things mid-run).
    public var onPlaying: (@Sendable (Session) -> Void)?
    /// Called for every element message, and for the host's own output messages, as they are recorded.
    public var onElementMessage: (@Sendable (BusMessage) -> Void)?

    /// Parses, expands and builds every segment and service; nothing runs yet. Usage errors here mean exit 2.
    public init(description: String, options: SessionOptions = SessionOptions()) throws(HostError) {
        GStreamer.initialize()
        // A write to a closed pipe or FIFO (`metadata-location=/dev/stdout | head`) must fail that write
        // (EPIPE, reported by the writer), not kill the process and the recordings in it.
        signal(SIGPIPE, SIG_IGN)
        let copiesAtStart = BufferCopies.count
        let signals = self.signals
        let built = try SessionBuilder(options: options, onLatencyChange: { signals.latencyChanged(segment: $0) })
            .build(description, factories: options.services + ServiceRegistry.builtIn)
        self.options = options
        plan = built.plan
        pipelines = built.pipelines
        groups = built.groups
        createdFiles = built.createdFiles
        services = built.services
        reporter = SessionReporter(groups: built.groups, copiesAtStart: copiesAtStart, clock: options.clock)
        properties = PropertyStore(plan: built.plan)
        for s in services { try s.check(services) }
        groups.last?.taps = services.compactMap(\.frameTap)
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

    /// The services of type `T`, in order.
    public func services<T>(_ type: T.Type) -> [T] { services.compactMap { $0 as? T } }

    /// Lets every service bind and connect (after `--dry-run` and the display checks, before anything plays).
    /// Usage errors (a port in use) are exit 2; the services prepared before the one that failed are closed again.
    public func prepare() throws(HostError) {
        for (i, s) in services.enumerated() {
            do { try s.prepare(self) } catch {
                for p in services[..<i] { p.close() }
                throw error
            }
        }
    }

    /// What the services have to say once prepared (URLs, warnings), in order.
    public var startLines: [String] { services.flatMap(\.startLines) }
    /// The services' end-of-run lines (counts).
    public var reportLines: [String] { services.flatMap(\.reportLines) }

    /// Stops every service (after `run()`), last made first.
    public func close() { for s in services.reversed() { s.close() } }

    /// Runs to the end: returns the exit code (0 after EOS everywhere, 1 on a runtime error or abort).
    public func run() -> Int32 {
        if let code = openStages() { return code }
        // Clients may connect from now on; their media is fed once the pipelines play.
        for s in services { s.willPlay(self) }
        let start: Double
        switch startPipelines() {
        case .success(let s): start = s
        case .failure(let problem): return finish(code: 1, fallback: problem.text, start: problem.start)
        }
        progress.withLock { $0 = (.running, start, nil) }
        onPlaying?(self)
        let loop = BusLoop(session: self)
        loop.announce(RunStateMessage(state: .running))
        defer { loop.announce(RunStateMessage(state: .ended, code: Int(wasAborted ? 130 : (errors.isEmpty ? 0 : 1)))) }
        switch loop.run(start: start) {
        case .ended: return finish(code: 0, fallback: nil, start: start)
        case .failed(let text): errors.append(text)
        case .aborted: errors.append("aborted")
        }
        return finish(code: 1, fallback: nil, start: start)
    }

    /// Stops services, workers and pipelines, closes the stages, keeps the report; removes the files this run
    /// created when it failed before a frame came out.
    private func finish(code: Int32, fallback: String?, start: Double) -> Int32 {
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
        for s in services { s.runEnding() }
        for g in groups { g.stop() }
        // Sources first so nothing new enters while the rest shuts down.
        for p in pipelines { p.setState(.null) }
        for g in groups { _ = g.join() }
        for g in groups { for st in g.stages { st.stage.close() } }
        // After the pipelines: servers' clients get the end of the stream, then their connections close.
        for s in services { s.runEnded() }
        var r = reporter.report(start: start, final: true)
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
