import Foundation
import Host
import Stages

/// `GET /metrics` and `GET /healthz` of `viewfinder serve`: every pipeline's session figures (`MetricsReport`, with
/// `pipeline="NAME"`), each pipeline's own state and restarts, and the process's; healthy when every pipeline that
/// should play plays. Served after the pipelines server's checks (token, Host, Origin) like every route.
///
/// Health: `playing` is healthy; `stopped` (a user's stop) and `ended` (end-of-stream without `restart: always`) are
/// not meant to play and count as healthy; `starting`, `stopping`, `restarting` and `failed` are named in the 503.
struct PipelinesStatusRoutes: ControlRoutes {
    let host: CameraHost

    func answer(_ request: ControlRequest) async -> ControlResponse? {
        switch request.path {
        case "/metrics": return ControlRouter.only(.GET, request) { metrics() }
        case "/healthz": return ControlRouter.only(.GET, request) { health() }
        default: return nil
        }
    }

    static let healthyStates: Set<PipelineMessage.State> = [.playing, .stopped, .ended]

    func health() -> ControlResponse {
        let cameras = host.cameras
        let failing = cameras.filter { !Self.healthyStates.contains($0.status.state) }.map(\.name)
        var o: [String: Any] = [
            "status": failing.isEmpty ? "ok" : "unhealthy",
            "pipelines": Dictionary(cameras.map { ($0.name, $0.status.state.rawValue) }, uniquingKeysWith: { a, _ in a }),
        ]
        if !failing.isEmpty { o["failing"] = failing }
        return ControlRouter.json(failing.isEmpty ? .ok : .serviceUnavailable, o, headers: ["Cache-Control": "no-cache"])
    }

    func metrics() -> ControlResponse {
        let cameras = host.cameras
        let running = cameras.compactMap { c in c.session.map { (name: c.name, session: $0) } }
        var status = PrometheusText.Family(
            name: "viewfinder_pipeline_status", help: "1 for the state each named pipeline of serve is in", kind: .gauge)
        var restarts = PrometheusText.Family(
            name: "viewfinder_pipeline_restarts_total", help: "Restarts of each named pipeline after an error", kind: .counter)
        for c in cameras {
            let s = c.status
            for state in PipelineMessage.State.allCases where state != .removed {
                status.samples.append(.init(labels: [("pipeline", c.name), ("state", state.rawValue)], value: s.state == state ? 1 : 0))
            }
            restarts.samples.append(.init(labels: [("pipeline", c.name)], value: Double(s.restarts)))
        }
        let families = [status, restarts] + MetricsReport.families(running, process: ProcessMetrics.current())
        return ControlResponse(
            statusCode: .ok, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-cache"],
            body: Data(PrometheusText.render(families).utf8))
    }
}
