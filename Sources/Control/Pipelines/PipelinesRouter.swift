import Foundation
import Host
import Stages

/// Answers every request of `viewfinder serve`'s control server: the guard's checks once (token, Host, Origin), then
/// the pipelines API, the process's own routes, or a pipeline's own routes under its prefix.
///
/// - `GET /api/pipelines` (every pipeline: `PipelinesRouter.listed`), `POST /api/pipelines` (`{"name", "description",
///   "settings"?, "start"?}`: validated exactly like `launch`, 400 with the parse error, its `position` and `token`,
///   nothing started; 409 for a name in use), `GET|DELETE /api/pipelines/NAME`, `POST /api/pipelines/NAME/start|stop|restart`.
/// - `/api/pipelines/NAME` + any path of `launch --http` (`/api/stages`, `/photos/...`, `/hls/...`, `/` the
///   single-camera page) is that path of the pipeline's session (`CameraEndpoint`); a short form without `/api`
///   (`/api/pipelines/NAME/stages`, `/state`, `/events`, `/capture`, `/preview.mjpeg`, `/webrtc`, `/photos`) is the
///   same route. 503 while the pipeline has no session (stopped, restarting).
/// - `GET /api/events`: the pipelines' changes (`viewfinder/pipeline`) as server-sent events.
///
/// Threads: the server's tasks; `DELETE` and `stop` wait for the pipeline's end-of-stream off the cooperative pool.
struct PipelinesRouter: Sendable {
    let host: CameraHost
    let guarded: ControlGuard
    let hub: EventHub
    /// Extra process routes (metrics, health, the overview page), asked after the pipelines API.
    let extra: [any ControlRoutes]

    func handle(_ request: ControlRequest) async -> ControlResponse {
        if let refusal = guarded.refusal(request) { return refusal }
        let path = request.path
        switch path {
        case "/api/pipelines":
            switch request.method {
            case .GET: return ControlRouter.json(.ok, ["pipelines": host.cameras.map(Self.listed)])
            case .POST: return await add(request)
            default:
                return ControlRouter.error(
                    .methodNotAllowed, "\(request.method.rawValue) not allowed on /api/pipelines: expected GET or POST",
                    headers: ["Allow": "GET, POST"])
            }
        case "/api/events": return ControlRouter.only(.GET, request) { events() }
        default: break
        }
        if path.hasPrefix("/api/pipelines/") { return await pipeline(request) }
        for r in extra { if let answer = await r.answer(request) { return answer } }
        return ControlRouter.error(.notFound, "no route \(Echo.value(path)): expected /api/pipelines, /api/pipelines/NAME/..., /api/events")
    }

    /// `/api/pipelines/NAME...`.
    func pipeline(_ request: ControlRequest) async -> ControlResponse {
        let tail = request.path.dropFirst("/api/pipelines/".count)
        let name = String(tail.prefix { $0 != "/" })
        let rest = String(tail.dropFirst(name.count))
        let camera: Camera
        do { camera = try host.existing(name) } catch { return Self.refused(error) }
        switch rest {
        case "":
            switch request.method {
            case .GET: return ControlRouter.json(.ok, Self.listed(camera))
            case .DELETE:
                return await Self.answer(.ok) { () throws(PipelineRequestError) in try PipelineCommands.remove(name, host: host) }
            default:
                return ControlRouter.error(
                    .methodNotAllowed, "\(request.method.rawValue) not allowed on /api/pipelines/\(name): expected GET or DELETE",
                    headers: ["Allow": "GET, DELETE"])
            }
        case "/start", "/stop", "/restart":
            return ControlRouter.only(.POST, request) {
                do throws(PipelineRequestError) {
                    return ControlRouter.json(.accepted, try PipelineCommands.control(String(rest.dropFirst()), name, host: host))
                } catch {
                    return Self.refused(error)
                }
            }
        case "/source":
            guard request.method == .PATCH else { return ControlRouter.only(.PATCH, request) { ControlRouter.json(.ok, [:]) } }
            let body = request.body
            return await Self.answer(.ok) { () throws(PipelineRequestError) in try PipelineCommands.switchSource(name, body, host: host) }
        default:
            return await mounted(request, camera: camera, rest: rest)
        }
    }

