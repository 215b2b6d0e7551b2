import Foundation
import GStreamerKit
import Host
import Stages

/// Answers every request of the control API: security checks first (token, origin), then the route.
///
/// Routes: `GET /api/stages`, `PATCH /api/stages/{name}`, `POST /api/capture`, `GET /api/state`,
/// `POST /api/stop`, `GET /api/events`, `GET /metrics` (`MetricsReport`), `GET /healthz` (`HealthReport`), the page; the gallery's (`/api/photos...`, `/photos/...`) in
/// `GalleryRoutes.swift`; then the routes the session's services serve (`ControlRoutes`: the preview, WebRTC
/// signalling, the HLS outputs...), asked in order; paths of services the session lacks get `AbsentRoutes`' 404.
/// Errors are JSON: `{"error": "...", "field": "..."}` (field when one is to blame). Threads: runs on the server's tasks; it reaches the session only through its
/// thread-safe accessors (`update`, `requestStop`, `liveReport`, ...), never the video threads.
struct ControlRouter: Sendable {
    /// Largest request body read (larger: 413, and the connection is closed: `ControlHTTPServer`).
    static let bodyLimit = ControlLimits.standard.body

    let session: Session
    /// The session's name in `/metrics` and `/healthz` (`pipeline="main"`).
    let pipeline: String
    let hub: EventHub
    /// The routes the session's services serve.
    let routes: [any ControlRoutes]
    let address: ControlAddress
    /// The server's own origins (`http://127.0.0.1:PORT`, `http://localhost:PORT`), set once the port is known.
    let origins: Set<String>
    /// Fires the manual shutter (as SIGUSR1 does).
    let fire: @Sendable () -> Void

    /// The guard's checks (token, Host, Origin), then the route.
    func handle(_ request: ControlRequest) async -> ControlResponse {
        if let refusal = ControlGuard(address: address, origins: origins).refusal(request) { return refusal }
        return await route(request)
    }

    /// The route of a request that passed the checks (`viewfinder serve` checks once for all its pipelines, then
    /// hands each pipeline's requests here with the pipeline's prefix taken off).
    func route(_ request: ControlRequest) async -> ControlResponse {
        let path = request.path
        let method = request.method
        func only(_ allowed: ControlMethod, _ answer: () async -> ControlResponse) async -> ControlResponse {
            guard method == allowed else { return Self.only(allowed, request) { ControlResponse(statusCode: .ok) } }
            return await answer()
        }
        switch path {
        case "/api/stages": return await only(.GET) { stages() }
        case "/api/state": return await only(.GET) { state() }
        case "/api/events": return await only(.GET) { events() }
        case "/api/capture": return await only(.POST) { await capture(request) }
        case "/api/stop": return await only(.POST) { stop() }
        case "/metrics": return await only(.GET) { MetricsReport.response([(pipeline, session)]) }
        case "/healthz": return await only(.GET) { HealthReport([(pipeline, session)]).response }
        case "/", "/index.html":
            return await only(.GET) {
                var page = Self.page(.html, origins: origins)
                if let token = address.token, let t = request.query["token"], Self.same(t, token) {
                    page.headers["Set-Cookie"] = "viewfinder-token=\(token); Path=/; HttpOnly; SameSite=Strict"
                }
                return page
            }
        case "/app.js": return await only(.GET) { Self.page(.script, origins: origins) }
        case "/app.css": return await only(.GET) { Self.page(.style, origins: origins) }
        default:
            if path.hasPrefix("/api/stages/") {
                let name = String(path.dropFirst("/api/stages/".count))
                return await only(.PATCH) { await patch(name, request) }
            }
            if let answer = await gallery(request) { return answer }
            for r in routes { if let answer = await r.answer(request) { return answer } }
            if let answer = AbsentRoutes.answer(path) { return answer }
            return Self.error(.notFound, "no route \(path): expected /api/stages, /api/state, /api/events, /api/capture, /api/stop, /metrics or /healthz")
        }
    }

    // MARK: routes

    /// Every stage with every property: type, range, default, current value, live-changeable. `value` and
    /// `default` are typed JSON (`PropertyJSON`): numbers for int and double, booleans for bool, else strings.
    func stages() -> ControlResponse {
        var list: [[String: Any]] = []
        for (name, kind) in session.stageInstances {
            let specs = StageRegistry.type(of: kind)?.descriptor.properties ?? []
            let current = session.propertyValues(ofStage: name) ?? [:]
            let props: [[String: Any]] = specs.map { s in
                var p: [String: Any] = [
                    "name": s.name, "blurb": s.blurb, "type": s.type.name, "range": s.type.rangeText,
                    "default": PropertyJSON.defaultJSON(s, stage: name),
                    "value": current[s.name].map(PropertyJSON.json) ?? PropertyJSON.defaultJSON(s, stage: name),
                    "mutable": s.mutability == .playing,
                ]
                // Machine-readable limits, so a page can make a select or a slider without parsing `range`.
                switch s.type {
                case .int(let r): p["min"] = r.lowerBound; p["max"] = r.upperBound
                case .double(let r): p["min"] = r.lowerBound; p["max"] = r.upperBound
                case .choice(let c), .set(let c): p["choices"] = c
                default: break
                }
                return p
            }
            list.append(["name": name, "kind": kind, "properties": props])
        }
        return Self.json(.ok, ["stages": list])
    }

