import FlyingFox
import FlyingSocks
import Foundation
import Glibc
import Host
import Stages
import Synchronization
import Timing

/// Makes the control server of a session (`--http HOST:PORT`): `ControlServer`, a session service.
public struct ControlServerFactory: ServiceFactory {
    let address: ControlAddress
    let fire: @Sendable () -> Void
    /// A server on `address`; `fire` is the manual shutter (the CLI passes `Triggers.shared.fire`).
    public init(address: ControlAddress, fire: @escaping @Sendable () -> Void) {
        self.address = address
        self.fire = fire
    }
    public func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] { [ControlServer(address: address, fire: fire)] }
}

/// The HTTP control API of one running session (`viewfinder launch --http HOST:PORT`), a session service: it
/// binds in `prepare` (a port that cannot be bound ends the command with exit 2 before any pipeline plays),
/// serves its own routes and those of every service that `ServesControlRoutes`, hands every recorded message to
/// the event clients, and stops in `close`.
///
/// Threads: the FlyingFox server runs in Swift concurrency tasks of its own (the cooperative pool), never
/// on the bus loop's thread, a stage worker or a streaming thread. `prepare` runs on the session's
/// thread before `run()` and waits (bounded) until the socket listens or fails. Element messages reach the
/// `EventHub` from the bus loop without blocking it.
public final class ControlServer: SessionService {
    public let name = "control"
    /// Where it listens and the token it demands.
    public let address: ControlAddress
    /// The `/api/events` fan-out.
    public let hub = EventHub()
    private let fire: @Sendable () -> Void
    private let server = Mutex<HTTPServer?>(nil)
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// The URL once listening, and the services' routes.
    private let started = Mutex<(url: String, routes: [any ControlRoutes])?>(nil)
    /// Seconds between two heartbeats (`: ping`) on the event streams (on the session's clock).
    static let heartbeat = 2.0

    /// A server on `address`; `fire` is the manual shutter (the CLI passes `Triggers.shared.fire`).
    public init(address: ControlAddress, fire: @escaping @Sendable () -> Void) {
        self.address = address
        self.fire = fire
    }

    public func prepare(_ session: Session) throws(HostError) { _ = try start(session: session) }

    public func elementMessage(_ message: BusMessage) { hub.publish(message) }

    public func close() { stop() }

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
        let socketAddress: sockaddr_in
        do { socketAddress = try .inet(ip4: address.host, port: address.port) } catch {
            throw HostError(.usage, "cannot listen on \(address.host):\(address.port): \(error)")
        }
        // The port is known before the server exists only when given; with port 0 bind first to learn it.
        let port: UInt16
        do { port = try Self.probePort(socketAddress, requested: address.port) } catch {
            throw HostError(.usage, "cannot listen on \(address.host):\(address.port): \(error.message)")
        }
        let bound = address.port == 0 ? try Self.inet(address.host, port) : socketAddress
        var origins: Set<String> = ["http://\(address.host):\(port)"]
        if address.host == "127.0.0.1" { origins.insert("http://localhost:\(port)") }
        let context = ControlRouteContext(address: address, started: session.clock.wallNow, clock: session.clock)
        let routes = session.services.compactMap { ($0 as? any ServesControlRoutes)?.controlRoutes(context) }
        let router = ControlRouter(session: session, hub: hub, routes: routes, address: address, origins: origins, fire: fire)
        let http = HTTPServer(config: .init(address: bound, timeout: 15, logger: .disabled), handler: router)
        server.withLock { $0 = http }
        let gate = StartGate()
        let run = Task {
            do { try await http.run() } catch { gate.settle(.failed("\(error)")) }
        }
        let wait = Task {
            do {
                try await http.waitUntilListening(timeout: 5)
                gate.settle(.listening)
            } catch { gate.settle(.failed("not listening after 5 s")) }
        }
        switch gate.wait(seconds: 6) {
        case .listening?: break
        case .failed(let why)?:
            run.cancel()
            throw HostError(.usage, "cannot listen on \(address.host):\(address.port): \(why)")
        case nil:
            run.cancel()
            throw HostError(.usage, "cannot listen on \(address.host):\(address.port): no answer in 6 s")
        }
        Self.setNoDelay(onListenerOf: port)
        let heartbeat = hub.heartbeat(every: Self.heartbeat, clock: session.clock)
        tasks.withLock { $0 = [run, wait, heartbeat] }
        let url = "http://\(address.host):\(port)/"
        started.withLock { $0 = (url, routes) }
        return url
    }

    /// Ends the event streams and stops listening (after the run).
    public func stop() {
        hub.close()
        for r in started.withLock({ $0?.routes ?? [] }) { r.close() }
        for t in tasks.withLock({ $0 }) { t.cancel() }
        if let http = server.withLock({ $0 }) {
            let done = DispatchSemaphore(value: 0)
            Task {
                await http.stop(timeout: 0.5); done.signal()
            }
            _ = done.wait(timeout: .now() + 1)
        }
    }

    /// How the start ended.
    enum Outcome: Sendable {
        case listening
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

    /// A bind failure, named.
    struct BindError: Error { var message: String }

    /// Binds `address` once to see that it can be (EADDRINUSE, EACCES...) and learn the port when 0 was
    /// asked; the socket is closed again before the server binds it (SO_REUSEADDR on both).
    static func probePort(_ address: sockaddr_in, requested: UInt16) throws(BindError) -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BindError(message: String(cString: strerror(errno))) }
        defer { Glibc.close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = address
        let r = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { throw BindError(message: String(cString: strerror(errno))) }
        guard listen(fd, 1) == 0 else { throw BindError(message: String(cString: strerror(errno))) }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return requested != 0 ? requested : UInt16(bigEndian: out.sin_port)
    }

    /// Turns Nagle's algorithm off on the server's listening socket (accepted sockets inherit TCP_NODELAY on
    /// Linux). FlyingFox writes a response's head and body in two writes and sets no socket option, so on a
    /// kept-alive connection the body waited for the client's delayed ACK: ~40 ms per request (measured by
    /// `bench control`). FlyingFox offers no hook, so the listener is found among our descriptors by its port.
    static func setNoDelay(onListenerOf port: UInt16) {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in fds {
            var listening: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1 else { continue }
            var a = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &a) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            guard named == 0, a.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: a.sin_port) == port else { continue }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    static func inet(_ host: String, _ port: UInt16) throws(HostError) -> sockaddr_in {
        do { return try .inet(ip4: host, port: port) } catch { throw HostError(.usage, "cannot listen on \(host):\(port): \(error)") }
    }
}