    /// A pipeline's own route: the request with `/api/pipelines/NAME` taken off (and the short form's `/api` put on).
    func mounted(_ request: ControlRequest, camera: Camera, rest: String) async -> ControlResponse {
        let prefix = "/api/pipelines/\(camera.name)"
        guard request.rawPath.hasPrefix(prefix) else {
            return ControlRouter.error(.notFound, "no route \(Echo.value(request.path)): expected \(prefix)/...")
        }
        var inner = request
        inner.mount = prefix
        let rawRest = String(request.rawPath.dropFirst(prefix.count))
        let long = ["/api/", "/photos/", "/clips/", "/recordings/", "/hls", "/app.js", "/app.css", "/index.html"].contains { rest.hasPrefix($0) } || rest == "/"
        inner.rawPath = long ? rawRest : "/api" + rawRest
        inner.path = long ? rest : "/api" + rest
        guard let endpoint = camera.session?.services(CameraEndpoint.self).first else {
            return ControlRouter.error(
                .serviceUnavailable, "pipeline '\(camera.name)' is \(camera.status.state.rawValue): it has no running session; try again",
                headers: ["Retry-After": "1"])
        }
        return await endpoint.answer(inner)
    }

    /// `POST /api/pipelines`.
    func add(_ request: ControlRequest) async -> ControlResponse {
        let body = request.body
        var answer = await Self.answer(.created) { () throws(PipelineRequestError) in try PipelineCommands.add(body, host: host) }
        if answer.statusCode == .created, let name = try? PipelineCommands.name(in: body) { answer.headers["Location"] = "/api/pipelines/\(name)" }
        return answer
    }

    /// Server-sent events of the pipelines' changes.
    func events() -> ControlResponse {
        guard let client = hub.subscribe() else {
            return ControlRouter.error(.serviceUnavailable, "too many event clients: at most \(EventHub.clientLimit)")
        }
        client.push(Data(": connected\n\n".utf8))
        return ControlResponse(
            statusCode: .ok, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
            body: .stream(ControlStream(client: client)))
    }

    /// A pipeline as `GET /api/pipelines` and `GET /api/pipelines/NAME` show it: `PipelineCommands.object` and, while
    /// it runs, its last composition verdict (`score`, `rule`: the overview's tiles). Not in MQTT's retained list,
    /// which is published on changes only and would keep a stale score.
    static func listed(_ camera: Camera) -> [String: Any] {
        var o = PipelineCommands.object(camera)
        if let endpoint = camera.session?.services(CameraEndpoint.self).first { o.merge(endpoint.compositionFields) { a, _ in a } }
        return o
    }

    /// A refusal as its HTTP answer.
    static func refused(_ e: PipelineRequestError) -> ControlResponse {
        let status: ControlStatus =
            switch e.kind {
            case .invalid: .badRequest
            case .notFound: .notFound
            case .conflict: .conflict
            case .failed: .internalServerError
            }
        var o: [String: Any] = ["error": e.message]
        if let f = e.field { o["field"] = f }
        if let p = e.position { o["position"] = p }
        if let t = e.token { o["token"] = t }
        return ControlRouter.json(status, o)
    }

    /// Runs `work` (which blocks: building pipelines, draining a run) on a thread of its own, not the cooperative
    /// pool; its object with `status`, or its refusal.
    static func answer(
        _ status: ControlStatus, _ work: @escaping @Sendable () throws(PipelineRequestError) -> [String: Any]
    ) async -> ControlResponse {
        let box: Result<ControlResponse, Never> = await withCheckedContinuation { c in
            Thread.detachNewThread {
                do throws(PipelineRequestError) { c.resume(returning: .success(ControlRouter.json(status, try work()))) } catch {
                    c.resume(returning: .success(refused(error)))
                }
            }
        }
        switch box { case .success(let r): return r }
    }
}
