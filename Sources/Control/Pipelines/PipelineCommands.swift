import Foundation
import Host
import Stages

/// What the pipelines API does, the same way for every way in (HTTP `PipelinesRouter`, MQTT `PipelinesMQTT`): add,
/// remove, start, stop, restart, switch a source; each answers with the pipeline's object or refuses with a
/// `PipelineRequestError`. Blocking work (building a session, draining a run) runs on the caller's thread: the
/// router moves it off the cooperative pool first, MQTT runs it on a thread of its own.
enum PipelineCommands {
    /// The verbs MQTT takes on `.../cmd/VERB` (HTTP has a route for each).
    static let verbs = ["add", "remove", "start", "stop", "restart", "switch"]

    /// `POST /api/pipelines`, `cmd/add`.
    static func add(_ body: Data, host: CameraHost) throws(PipelineRequestError) -> [String: Any] {
        let (spec, start) = try PipelineRequest.decode(body, store: host.store)
        try host.add(spec, start: start)
        return host.camera(named: spec.name).map(object) ?? ["name": spec.name]
    }

    /// `DELETE /api/pipelines/NAME`, `cmd/remove`: after end-of-stream, recordings finalised, files removed.
    static func remove(_ name: String, host: CameraHost) throws(PipelineRequestError) -> [String: Any] {
        try host.remove(name)
        return ["name": name, "state": PipelineMessage.State.removed.rawValue]
    }

    /// `POST .../start|stop|restart`, `cmd/start|stop|restart`.
    static func control(_ verb: String, _ name: String, host: CameraHost) throws(PipelineRequestError) -> [String: Any] {
        let camera = try host.existing(name)
        switch verb {
        case "start": camera.start()
        case "stop": camera.stop()
        default: camera.restart()
        }
        return object(camera)
    }

    /// `PATCH .../source`, `cmd/switch`: the running session's source segment replaced by `body`'s description.
    static func switchSource(_ name: String, _ body: Data, host: CameraHost) throws(PipelineRequestError) -> [String: Any] {
        let camera = try host.existing(name)
        let description = try PipelineRequest.source(body)
        guard let session = camera.session, session.phase == .running else {
            throw PipelineRequestError(
                .conflict, "pipeline '\(name)' is \(camera.status.state.rawValue): a source is switched while it plays; start it first")
        }
        let switched = try SourceSwitching.switchSource(of: session, to: description)
        var o = object(camera)
        o["source"] = ["description": switched.description, "element": switched.element, "retired": switched.retired]
        return o
    }

    /// The name a command payload names (`{"name": "door", ...}`), checked.
    static func name(in body: Data) throws(PipelineRequestError) -> String {
        let o = try PipelineRequest.fields(body, expected: "a JSON object {\"name\": \"door\", ...}")
        guard case .string(let name)? = o["name"] else {
            throw PipelineRequestError(.invalid, "'name' must be a string, got \(o["name"]?.kind ?? "nothing")", field: "name")
        }
        return name
    }

    /// A pipeline as the API shows it: name, state, description, restart policy, restarts, error, retry-in, and
    /// while it runs the session's figures (frames, fps, dropped), its services' fields, `viewers` per output and the
    /// watched sources' states (`sources`, with `--reconnect`).
    static func object(_ camera: Camera) -> [String: Any] {
        let status = camera.status
        let spec = camera.spec
        var o: [String: Any] = [:]
        if let session = camera.session {
            o = SessionCommands.state(of: session)
            // Viewers per output and the watched sources' states, from the services' own figures (as /metrics).
            let samples = session.services.flatMap(\.metricSamples)
            var viewers: [String: Int] = [:]
            var sources: [String: String] = [:]
            for m in samples {
                let label = { (name: String) in m.labels.first { $0.name == name }?.value ?? "" }
                if m.name == "viewfinder_viewers" { viewers[label("output"), default: 0] += Int(m.value) }
                if m.name == "viewfinder_source_state" && m.value == 1 { sources[label("source")] = label("state") }
            }
            o["viewers"] = viewers
            if !sources.isEmpty { o["sources"] = sources }
        }
        o["session"] = o["state"] ?? "none"
        o["name"] = camera.name
        o["state"] = status.state.rawValue
        o["description"] = spec.description
        o["restart"] = spec.restart.rawValue
        o["restarts"] = status.restarts
        if !status.error.isEmpty { o["error"] = status.error }
        if let at = status.retryAt { o["retryIn"] = max(0, at - camera.clock.now) }
        return o
    }
}
