import Foundation
import Host
import Stages
import Synchronization
import Timing

/// The control server of `viewfinder serve`: one listener for every pipeline of the process (`PipelinesRouter`),
/// bound before any pipeline is built (so each session's `CameraEndpoint` knows the origins), its own event hub for
/// the pipelines' changes. Routes beyond the pipelines API (metrics, health, the overview page) are given as
/// `ControlRoutes`.
///
/// Threads: as `ControlServer` (NIO's event loops and the cooperative pool); `start` and `stop` on the caller's.
public final class PipelinesServer: Sendable {
    /// Where it listens, its origins once bound, the clock.
    public let context: PipelinesContext
    /// The pipelines' `viewfinder/pipeline` changes as server-sent events.
    public let hub = EventHub()
    let limits: ControlLimits
    private let running = Mutex<(ControlHTTPServer, [Task<Void, Never>])?>(nil)

    public init(address: ControlAddress, clock: any HostClock = SystemClock.shared, limits: ControlLimits = .standard) {
        context = PipelinesContext(address: address, clock: clock)
        self.limits = limits
    }

    /// Binds and serves `host`'s pipelines (and `extra` routes); returns the URL. A failed bind is a usage error.
    public func start(host: CameraHost, extra: [any ControlRoutes] = []) throws(HostError) -> String {
        let address = context.address, hub = self.hub, context = self.context
        let (http, run, port) = try ControlServer.listen(address: address, limits: limits) { origins in
            context.origins = origins
            let router = PipelinesRouter(
                host: host, guarded: ControlGuard(address: address, origins: origins), hub: hub,
                extra: [PipelinesStatusRoutes(host: host)] + extra)
            return { await router.handle($0) }
        }
        host.listen { [hub] m in hub.publish(BusMessage(source: m.name, structure: m.structure)) }
        let heartbeat = hub.heartbeat(every: ControlServer.heartbeat, clock: context.clock)
        running.withLock { $0 = (http, [run, heartbeat]) }
        return "http://\(address.host):\(port)/"
    }

    /// Ends the event streams and stops listening.
    public func stop() {
        hub.close()
        guard let (http, tasks) = running.withLock({ $0 }) else { return }
        ControlServer.shut(http, tasks: tasks)
    }
}
