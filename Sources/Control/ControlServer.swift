import Foundation
import Host
import Stages
import Synchronization
import Timing

/// Makes the control server of a session (`--http HOST:PORT`): `ControlServer`, a session service.
public struct ControlServerFactory: ServiceFactory {
    let address: ControlAddress
    let limits: ControlLimits
    let pipeline: String
    let fire: @Sendable () -> Void
    /// A server on `address` with `limits`, naming its session `pipeline` in `/metrics` and `/healthz`; `fire` is the
    /// manual shutter (the CLI passes `Triggers.shared.fire`).
    public init(
        address: ControlAddress, limits: ControlLimits = .standard, pipeline: String = ControlServer.defaultPipeline,
        fire: @escaping @Sendable () -> Void
    ) {
        self.address = address
        self.limits = limits
        self.pipeline = pipeline
        self.fire = fire
    }
    public func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        [ControlServer(address: address, limits: limits, pipeline: pipeline, fire: fire)]
    }
}

/// The HTTP control API of one running session (`viewfinder launch --http HOST:PORT`), a session service: it
/// binds in `prepare` (a port that cannot be bound ends the command with exit 2 before any pipeline plays),
/// serves its own routes and those of every service that `ServesControlRoutes`, hands every recorded message to
/// the event clients, and stops in `close`.
///
/// Threads: the server (`ControlHTTPServer`: Hummingbird on SwiftNIO) runs on NIO's event loops and Swift
/// concurrency tasks of its own (the cooperative pool), never on the bus loop's thread, a stage worker or a
/// streaming thread. `prepare` runs on the session's
/// thread before `run()` and waits (bounded) until the socket listens or fails. Element messages reach the
/// `EventHub` from the bus loop without blocking it.
public final class ControlServer: SessionService {
    public let name = "control"
    /// Where it listens and the token it demands.
    public let address: ControlAddress
    /// The `/api/events` fan-out.
    public let hub = EventHub()
    private let fire: @Sendable () -> Void
    /// The server's limits (sizes, timeouts, connections).
    public let limits: ControlLimits
    /// The session's name in `/metrics` and `/healthz` (`pipeline="main"`).
    public let pipeline: String
    /// The name of `launch`'s session (and of any server not told one).
    public static let defaultPipeline = "main"
    private let server = Mutex<ControlHTTPServer?>(nil)
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// The URL once listening, and the services' routes.
    private let started = Mutex<(url: String, routes: [any ControlRoutes])?>(nil)
    /// Seconds between two heartbeats (`: ping`) on the event streams (on the session's clock).
    static let heartbeat = 2.0

    /// A server on `address` with `limits`, naming its session `pipeline` in `/metrics` and `/healthz`; `fire` is the
    /// manual shutter (the CLI passes `Triggers.shared.fire`).
    public init(
        address: ControlAddress, limits: ControlLimits = .standard, pipeline: String = ControlServer.defaultPipeline,
        fire: @escaping @Sendable () -> Void
    ) {
        self.address = address
        self.limits = limits
        self.pipeline = pipeline
        self.fire = fire
    }

    public func prepare(_ session: Session) throws(HostError) { _ = try start(session: session) }

    public func elementMessage(_ message: BusMessage) { hub.publish(message) }

    public func close() { stop() }

    /// `viewfinder_viewers{output="events"}`: `/api/events` clients now.
    public var metricSamples: [MetricSample] { [.viewers(output: "events", hub.count)] }

    /// The server's URL, the lines of the services' routes, and a warning when plain HTTP leaves the machine.
    public var startLines: [String] {
        guard let (url, routes) = started.withLock({ $0 }) else { return [] }
        var lines = ["control: \(url)"] + routes.flatMap { $0.startLines(serverURL: url) }
        if address.token != nil && address.host != "127.0.0.1" {
            lines.append(
                "control: warning: plain HTTP on \(address.host): the token and everything else cross the network unencrypted; put a TLS proxy in front or use an SSH tunnel")
        }
        return lines
    }

    /// The URL once listening (`http://127.0.0.1:PORT/`), nil before.
    public var url: String? { started.withLock { $0?.url } }

