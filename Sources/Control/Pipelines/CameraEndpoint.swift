import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization
import Timing

/// What the pipelines of one `serve` process share of its control server: where it listens, its origins (set once
/// bound, before any pipeline is built) and the clock.
public final class PipelinesContext: Sendable {
    /// Where the server listens and the token it demands.
    public let address: ControlAddress
    /// The clock heartbeats and previews use.
    public let clock: any HostClock
    private let bound = Mutex<Set<String>>([])

    public init(address: ControlAddress, clock: any HostClock) {
        self.address = address; self.clock = clock
    }

    /// The server's own origins, once bound.
    public var origins: Set<String> {
        get { bound.withLock { $0 } }
        set { bound.withLock { $0 = newValue } }
    }
}

/// Makes each `serve` session's `CameraEndpoint`.
public struct CameraEndpointFactory: ServiceFactory {
    let context: PipelinesContext
    let pipeline: String
    /// The endpoint of pipeline `pipeline` (its name in `/metrics`).
    public init(context: PipelinesContext, pipeline: String) {
        self.context = context
        self.pipeline = pipeline
    }
    public func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] { [CameraEndpoint(context: context, pipeline: pipeline)] }
}

/// One session's control routes in `serve`, without a listener of its own: the same `ControlRouter` as `launch
/// --http` (stages, state, events, capture, stop, the gallery, and the routes of the session's services: preview,
/// WebRTC, HLS), reached by the pipelines server under `/api/pipelines/NAME` after its checks. The shutter is the
/// `viewfinder-capture` event to this session only (SIGUSR1's trigger would fire every camera of the process).
///
/// Threads: `prepare` on the camera's thread; `answer` on the server's tasks; `elementMessage` on the bus loop
/// (never blocks: the hub's newest-only buffers).
public final class CameraEndpoint: SessionService {
    /// "control": the session's control routes (webrtcserve's check looks for them by this name).
    public let name = "control"
    let context: PipelinesContext
    /// The session's `/api/events` fan-out.
    public let hub = EventHub()
    private let state = Mutex<(router: ControlRouter?, routes: [any ControlRoutes], heartbeat: Task<Void, Never>?)>((nil, [], nil))

    private let composition = Mutex<(score: Double, rule: String)?>(nil)

    let pipeline: String

    init(context: PipelinesContext, pipeline: String) {
        self.context = context
        self.pipeline = pipeline
    }

    public func prepare(_ session: Session) throws(HostError) {
        let routeContext = ControlRouteContext(
            address: context.address, started: session.clock.wallNow, clock: session.clock, mount: "/api/pipelines/\(pipeline)")
        let routes = session.services.compactMap { ($0 as? any ServesControlRoutes)?.controlRoutes(routeContext) }
        let router = ControlRouter(
            session: session, pipeline: pipeline, hub: hub, routes: routes, address: context.address, origins: context.origins,
            fire: SessionCommands.eventShutter(session))
        let heartbeat = hub.heartbeat(every: ControlServer.heartbeat, clock: session.clock)
        state.withLock { $0 = (router, routes, heartbeat) }
    }

    public func elementMessage(_ message: BusMessage) {
        hub.publish(message)
        if message.structure.name == CompositionMessage.structureName, let c = message.decode(CompositionMessage.self) {
            composition.withLock { $0 = (c.score, c.rule) }
        }
    }

    /// The last composition verdict (`viewfinder/composition`) of this run: `score` (0...1) and `rule`, for the
    /// pipelines list (the overview's tiles); empty before the first.
    public var compositionFields: [String: Any] {
        guard let c = composition.withLock({ $0 }) else { return [:] }
        return ["score": c.score, "rule": c.rule]
    }

    /// The pipeline's `/api/events` clients, as `viewers{output="events"}`.
    public var metricSamples: [MetricSample] { [.viewers(output: "events", hub.count)] }

    public func close() {
        hub.close()
        let (routes, heartbeat) = state.withLock { s in
            defer { s = (nil, [], nil) }
            return (s.routes, s.heartbeat)
        }
        for r in routes { r.close() }
        heartbeat?.cancel()
    }

    /// The answer of the session's routes to `request` (its prefix already taken off); 503 before prepared.
    func answer(_ request: ControlRequest) async -> ControlResponse {
        guard let router = state.withLock({ $0.router }) else { return ControlRouter.error(.serviceUnavailable, "starting: try again") }
        return await router.route(request)
    }
}
