import Foundation
import GStreamerKit
import Stages

/// Makes one `RTSPServeService` per `rtspserve` of the description (it claims that element).
struct RTSPServeFactory: ServiceFactory {
    var elements: [ServiceElementSpec] { [RTSPServe.spec] }

    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        var out: [any SessionService] = []
        for serve in try RTSPServe.plans(build.claims(of: RTSPServe.factory)) {
            out.append(RTSPServeService(serve: serve, server: try serve.makeServer(in: build.pipelines)))
        }
        return out
    }
}

/// One `rtspserve`: its server is bound when the session is built, serves from just before the pipelines play
/// until after they stopped (the clients get the end of the stream, then their connections close).
public final class RTSPServeService: SessionService {
    public let name = RTSPServe.factory
    /// The plan as written.
    public let serve: RTSPServe
    /// The gst-rtsp-server it runs.
    public let server: RTSPServer

    init(serve: RTSPServe, server: RTSPServer) {
        self.serve = serve
        self.server = server
    }

    public func willPlay(_ session: Session) { server.start() }
    public func runEnded() { server.stop() }

    public var startLines: [String] {
        var lines = ["rtsp: \(server.url)"]
        if let c = serve.credentials {
            lines.append("rtsp: clients log in (\(c.method.rawValue)): \(c.users.count) user\(c.users.count == 1 ? "" : "s") from \(c.file)")
        } else if !serve.isLoopback {
            lines.append(
                "rtsp: warning: serving on \(server.address) without authentication or encryption: anyone who reaches port \(server.port) can watch; keep bind=127.0.0.1 and use an SSH tunnel, or firewall the port"
            )
        }
        return lines
    }

    /// `viewfinder_viewers{output="rtsp://HOST:PORT/PATH"}`: client connections open now.
    public var metricSamples: [MetricSample] { [.viewers(output: server.url, server.clientCount)] }

    public var reportLines: [String] {
        let c = server.counts
        let retimed = c.retimed > 0 ? " (timing started again \(c.retimed) times: the stream's time jumped)" : ""
        let refused = server.refusedClients
        var limits: [String] = []
        if refused.overLimit > 0 { limits.append("connections refused, over \(RTSPServer.clientLimit) at once: \(refused.overLimit)") }
        if refused.idle > 0 { limits.append("connections shut, no session after \(RTSPServer.setupSeconds) s: \(refused.idle)") }
        let limit = limits.isEmpty ? "" : " (" + limits.joined(separator: "; ") + ")"
        return ["rtsp: \(server.url): \(c.received) packets, \(c.forwarded) sent into \(c.medias) shared media\(retimed)\(limit)"]
    }
}

extension Session {
    /// The `rtspserve` servers, in description order.
    public var rtspServers: [RTSPServer] { services(RTSPServeService.self).map(\.server) }
}
