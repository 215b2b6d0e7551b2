import Foundation
import GStreamerKit
import Host
import Stages

/// The clips of the session's clip recorders (`clips` elements) over the control server and MQTT.
///
/// Routes: `GET /api/clips` (every recorder with its ring figures, and every clip newest first with the URLs of its
/// file and thumbnail), `POST /api/clips` (a clip of the moment now: `{}` asks every recorder, `{"element": NAME}`
/// one; 202 with what each did: `opened`, `extended` (the open clip now covers it) or `waiting`),
/// `DELETE /api/clips/{element}/{id}` (file, thumbnail and record), `GET /clips/{element}/{file}` (a file
/// `clips.json` lists, with range requests: `RangeFile`). MQTT: `TOPIC/cmd/clip` with the same payload as the POST.
/// A saved clip is announced on `/api/events` and `TOPIC/events/clip` (`viewfinder/clip` event=saved) with its URL.
///
/// Files are served like the gallery's: raw path segments must be plain names (`Gallery.plainSegments`), the name
/// must be a clip's `file` or `thumbnail` in the recorder's index, and its realpath must stay inside the directory.
/// Threads: the connection's task; deletes run on `GalleryWork`'s queue.
struct ClipsRoutes: ControlRoutes {
    /// Every recorder of the session, in description order (each recorder's routes object answers for all of them:
    /// the first one the router asks answers).
    let recorders: [ClipsService]

    func answer(_ request: ControlRequest) async -> ControlResponse? {
        let raw = request.rawPath
        if raw == "/api/clips" {
            switch request.method {
            case .GET: return list(mount: request.mount)
            case .POST: return trigger(request.body, kind: "api")
            default: return Self.notAllowed(request, "GET, POST")
            }
        }
        if raw.hasPrefix("/api/clips/") {
            guard let parts = Gallery.plainSegments(raw.dropFirst("/api/clips/".count)), parts.count == 2 else {
                return ControlRouter.error(.notFound, "no route \(Echo.value(raw)): expected /api/clips/ELEMENT/ID")
            }
            guard request.method == .DELETE else { return Self.notAllowed(request, "DELETE") }
            return await delete(element: parts[0], id: parts[1])
        }
        if raw.hasPrefix("/clips/") {
            guard let parts = Gallery.plainSegments(raw.dropFirst("/clips/".count)), parts.count >= 2 else {
                return ControlRouter.error(.notFound, "not found: \(Echo.value(raw))")
            }
            guard request.method == .GET || request.method == .HEAD else { return Self.notAllowed(request, "GET, HEAD") }
            return file(element: parts[0], relative: parts.dropFirst().joined(separator: "/"), request: request)
        }
        return nil
    }

    static func notAllowed(_ request: ControlRequest, _ allowed: String) -> ControlResponse {
        ControlRouter.error(
            .methodNotAllowed, "\(request.method.rawValue) not allowed on \(Echo.value(request.rawPath)): expected \(allowed)",
            headers: ["Allow": allowed])
    }

    func list(mount: String) -> ControlResponse {
        var recorders: [[String: Any]] = []
        var clips: [(time: String, id: Int, object: [String: Any])] = []
        for r in self.recorders {
            var o: [String: Any] = [
                "element": r.element, "directory": r.settings.directory, "pre": r.settings.pre, "post": r.settings.post,
            ]
            if case let fields as [String: [String: Any]] = r.stateFields()["clips"], let f = fields[r.element] { o.merge(f) { a, _ in a } }
            recorders.append(o)
            guard let index = r.index else { continue }
            for c in index.records {
                var object = ClipJSON.object(c)
                object["element"] = r.element
                object["url"] = mount + r.path(of: c.file)
                if let t = c.thumbnail { object["thumbUrl"] = mount + r.path(of: t) }
                clips.append((c.startTime, c.id, object))
            }
        }
        clips.sort { $0.time != $1.time ? $0.time > $1.time : $0.id > $1.id }
        return ControlRouter.json(.ok, ["recorders": recorders, "clips": clips.map(\.object)])
    }

    func trigger(_ body: Data, kind: String) -> ControlResponse {
        do throws(MQTTCommandRefusal) {
            return ControlRouter.json(.accepted, try Self.trigger(recorders, body: body, kind: kind))
        } catch {
            return ControlRouter.error(error.message.hasPrefix("no clip recorder") ? .notFound : .badRequest, error.message, field: error.field)
        }
    }

