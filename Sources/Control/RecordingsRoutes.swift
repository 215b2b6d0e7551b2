import Foundation
import GStreamerKit
import Host
import Stages

/// The recordings of the session over the control server (`--http`), beside the photo gallery:
///
/// - `GET /api/recordings`: every `recordings` element (name, directory, format, limits, bytes on disk now, the
///   segment being written) with its segments newest first, each with its `url`;
/// - `GET /recordings/{name}/{file}` (and `HEAD`): a segment its index lists, with byte ranges (`RangeFile`: 206,
///   416, `Accept-Ranges`); `?download` adds `Content-Disposition: attachment`;
/// - `DELETE /api/recordings/{name}/{file}`: deletes a listed segment, never the one being written (409), announced
///   as retention's deletions are (`viewfinder/recordings, reason=request`). No state changes by GET.
///
/// Paths are read raw (`request.rawPath`): each segment after the route must be a plain name
/// (`Gallery.plainSegments`: `..`, `%2f`, backslashes are 404), the file must be one the recorder lists, and its
/// realpath must lie inside the directory's realpath (`Gallery.inside`: a symlink out of it is 404). Nothing else of
/// the directory is served: not `recordings.json`, not a clip or photo lying beside the segments.
///
/// Threads: the connection's task; deletes run on `GalleryWork`'s queue (disk syncs off the cooperative pool).
struct RecordingsRoutes: ControlRoutes {
    let service: RecordingsService

    func answer(_ request: ControlRequest) async -> ControlResponse? {
        let raw = request.rawPath
        if raw == "/api/recordings" {
            return request.method == .GET ? list(mount: request.mount) : Self.notAllowed(request, allow: "GET")
        }
        if raw.hasPrefix("/api/recordings/") {
            guard let parts = Gallery.plainSegments(raw.dropFirst("/api/recordings/".count)), parts.count == 2 else {
                return ControlRouter.error(.notFound, "no route \(Echo.value(raw)): expected /api/recordings/NAME/FILE")
            }
            guard request.method == .DELETE else { return Self.notAllowed(request, allow: "DELETE") }
            return await delete(name: parts[0], file: parts[1])
        }
        if raw.hasPrefix("/recordings/") {
            guard let parts = Gallery.plainSegments(raw.dropFirst("/recordings/".count)), parts.count == 2 else {
                return ControlRouter.error(.notFound, "not found: \(Echo.value(raw)): expected /recordings/NAME/FILE")
            }
            guard request.method == .GET || request.method == .HEAD else { return Self.notAllowed(request, allow: "GET, HEAD") }
            return file(name: parts[0], file: parts[1], request: request)
        }
        return nil
    }

    func startLines(serverURL: String) -> [String] { ["recordings: \(serverURL)api/recordings"] }

    // MARK: routes

    /// Every recordings element and its segments, newest first.
    func list(mount: String) -> ControlResponse {
        let elements = service.recorders.map { r -> [String: Any] in
            let (segments, open) = r.snapshot
            let p = r.plan
            var o: [String: Any] = [
                "name": p.name, "directory": p.directory, "format": p.format.rawValue, "segment": p.segment, "maxAge": p.maxAge,
                "maxSize": p.maxSize, "maxAgeText": RecordingLimits.durationText(p.maxAge),
                "maxSizeText": RecordingLimits.sizeText(p.maxSize),
                "totalBytes": segments.reduce(Int64(0)) { $0 + $1.bytes }, "count": segments.count,
            ]
            if let open { o["open"] = open }
            o["segments"] = segments.reversed().map { s -> [String: Any] in
                var j: [String: Any] = ["file": s.file, "bytes": s.bytes, "open": s.open, "url": "\(mount)/recordings/\(p.name)/\(s.file)"]
                if let v = s.start { j["start"] = v }
                if let v = s.end { j["end"] = v }
                if let v = s.duration { j["duration"] = v }
                if let v = s.problem { j["problem"] = v }
                return j
            }
            return o
        }
        return ControlRouter.json(.ok, ["recordings": elements])
    }

    /// A listed segment of `name`, when it really lies inside its directory, with byte ranges.
    func file(name: String, file: String, request: ControlRequest) -> ControlResponse {
        let notFound = ControlRouter.error(.notFound, "no recording \(Echo.value(file)) of \(Echo.value(name))")
        guard let r = service.recorder(named: name), r.snapshot.segments.contains(where: { $0.file == file }),
            let realDirectory = FilePaths.realPath(r.plan.directory),
            let real = Gallery.inside(FilePaths.join(r.plan.directory, file), realDirectory: realDirectory)
        else { return notFound }
        let type = RecordingFormat(fileName: file)?.contentType ?? "application/octet-stream"
        // The resolved path: a symlink swapped in after the check is not followed.
        return RangeFile.response(
            path: real, request: request, contentType: type, downloadName: request.query["download"] != nil ? file : nil)
    }

    /// Deletes a listed segment that is not being written.
    func delete(name: String, file: String) async -> ControlResponse {
        guard let r = service.recorder(named: name) else {
            let names = service.recorders.map(\.plan.name).joined(separator: ", ")
            return ControlRouter.error(.notFound, "no recordings element \(Echo.value(name)): expected one of \(names)", field: "name")
        }
        let outcome = await GalleryWork.run { r.delete(file: file) }
        switch outcome {
        case nil: return ControlRouter.error(.serviceUnavailable, "busy: at most \(GalleryWork.limit) deletes and cards at once; try again")
        case .success(let segment)?:
            return ControlRouter.json(.ok, ["name": name, "deleted": segment.file, "bytes": segment.bytes])
        case .failure(.notListed)?:
            return ControlRouter.error(.notFound, "no recording \(Echo.value(file)) in \(r.plan.directory)/recordings.json", field: "file")
        case .failure(.open)?:
            return ControlRouter.error(.conflict, "\(file) is being written: it can be deleted once closed", field: "file")
        case .failure(.failed(let reason))?:
            return ControlRouter.error(.internalServerError, "cannot delete \(file): \(reason)")
        }
    }

    static func notAllowed(_ request: ControlRequest, allow: String) -> ControlResponse {
        ControlRouter.error(
            .methodNotAllowed, "\(request.method.rawValue) not allowed on \(Echo.value(request.rawPath)): expected \(allow)",
            headers: ["Allow": allow])
    }
}

extension RecordingsService: ServesControlRoutes {
    public func controlRoutes(_ server: ControlRouteContext) -> any ControlRoutes { RecordingsRoutes(service: self) }
}
