import Foundation
import Host

/// `GET /api/preview.mjpeg` (the live preview as multipart/x-mixed-replace JPEG parts: an `<img src>` shows it as
/// video) and `GET /api/preview.jpg` (one fresh picture), fed by the session's `PreviewTap`.
struct PreviewRoutes: ControlRoutes {
    let hub: PreviewHub

    func answer(_ request: ControlRequest) async -> ControlResponse? {
        switch request.path {
        case "/api/preview.mjpeg": return ControlRouter.only(.GET, request) { stream() }
        case "/api/preview.jpg":
            guard request.method == .GET else { return ControlRouter.only(.GET, request) { ControlResponse(statusCode: .ok) } }
            return await picture()
        default: return nil
        }
    }

    func stream() -> ControlResponse {
        guard let client = hub.subscribe() else {
            return ControlRouter.error(.serviceUnavailable, "too many preview viewers: at most \(PreviewHub.clientLimit)")
        }
        return ControlResponse(
            statusCode: .ok,
            headers: [
                "Content-Type": "multipart/x-mixed-replace; boundary=\(PreviewHub.boundary)", "Cache-Control": "no-cache, no-store",
            ],
            body: .stream(ControlStream(client: client)))
    }

    func picture() async -> ControlResponse {
        guard let jpeg = await hub.picture() else {
            return ControlRouter.error(.serviceUnavailable, "no preview frame within 3 s: is the pipeline playing?")
        }
        return ControlResponse(
            statusCode: .ok, headers: ["Content-Type": "image/jpeg", "Cache-Control": "no-cache, no-store"], body: jpeg)
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