    /// Validates every field first; applies only when all are good (`PropertyPatch`).
    func patch(_ name: String, _ request: ControlRequest) async -> ControlResponse {
        do { _ = try PropertyPatch.specs(of: name, in: session) } catch { return Self.refused(error) }
        let body: Data
        switch await Self.body(of: request) {
        case .success(let d): body = d
        case .failure(let r): return r.response
        }
        let fields: [(String, JSONScalar)]
        do { fields = try JSONScalar.object(body) } catch { return Self.error(.badRequest, error.message, field: error.field) }
        do {
            let applied = try PropertyPatch.apply(fields, to: name, in: session)
            return Self.json(.ok, ["stage": name, "changed": PropertyJSON.object(applied)])
        } catch { return Self.refused(error) }
    }

    /// A refused property change as its HTTP answer (404 unknown stage, 400 bad value, 409 not now).
    static func refused(_ r: PropertyPatch.Refusal) -> ControlResponse {
        switch r.kind {
        case .unknownStage: return error(.notFound, r.message, field: r.field)
        case .badValue: return error(.badRequest, r.message, field: r.field)
        case .conflict: return error(.conflict, r.message, field: r.field)
        }
    }

    /// Fires the manual shutter, as SIGUSR1 does; with `{"timer": N}` sends the `viewfinder-capture` custom
    /// event with that self-timer instead (trigger `event` in records.json).
    func capture(_ request: ControlRequest) async -> ControlResponse {
        let body: Data
        switch await Self.body(of: request) {
        case .success(let d): body = d
        case .failure(let r): return r.response
        }
        var fields: [(String, JSONScalar)] = []
        if !body.isEmpty {
            do { fields = try JSONScalar.object(body) } catch { return Self.error(.badRequest, error.message, field: error.field) }
        }
        do { return Self.json(.accepted, try SessionCommands.capture(fields, session: session, fire: fire)) } catch {
            return Self.error(.badRequest, error.message, field: error.field)
        }
    }

    /// The run's phase and the figures of the stats line.
    func state() -> ControlResponse {
        var o = SessionCommands.state(of: session)
        o["eventClients"] = hub.count
        return Self.json(.ok, o)
    }

    /// End-of-stream, as Ctrl-C.
    func stop() -> ControlResponse {
        session.requestStop()
        return Self.json(.accepted, ["state": Session.Phase.stopping.rawValue])
    }

    /// Server-sent events, one per `viewfinder/*` message.
    func events() -> ControlResponse {
        guard let client = hub.subscribe() else {
            return Self.error(.serviceUnavailable, "too many event clients: at most \(EventHub.clientLimit)")
        }
        client.push(Data(": connected\n\n".utf8))
        return ControlResponse(
            statusCode: .ok,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
            body: .stream(ControlStream(client: client)))
    }

    /// The control page's files (no build step, nothing fetched from elsewhere). The page's WebSocket (`/api/webrtc`)
    /// may go to this server only: `connect-src` names its own origins as `ws://` too, for browsers whose `'self'`
    /// does not cover `ws:` (CSP 2).
    static func page(_ file: ControlPage.File, origins: Set<String> = []) -> ControlResponse {
        served(file.text, contentType: file.contentType, origins: origins)
    }

    /// A file of a page (the control page, `serve`'s overview) with the pages' headers: the CSP (`default-src
    /// 'self'`, images also from `blob:`/`data:`, WebSockets to the server's own origins), `no-cache`, `nosniff`.
    static func served(_ text: String, contentType: String, origins: Set<String> = []) -> ControlResponse {
        let sockets = origins.sorted().map { "ws://" + $0.dropFirst("http://".count) }.joined(separator: " ")
        let csp = "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'" + (sockets.isEmpty ? "" : "; connect-src 'self' \(sockets)")
        return ControlResponse(
            statusCode: .ok,
            headers: [
                "Content-Type": contentType, "Cache-Control": "no-cache",
                "Content-Security-Policy": csp,
                "X-Content-Type-Options": "nosniff",
            ],
            body: Data(text.utf8))
    }

    // MARK: helpers

    /// `answer()` when the request's method is `allowed`, else 405 naming the method and what was expected.
    static func only(_ allowed: ControlMethod, _ request: ControlRequest, _ answer: () -> ControlResponse) -> ControlResponse {
        guard request.method == allowed else {
            return error(
                .methodNotAllowed, "\(request.method.rawValue) not allowed on \(request.path): expected \(allowed.rawValue)",
                headers: ["Allow": allowed.rawValue])
        }
        return answer()
    }

    /// A refused request, ready to send.
    struct Refusal: Error { var response: ControlResponse }

    /// The request body (the server has read it, refusing more than its body limit with 413 before routing).
    static func body(of request: ControlRequest) async -> Result<Data, Refusal> { .success(request.body) }

    /// The value of cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let kv = part.trimmingCharacters(in: .whitespaces)
            if kv.hasPrefix(name + "=") { return String(kv.dropFirst(name.count + 1)) }
        }
        return nil
    }

    /// Compares without stopping at the first difference (tokens).
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = x.count ^ y.count
        for i in 0..<min(x.count, y.count) { diff |= Int(x[i] ^ y[i]) }
        return diff == 0
    }

    /// A JSON answer.
    static func json(_ status: ControlStatus, _ object: [String: Any], headers: ControlHeaders = [:]) -> ControlResponse {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        var h = ControlHeaders()
        h["Content-Type"] = "application/json"
        for (k, v) in headers { h[k] = v }
        return ControlResponse(statusCode: status, headers: h, body: data + Data("\n".utf8))
    }

    /// `{"error": text, "field": field}`.
    static func error(_ status: ControlStatus, _ text: String, field: String? = nil, headers: ControlHeaders = [:]) -> ControlResponse {
        var o: [String: Any] = ["error": text]
        if let field { o["field"] = field }
        return json(status, o, headers: headers)
    }
}