    /// Asks `recorders` (or the one `{"element": NAME}` names) for a clip; `{"clips": [{element, state, id...}]}`.
    static func trigger(_ recorders: [ClipsService], body: Data, kind: String) throws(MQTTCommandRefusal) -> [String: Any] {
        let name: String?
        do throws(JSONScalar.Problem) {
            let fields = body.isEmpty ? [] : try JSONScalar.object(body, expected: MQTTCommand.expectedClip, noun: "body")
            name = try MQTTCommand.clipElement(fields)
        } catch {
            throw MQTTCommandRefusal(error.message, field: error.field)
        }
        var chosen = recorders
        if let name {
            guard let r = recorders.first(where: { $0.element == name }) else {
                throw MQTTCommandRefusal(
                    "no clip recorder \(Echo.value(name)): expected one of \(recorders.map(\.element).joined(separator: ", "))", field: "element")
            }
            chosen = [r]
        }
        var out: [[String: Any]] = []
        for r in chosen {
            var o: [String: Any] = ["element": r.element]
            switch r.trigger(kind: kind) {
            case .opened(let c)?: o["state"] = "opened"; o.merge(Self.fields(c)) { a, _ in a }
            case .extended(let c)?: o["state"] = "extended"; o.merge(Self.fields(c)) { a, _ in a }
            case .waiting(let why)?: o["state"] = "waiting"; o["reason"] = why
            case nil: o["state"] = "waiting"; o["reason"] = "the run has not started"
            }
            out.append(o)
        }
        return ["trigger": kind, "clips": out]
    }

    static func fields(_ c: OpenClip) -> [String: Any] {
        ["id": c.id, "file": ClipRecord.fileName(c.id), "startPts": c.startShown, "endPts": c.end, "triggers": c.triggers.count, "notes": c.notes]
    }

    func delete(element: String, id idText: String) async -> ControlResponse {
        guard let r = recorders.first(where: { $0.element == element }), let index = r.index else {
            return ControlRouter.error(.notFound, "no clip recorder \(Echo.value(element))", field: "element")
        }
        guard let id = Int(idText), index.records.contains(where: { $0.id == id }) else {
            return ControlRouter.error(.notFound, "no clip \(Echo.value(idText)) in \(index.path)", field: "id")
        }
        let outcome = await GalleryWork.run { () -> Result<ClipRecord?, HostError> in
            do throws(HostError) { return .success(try index.remove(id: id)) } catch { return .failure(error) }
        }
        switch outcome {
        case nil: return ControlRouter.error(.serviceUnavailable, "busy: at most \(GalleryWork.limit) deletes and cards at once; try again")
        case .failure(let e)?: return ControlRouter.error(.internalServerError, e.message)
        case .success(nil)?: return ControlRouter.error(.notFound, "no clip \(id) in \(index.path)", field: "id")
        case .success(let record?)?:
            var o = ClipJSON.object(record)
            o["element"] = element
            return ControlRouter.json(.ok, ["clip": o])
        }
    }

    func file(element: String, relative: String, request: ControlRequest) -> ControlResponse {
        let notFound = ControlRouter.error(.notFound, "no clip file \(Echo.value(relative)) of \(Echo.value(element))")
        guard let r = recorders.first(where: { $0.element == element }), let index = r.index,
            index.records.contains(where: { $0.file == relative || $0.thumbnail == relative }),
            let realDir = FilePaths.realPath(index.directory), let real = Gallery.inside(FilePaths.join(index.directory, relative), realDirectory: realDir)
        else { return notFound }
        let video = relative.hasSuffix(".mp4")
        return RangeFile.response(
            path: real, request: request, contentType: video ? "video/mp4" : "image/jpeg",
            downloadName: video && request.query["download"] != nil ? FilePaths.fileName(of: relative) : nil)
    }
}

/// A clip record as clips.json writes it, as a JSON object.
enum ClipJSON {
    static func object(_ r: ClipRecord) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(r), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return ["id": r.id, "file": r.file]
        }
        return o
    }
}

extension ClipsService: ServesControlRoutes, ServesMQTTCommands {
    /// The first recorder of the session answers for all of them (`ClipsRoutes.recorders`); the others add nothing.
    public func controlRoutes(_ server: ControlRouteContext) -> any ControlRoutes {
        setURLPrefix("http://\(server.address.host):\(server.address.port)\(server.mount)")
        return ClipsRoutes(recorders: siblings.isEmpty ? [self] : siblings)
    }

    public var mqttCommands: [String] { siblings.first === self || siblings.isEmpty ? ["clip"] : [] }

    public func mqttCommand(_ name: String, payload: Data) throws(MQTTCommandRefusal) -> [String: Any] {
        try ClipsRoutes.trigger(siblings.isEmpty ? [self] : siblings, body: payload, kind: "mqtt")
    }
}
