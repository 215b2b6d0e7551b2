import Diagnostics
import Foundation
import GStreamerKit
import Stages

/// Makes the `WebRTCServeService` of the description's `webrtcserve` (it claims that element).
struct WebRTCServeFactory: ServiceFactory {
    var elements: [ServiceElementSpec] { [WebRTCServe.spec] }

    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        guard let serve = try WebRTCServe.plan(build.claims(of: WebRTCServe.factory)) else { return [] }
        return [WebRTCServeService(server: try serve.makeServer(in: build.pipelines))]
    }
}

/// The `webrtcserve` server: its encode pipeline plays from just before the described pipelines until they
/// stopped; browser peers come through the control server's `GET /api/webrtc` (Control's `WebRTCRoutes`), so a
/// session with one must have the control server (`needs`).
public final class WebRTCServeService: SessionService {
    public let name = WebRTCServe.factory
    /// The server (peers, counts, signalling).
    public let server: WebRTCServer

    init(server: WebRTCServer) {
        self.server = server
        server.onError.withLock { $0 = { Log.host.say(.warning, $0) } }
    }

    public func check(_ services: [any SessionService]) throws(HostError) {
        // The browser reaches webrtcserve only through the control server's /api/webrtc.
        guard services.contains(where: { $0.name == "control" }) else {
            throw HostError(
                .usage, "webrtcserve needs --http HOST:PORT: browsers connect through the control server (GET /api/webrtc), e.g. --http 127.0.0.1:8080")
        }
    }

    public func willPlay(_ session: Session) { server.start() }
    public func runEnded() { server.stop() }

    /// The page opens /api/webrtc when this is here; the counts prove one encode for every peer.
    public func stateFields() -> [String: Any] {
        let c = server.counts
        return ["webrtc": ["peers": server.peerCount, "framesIn": c.received, "framesToEncoder": c.forwarded, "framesEncoded": c.encoded]]
    }

    /// `viewfinder_viewers{output="webrtc"}`: browser peers now.
    public var metricSamples: [MetricSample] { [.viewers(output: "webrtc", server.peerCount)] }

    public var reportLines: [String] {
        let c = server.counts
        return ["webrtc: \(c.received) frames, \(c.forwarded) into the encoder, \(c.encoded) encoded"]
    }
}

extension Session {
    /// The `webrtcserve` server, nil without one.
    public var webrtcServer: WebRTCServer? { services(WebRTCServeService.self).first?.server }
}
