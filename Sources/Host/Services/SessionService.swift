import Foundation
import GStreamerKit
import Stages
import Timing

/// A service: anything that lives beside the stage groups of a session — a server (`rtspserve`, WebRTC, the control
/// API), an output (HLS), a tap (the preview), a supervisor (source recovery, photo branches), a client (MQTT), a
/// writer (settings). The core (`Session`, `SessionBuilder`, `StageGroup`, `BusLoop`) knows services only through
/// this protocol: it calls the hooks below in order, and none of them by name.
///
/// Life of a service, in the order the session calls it:
/// 1. made by its `ServiceFactory` while the session is built (description elements it claimed are handed over);
///    a usage error there is exit 2;
///    once all are made, `check(_:)` sees the others (a service that needs another says so here);
/// 2. `prepare(_:)` from `Session.prepare()` (after `--dry-run` and the display checks, before anything plays):
///    bind servers, connect clients; a usage error is exit 2;
/// 3. `willPlay(_:)` once the stages are open, just before the pipelines play (servers start serving);
/// 4. `playing(_:)` once the pipelines play, with the clock and base time they share;
/// 5. while playing, on the bus loop's thread: `busMessage(_:)` for each bus message of every segment,
///    `poll(_:)` once per pass, `stopRequested()` once when end-of-stream is asked for, and `elementMessage(_:)`
///    for every message the session records (any thread may be the caller's);
/// 6. `runEnding()` before the pipelines go to NULL; `runEnded()` after (pipelines NULL, stages closed);
/// 7. `close()` from `Session.close()`, after `run()` returned (stop servers and clients, flush files).
///
/// `frameTap` (frames leaving the last stage group), `startLines`/`reportLines` (what the CLI prints),
/// `propertiesChanged`, `stateFields` (`GET /api/state`) and `metricSamples` (`GET /metrics`) complete it. Every hook has a default that does nothing.
///
/// Threads: hooks 1-4, 6 and 7 run on the session's thread; 5 on the bus loop's (the same thread); `frameTap` is
/// called on a stage worker; `elementMessage` and `propertiesChanged` on whichever thread recorded or applied them.
public protocol SessionService: AnyObject, Sendable {
    /// A short name for errors and reports (`rtspserve`, `preview`, `source-recovery`).
    var name: String { get }
    /// Checks the session's other services once all are made (a service that needs another); usage errors.
    func check(_ services: [any SessionService]) throws(HostError)
    /// Binds, connects; after `--dry-run` and the display checks, before anything plays. Usage errors are exit 2.
    func prepare(_ session: Session) throws(HostError)
    /// The stages are open; the pipelines are about to play.
    func willPlay(_ session: Session)
    /// The pipelines play on `run.clock` from `run.baseTime`.
    func playing(_ run: RunTiming)
    /// One end-of-stream, error or warning of a segment while the run plays (errors of a segment already ended are
    /// not shown); what the loop does with it (a warning passed on is printed and announced). Messages to record or
    /// announce go into `out`.
    func busMessage(_ message: ServiceBusMessage, _ out: inout ServicePoll) -> BusVerdict
    /// Once per pass of the bus loop (every few ms): messages to record, or the failure that ends the run.
    func poll(_ out: inout ServicePoll)
    /// End-of-stream was asked for (once): the segments that count as ended already (a source that is down has
    /// nothing to send).
    func stopRequested() -> Set<Int>
    /// A message the session recorded (element messages and the host's own).
    func elementMessage(_ message: BusMessage)
    /// A stage's properties changed while playing (the changes that took, in order).
    func propertiesChanged(stage: String, _ changes: [(String, PropertyValue)])
    /// Frames the last stage group pushes (nil: none wanted). Called on that group's worker: must not block.
    var frameTap: (any FrameTap)? { get }
    /// Before the pipelines go to NULL (the run is over or failed).
    func runEnding()
    /// After the pipelines are NULL and the stages closed.
    func runEnded()
    /// After `run()` returned: stop, flush, disconnect.
    func close()
    /// Fields it adds to the session's state object (`GET /api/state`, MQTT `TOPIC/state`): JSON values.
    func stateFields() -> [String: Any]
    /// Its figures for `GET /metrics` (viewers, the source's state); the collector adds the `pipeline` label. Read
    /// from the control server's tasks at any time, also before `prepare` and after `close`: must not block.
    var metricSamples: [MetricSample] { get }
    /// Lines for the user once prepared (URLs, warnings), in order.
    var startLines: [String] { get }
    /// Lines for the user's end-of-run report (counts).
    var reportLines: [String] { get }
}

extension SessionService {
    public func check(_ services: [any SessionService]) throws(HostError) {}
    public func prepare(_ session: Session) throws(HostError) {}
    public func willPlay(_ session: Session) {}
    public func playing(_ run: RunTiming) {}
    public func busMessage(_ message: ServiceBusMessage, _ out: inout ServicePoll) -> BusVerdict { .pass }
    public func poll(_ out: inout ServicePoll) {}
    public func stopRequested() -> Set<Int> { [] }
    public func elementMessage(_ message: BusMessage) {}
    public func propertiesChanged(stage: String, _ changes: [(String, PropertyValue)]) {}
    public var frameTap: (any FrameTap)? { nil }
    public func runEnding() {}
    public func runEnded() {}
    public func close() {}
    public func stateFields() -> [String: Any] { [:] }
    public var metricSamples: [MetricSample] { [] }
    public var startLines: [String] { [] }
    public var reportLines: [String] { [] }
}

/// Frames leaving the last stage group of a session (the preview). `offer` runs on the group's worker for
/// every frame pushed and must not block; the frame goes on untouched.
public protocol FrameTap: AnyObject, Sendable {
    func offer(_ frame: VideoFrame)
}

/// The clock and base time every segment of a running session shares.
public struct RunTiming: @unchecked Sendable {
    /// GStreamer's clock the pipelines run on.
    public var clock: GStreamerKit.Clock
    /// Their base time (ns on that clock).
    public var baseTime: UInt64
}

/// A bus message as a service sees it: which segment, whether end-of-stream was asked for already.
public struct ServiceBusMessage: @unchecked Sendable {
    /// The message.
    public var message: Message
    /// The segment whose bus carried it.
    public var segment: Int
    /// True once end-of-stream was asked for (Ctrl-C, `POST /api/stop`).
    public var stopping: Bool
}

/// What the bus loop does with a message a service looked at.
public enum BusVerdict: Sendable, Equatable {
    /// Not the service's: the next service, then the loop's own handling.
    case pass
    /// Taken care of: the loop does nothing more with it (a lost source's error, which is not the run's end).
    case handled
    /// Taken care of, and the segment counts as ended (a stopped photo branch).
    case segmentEnded
}

/// What a service says on one pass of the bus loop.
public struct ServicePoll: Sendable {
    /// Messages to record: kept, handed to the services' `elementMessage` and the session's hook, printed with
    /// `-m`; `toStages` also hands them to every stage's `busMessage`.
    public var record: [(message: BusMessage, toStages: Bool)] = []
    /// Segments to count as ended (or, with `restarted`, running again).
    public var ended: Set<Int> = []
    /// Segments started again (they leave the ended set).
    public var restarted: Set<Int> = []
    /// The run ends with this error (the first one given wins).
    public var failure: String?
    /// The host's own messages about the run (kept and handed to event clients, not to stages, not printed).
    public var announce: [BusMessage] = []

    public init() {}
}
