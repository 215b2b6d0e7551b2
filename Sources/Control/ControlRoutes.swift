import Foundation
import Host
import Timing

/// Routes a service adds to the control server, answered after the router's security checks (token, Host,
/// Origin) like every route. A service offers them by conforming to `ServesControlRoutes` (in this module, beside
/// the service: `PreviewRoutes`, `HLSRoutes`, `WebRTCRoutes`; a test's own in its test file).
public protocol ControlRoutes: Sendable {
    /// The answer to a request this owns; nil when the path is not its.
    func answer(_ request: ControlRequest) async -> ControlResponse?
    /// Lines for the user once the server listens at `serverURL` (`http://127.0.0.1:8080/`).
    func startLines(serverURL: String) -> [String]
    /// The run ended: end open streams.
    func close()
}

extension ControlRoutes {
    public func startLines(serverURL: String) -> [String] { [] }
    public func close() {}
}

/// A session service with routes on the control server.
public protocol ServesControlRoutes: SessionService {
    /// The routes, made once when the control server starts.
    func controlRoutes(_ server: ControlRouteContext) -> any ControlRoutes
}

/// What a service's routes know of the control server.
public struct ControlRouteContext: Sendable {
    /// Where the server listens and the token it demands.
    public var address: ControlAddress
    /// When the server started (on the session's clock's wall time).
    public var started: Date
    /// The session's clock (heartbeats, freshness, waits).
    public var clock: any HostClock
    /// The prefix the session's routes are reached under (`/api/pipelines/NAME` in `serve`, empty in `launch`).
    public var mount = ""
}

/// Paths served by services a session may not have, with the answer when it has none (404 saying what would make
/// them exist), so `/api/webrtc` without a `webrtcserve` says so instead of "no route".
enum AbsentRoutes {
    static let all: [(prefix: String, answer: @Sendable () -> ControlResponse)] = [
        ("/api/preview.", { ControlRouter.error(.notFound, "no preview: the pipeline has no Viewfinder stage (the preview shows the last stage's output)") }),
        ("/api/webrtc", {
            ControlRouter.error(
                .notFound, "no WebRTC: the description has no webrtcserve (e.g. '... ! compose ! webrtcserve'); the preview is /api/preview.mjpeg")
        }),
        ("/hls", { ControlRouter.error(.notFound, "no HLS output: the pipeline has no hlssink2 or hlssink element") }),
        ("/api/clips", {
            ControlRouter.error(.notFound, "no clip recorder: the description has no clips element (e.g. '... ! x264enc ! h264parse ! clips pre=5 post=5')")
        }),
        ("/clips/", { ControlRouter.error(.notFound, "no clip recorder: the description has no clips element") }),
        ("/api/recordings", {
            ControlRouter.error(
                .notFound, "no recordings: the description has no recordings element (e.g. '... ! h264parse ! recordings segment=60 max-age=7d')")
        }),
        ("/recordings/", { ControlRouter.error(.notFound, "no recordings: the description has no recordings element") }),
    ]

    /// The answer for `path` when no service serves it, nil when it is not such a path.
    static func answer(_ path: String) -> ControlResponse? {
        for (prefix, answer) in all where path.hasPrefix(prefix) { return answer() }
        return nil
    }
}
