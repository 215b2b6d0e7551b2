import Foundation
import Host

/// `GET /healthz` of one or more named sessions: healthy while every pipeline plays (`Session.Phase.running`);
/// otherwise the ones that do not (built and not yet playing, stopping, ended: done or failed) are named.
///
/// 200 `{"status": "ok", "pipelines": {"main": "running"}}`;
/// 503 `{"status": "unhealthy", "failing": ["main"], "pipelines": {"main": "ended"}}`. No pipeline at all is healthy
/// (nothing fails). A lost source the keeper is retrying does not count (the pipeline still plays, with a slate):
/// `viewfinder_source_up` in `GET /metrics` says so.
///
/// Threads: any; it reads only `Session.phase`.
public struct HealthReport: Sendable {
    /// Every pipeline with its phase, in the order given (a repeated name's later sessions left out).
    public var pipelines: [(name: String, phase: Session.Phase)]

    /// The report on `pipelines` now.
    public init(_ pipelines: [(name: String, session: Session)]) {
        var names = Set<String>()
        self.pipelines = pipelines.filter { names.insert($0.name).inserted }.map { ($0.name, $0.session.phase) }
    }

    /// The pipelines that do not play, in order.
    public var failing: [String] { pipelines.filter { $0.phase != .running }.map(\.name) }

    /// True when every pipeline plays.
    public var healthy: Bool { failing.isEmpty }

    /// The answer's JSON object.
    public var object: [String: Any] {
        var o: [String: Any] = [
            "status": healthy ? "ok" : "unhealthy",
            "pipelines": Dictionary(pipelines.map { ($0.name, $0.phase.rawValue) }, uniquingKeysWith: { a, _ in a }),
        ]
        if !healthy { o["failing"] = failing }
        return o
    }

    /// `GET /healthz`'s answer: 200 when healthy, else 503.
    public var response: ControlResponse {
        ControlRouter.json(healthy ? .ok : .serviceUnavailable, object, headers: ["Cache-Control": "no-cache"])
    }
}
