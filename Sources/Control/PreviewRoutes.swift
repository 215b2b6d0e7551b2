import FlyingFox
import Foundation
import Host

/// `GET /api/preview.mjpeg` (the live preview as multipart/x-mixed-replace JPEG parts: an `<img src>` shows it as
/// video) and `GET /api/preview.jpg` (one fresh picture), fed by the session's `PreviewTap`.
struct PreviewRoutes: ControlRoutes {
    let hub: PreviewHub

    func answer(_ request: HTTPRequest) async -> HTTPResponse? {
        switch request.path {
        case "/api/preview.mjpeg": return ControlRouter.only(.GET, request) { stream() }
        case "/api/preview.jpg":
            guard request.method == .GET else { return ControlRouter.only(.GET, request) { HTTPResponse(statusCode: .ok) } }
            return await picture()
        default: return nil
        }
    }

    func stream() -> HTTPResponse {
        guard let client = hub.subscribe() else {
            return ControlRouter.error(.serviceUnavailable, "too many preview viewers: at most \(PreviewHub.clientLimit)")
        }
        return HTTPResponse(
            statusCode: .ok,
            headers: [
                .contentType: "multipart/x-mixed-replace; boundary=\(PreviewHub.boundary)", HTTPHeader("Cache-Control"): "no-cache, no-store",
            ],
            body: HTTPBodySequence(from: EventStream(client: client)))
    }

    func picture() async -> HTTPResponse {
        guard let jpeg = await hub.picture() else {
            return ControlRouter.error(.serviceUnavailable, "no preview frame within 3 s: is the pipeline playing?")
        }
        return HTTPResponse(
            statusCode: .ok, headers: [.contentType: "image/jpeg", HTTPHeader("Cache-Control"): "no-cache, no-store"], body: jpeg)
    }

    func close() { hub.close() }
}

extension PreviewService: ServesControlRoutes {
    public func controlRoutes(_ server: ControlRouteContext) -> any ControlRoutes {
        let hub = PreviewHub(tap: tap, clock: server.clock)
        tap.onJPEG = { hub.publish($0) }
        return PreviewRoutes(hub: hub)
    }
}
