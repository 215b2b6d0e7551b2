import Foundation
import GStreamerKit
import Host

/// `GET /api/webrtc`: the WebSocket of one browser peer of the session's `webrtcserve` (`WebRTCSignalling`).
struct WebRTCRoutes: ControlRoutes {
    let server: WebRTCServer

    func answer(_ request: ControlRequest) async -> ControlResponse? {
        guard request.path == "/api/webrtc" else { return nil }
        guard request.method == .GET else { return ControlRouter.only(.GET, request) { ControlResponse(statusCode: .ok) } }
        // The server upgrades a `GET` with `Upgrade: websocket` to this; a plain GET gets 400 there.
        return ControlResponse(statusCode: .ok, body: .webSocket(ControlWebSocket(WebRTCSignalling(server: server))))
    }

    func startLines(serverURL: String) -> [String] {
        ["webrtc: the page at \(serverURL) shows the preview over WebRTC (signalling: GET /api/webrtc)"]
    }
}

extension WebRTCServeService: ServesControlRoutes {
    public func controlRoutes(_ context: ControlRouteContext) -> any ControlRoutes {
        // ICE gathers on the control server's address only (on loopback nothing leaves the machine; libnice skips
        // loopback interfaces unless told), on every interface for 0.0.0.0.
        let host = context.address.host
        server.iceAddress.withLock { $0 = host == "0.0.0.0" ? nil : host }
        return WebRTCRoutes(server: server)
    }
}