    /// Binds and starts listening for `session`; returns the URL (`http://127.0.0.1:PORT/`). A failed bind is a
    /// usage error naming the address.
    public func start(session: Session) throws(HostError) -> String {
        let context = ControlRouteContext(address: address, started: session.clock.wallNow, clock: session.clock)
        let routes = session.services.compactMap { ($0 as? any ServesControlRoutes)?.controlRoutes(context) }
        let address = self.address, hub = self.hub, fire = self.fire, pipeline = self.pipeline
        let (http, run, port) = try Self.listen(address: address, limits: limits) { origins in
            let router = ControlRouter(
                session: session, pipeline: pipeline, hub: hub, routes: routes, address: address, origins: origins, fire: fire)
            return { await router.handle($0) }
        }
        server.withLock { $0 = http }
        let heartbeat = hub.heartbeat(every: Self.heartbeat, clock: session.clock)
        tasks.withLock { $0 = [run, heartbeat] }
        let url = "http://\(address.host):\(port)/"
        started.withLock { $0 = (url, routes) }
        return url
    }

    /// Binds `address` and serves requests with the handler `serve` makes from the server's own origins (which need
    /// the port, known once bound): the server, its task and the port. A failed bind is a usage error naming the
    /// address. Shared by `launch --http` and `serve`.
    static func listen(
        address: ControlAddress, limits: ControlLimits,
        serve: @escaping @Sendable (Set<String>) -> @Sendable (ControlRequest) async -> ControlResponse
    ) throws(HostError) -> (ControlHTTPServer, Task<Void, Never>, Int) {
        let gate = StartGate()
        let handlerBox = Mutex<(@Sendable (ControlRequest) async -> ControlResponse)?>(nil)
        let handle: @Sendable (ControlRequest) async -> ControlResponse = { request in
            guard let handler = handlerBox.withLock({ $0 }) else { return ControlRouter.error(.serviceUnavailable, "starting: try again") }
            return await handler(request)
        }
        let http = ControlHTTPServer(host: address.host, port: Int(address.port), handle: handle, limits: limits) { port in
            var origins: Set<String> = ["http://\(address.host):\(port)"]
            if address.host == "127.0.0.1" { origins.insert("http://localhost:\(port)") }
            let handler = serve(origins)
            handlerBox.withLock { $0 = handler }
            gate.settle(.listening(port))
        }
        let run = Task {
            do { try await http.run() } catch { gate.settle(.failed(ControlHTTPServer.reason(error))) }
            gate.settle(.failed("the server stopped"))
        }
        switch gate.wait(seconds: 6) {
        case .listening(let p)?: return (http, run, p)
        case .failed(let why)?:
            run.cancel()
            throw HostError(.usage, "cannot listen on \(address.host):\(address.port): \(why)")
        case nil:
            run.cancel()
            throw HostError(.usage, "cannot listen on \(address.host):\(address.port): no answer in 6 s")
        }
    }

    /// Stops `http` (bounded: 1 s) and cancels `tasks`.
    static func shut(_ http: ControlHTTPServer?, tasks: [Task<Void, Never>]) {
        if let http {
            let done = DispatchSemaphore(value: 0)
            Task {
                await http.stop()
                done.signal()
            }
            _ = done.wait(timeout: .now() + 1)
        }
        for t in tasks { t.cancel() }
    }

    /// Ends the event streams and stops listening (after the run).
    public func stop() {
        hub.close()
        for r in started.withLock({ $0?.routes ?? [] }) { r.close() }
        Self.shut(server.withLock { $0 }, tasks: tasks.withLock { $0 })
    }

    /// How the start ended.
    enum Outcome: Sendable {
        case listening(Int)
        case failed(String)
    }

    /// The first outcome of the start, waited for by the starting thread.
    final class StartGate: Sendable {
        private let outcome = Mutex<Outcome?>(nil)
        private let ready = DispatchSemaphore(value: 0)
        /// Keeps the first outcome only.
        func settle(_ o: Outcome) {
            let first = outcome.withLock { v in
                guard v == nil else { return false }
                v = o
                return true
            }
            if first { ready.signal() }
        }
        /// The outcome, nil when none came in time.
        func wait(seconds: Double) -> Outcome? {
            _ = ready.wait(timeout: .now() + seconds)
            return outcome.withLock { $0 }
        }
    }
}
