import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization

/// The photo gallery of the control API: the photos of every capture stage of the session, their files,
/// their deletion and their share cards.
///
/// Routes: `GET /api/photos`, `GET /photos/{stage}/{file}`, `DELETE /api/photos/{stage}/{id}`,
/// `GET /api/photos/{stage}/{id}/card`.
///
/// Paths are read **raw** (`request.rawPath`, still percent-encoded): `request.path` is
/// percent-decoded, so `..%2f..%2fetc` would reach
/// us as `../../etc`. Every segment after the route must
/// be a plain name (`A-Z a-z 0-9 . _ -`, not `.` or `..`, not empty): `%`, backslashes, NUL and empty
/// segments are refused with 404 before anything is looked up. A file is served only when a record of
/// that directory's records.json names it (`file`, `thumbnail` or `full`), and only when its realpath
/// stays inside the directory's realpath (a symlink out of it is 404).
///
/// Threads: listing and serving run on the connection's task; deleting and rendering a card (disk
/// syncs, a GStreamer decode and encode) run on `GalleryWork.queue`, off the cooperative pool and off the
/// video threads, at most `GalleryWork.limit` jobs at once (503 beyond). A delete goes through the
/// capture stage's own open `PhotoIndex` (`PhotoIndex.opened`) so the next photo does not write it back.
extension ControlRouter {
    /// The answer to a gallery route, nil when `request` is for none of them.
    func gallery(_ request: ControlRequest) async -> ControlResponse? {
        let raw = request.rawPath
        let method = request.method
        func only(_ allowed: ControlMethod, _ answer: () async -> ControlResponse) async -> ControlResponse {
            guard method == allowed else {
                return Self.error(
                    .methodNotAllowed, "\(method.rawValue) not allowed on \(Echo.value(raw)): expected \(allowed.rawValue)",
                    headers: ["Allow": allowed.rawValue])
            }
            return await answer()
        }
        if raw == "/api/photos" { return await only(.GET) { photos(mount: request.mount) } }
        if raw.hasPrefix("/api/photos/") {
            guard let parts = Gallery.plainSegments(raw.dropFirst("/api/photos/".count)),
                parts.count == 2 || (parts.count == 3 && parts[2] == "card")
            else {
                return Self.error(.notFound, "no route \(Echo.value(raw)): expected /api/photos/STAGE/ID or /api/photos/STAGE/ID/card")
            }
            if parts.count == 3 { return await only(.GET) { await card(stage: parts[0], id: parts[1]) } }
            return await only(.DELETE) { await delete(stage: parts[0], id: parts[1]) }
        }
        if raw.hasPrefix("/photos/") {
            guard let parts = Gallery.plainSegments(raw.dropFirst("/photos/".count)), parts.count >= 2 else {
                return Self.error(.notFound, "not found: \(Echo.value(raw))")
            }
            return await only(.GET) { photoFile(stage: parts[0], relative: parts.dropFirst().joined(separator: "/")) }
        }
        return nil
    }

    // MARK: routes

    /// Every photo of every capture stage, newest first, with the URLs of its file, thumbnail and card (under
    /// `mount`: `/api/pipelines/NAME` in `serve`, empty for `launch`).
    func photos(mount: String = "") -> ControlResponse {
        var dirs: [[String: Any]] = []
        var list: [(time: String, id: Int, object: [String: Any])] = []
        for (stage, directory) in captureStages() {
            let records = Gallery.records(in: directory)
            dirs.append(["stage": stage, "directory": directory, "count": records?.count ?? 0, "index": records != nil])
            let realDir = FilePaths.realPath(directory)
            // The URL under which a path is served, when it would be (listed name, resolving inside).
            let url = { (path: String?) -> String? in
                guard let path, let realDir, let name = Gallery.servableName(path, directory: directory, realDirectory: realDir),
                    Gallery.inside(FilePaths.join(directory, name), realDirectory: realDir) != nil
                else { return nil }
                return "\(mount)/photos/\(stage)/\(name)"
            }
            for r in records ?? [] {
                var o = Gallery.object(r)
                o["stage"] = stage
                if let u = url(r.file) {
                    o["url"] = u
                    o["cardUrl"] = "\(mount)/api/photos/\(stage)/\(r.id)/card"
                }
                if let u = url(r.thumbnail) { o["thumbUrl"] = u }
                if let u = url(r.full) { o["fullUrl"] = u }
                list.append((r.time, r.id, o))
            }
        }
        list.sort { $0.time != $1.time ? $0.time > $1.time : $0.id > $1.id }
        return Self.json(.ok, ["directories": dirs, "photos": list.map(\.object)])
    }

    /// A file listed by `stage`'s records.json, when it really lies inside its directory.
    func photoFile(stage: String, relative: String) -> ControlResponse {
        let notFound = Self.error(.notFound, "no photo file \(Echo.value(relative)) in stage \(Echo.value(stage))")
        guard let directory = captureStages().first(where: { $0.name == stage })?.directory,
            let records = Gallery.records(in: directory), let realDir = FilePaths.realPath(directory)
        else { return notFound }
        let listed = records.contains { r in
            [r.file, r.thumbnail, r.full].contains { name in
                name.flatMap { Gallery.servableName($0, directory: directory, realDirectory: realDir) } == relative
            }
        }
        guard listed, let real = Gallery.inside(FilePaths.join(directory, relative), realDirectory: realDir) else { return notFound }
        // Read the resolved path: a symlink swapped in after the check is not followed.
        guard let data = FileManager.default.contents(atPath: real) else { return notFound }
        let type = real.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg"
        return ControlResponse(
            statusCode: .ok, headers: ["Content-Type": type, "Cache-Control": "no-cache"], body: data)
    }

    /// Removes a photo, its thumbnail and full file and its record, through the stage's live index.
    func delete(stage: String, id idText: String) async -> ControlResponse {
        guard let directory = captureStages().first(where: { $0.name == stage })?.directory else {
            return Self.error(.notFound, "no capture stage \(Echo.value(stage)): expected one of \(stageList())", field: "stage")
        }
        guard let id = Int(idText), Gallery.records(in: directory)?.contains(where: { $0.id == id }) == true else {
            return Self.error(.notFound, "no photo \(Echo.value(idText)) in \(directory)/records.json", field: "id")
        }
        let outcome = await GalleryWork.run { () -> Result<PhotoIndex.Removal, StageError> in
            do throws(StageError) {
                return .success(try PhotoIndex.opened(directory: directory).remove(id: id))
            } catch { return .failure(error) }
        }
        switch outcome {
        case nil: return Self.error(.serviceUnavailable, "busy: at most \(GalleryWork.limit) deletes and cards at once; try again")
        case .failure(let e)?:
            // Removed meanwhile (another delete): as unknown; anything else is the disk's fault.
            return e.domain == .usage ? Self.error(.notFound, e.message, field: "id") : Self.error(.internalServerError, e.message)
        case .success(let removal)?:
            var photo = Gallery.object(removal.record)
            photo["stage"] = stage
            return Self.json(.ok, ["stage": stage, "photo": photo, "removedFiles": removal.removed, "warnings": removal.warnings])
        }
    }

    /// The photo's 1080x1440 share card as a JPEG download.
    func card(stage: String, id idText: String) async -> ControlResponse {
        guard let directory = captureStages().first(where: { $0.name == stage })?.directory else {
            return Self.error(.notFound, "no capture stage \(Echo.value(stage)): expected one of \(stageList())", field: "stage")
        }
        guard let id = Int(idText), let record = Gallery.records(in: directory)?.first(where: { $0.id == id }) else {
            return Self.error(.notFound, "no photo \(Echo.value(idText)) in \(directory)/records.json", field: "id")
        }
        guard let realDir = FilePaths.realPath(directory),
            let name = Gallery.servableName(record.file, directory: directory, realDirectory: realDir),
            let real = Gallery.inside(FilePaths.join(directory, name), realDirectory: realDir)
        else {
            return Self.error(.notFound, "photo \(id) has no file inside \(directory)", field: "id")
        }
        let content = ShareCard.content(record: record, photo: real)
        let outcome = await GalleryWork.run { () -> Result<Data, HostError> in
            do throws(HostError) { return .success(try ShareCard.jpeg(content)) } catch { return .failure(error) }
        }
        switch outcome {
        case nil: return Self.error(.serviceUnavailable, "busy: at most \(GalleryWork.limit) deletes and cards at once; try again")
        case .failure(let e)?: return Self.error(.internalServerError, e.message)
        case .success(let data)?:
            let base = FilePaths.fileName(of: name).split(separator: ".").dropLast().joined(separator: ".")
            return ControlResponse(
                statusCode: .ok,
                headers: [
                    "Content-Type": "image/jpeg", "Cache-Control": "no-cache",
                    "Content-Disposition": "attachment; filename=\"\(base)_card.jpg\"",
                ],
                body: data)
        }
    }

    // MARK: helpers

    /// The session's capture stages with their current `directory`.
    func captureStages() -> [(name: String, directory: String)] {
        session.stageInstances.filter { $0.kind == CaptureStage.descriptor.kind }.compactMap { s in
            guard case .string(let d)? = session.propertyValues(ofStage: s.name)?["directory"] else { return nil }
            return (s.name, d)
        }
    }

    private func stageList() -> String {
        let names = captureStages().map(\.name)
        return names.isEmpty ? "(none: the session has no capture stage)" : names.joined(separator: ", ")
    }
}

/// Path and record checks of the gallery (pure functions, no state).
enum Gallery {
    /// The `/`-separated plain names of a raw URL path, or nil when any is empty, `.`, `..` or holds a
    /// character outside `A-Z a-z 0-9 . _ -` (so `%`-escapes, backslashes, NUL, spaces are all refused).
    static func plainSegments(_ raw: Substring) -> [String]? {
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        for p in parts {
            guard !p.isEmpty, p != ".", p != "..",
                p.utf8.allSatisfy({ c in
                    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
                })
            else { return nil }
        }
        return parts.map(String.init)
    }

    /// The name under which a record's path is served: a relative path of plain names as it is, an
    /// absolute one lying (lexically) inside the directory as the rest of it; nil for anything else
    /// (a user's branch writing elsewhere, `..`, backslashes).
    static func servableName(_ path: String, directory: String, realDirectory: String?) -> String? {
        guard path.hasPrefix("/") else { return plainSegments(Substring(path)) != nil ? path : nil }
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = directory.hasPrefix("/") ? directory : FilePaths.join(cwd, directory)
        for prefix in [realDirectory, (absolute as NSString).standardizingPath].compactMap({ $0 }) {
            let p = prefix.hasSuffix("/") ? prefix : prefix + "/"
            if path.hasPrefix(p) {
                let rest = String(path.dropFirst(p.count))
                return plainSegments(Substring(rest)) != nil ? rest : nil
            }
        }
        return nil
    }

    /// The realpath of `path` when it is a regular file resolving inside `realDirectory`, else nil.
    static func inside(_ path: String, realDirectory: String) -> String? {
        guard let real = FilePaths.realPath(path), real.hasPrefix(realDirectory.hasSuffix("/") ? realDirectory : realDirectory + "/")
        else { return nil }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDir), !isDir.boolValue else { return nil }
        return real
    }

    /// The records of `directory`: the open index's (a running capture stage's) or records.json's.
    static func records(in directory: String) -> [PhotoRecord]? {
        PhotoIndex.live(directory: directory)?.records ?? PhotoIndex.load(directory: directory)
    }

    /// A record as records.json writes it, as a JSON object.
    static func object(_ r: PhotoRecord) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(r), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return ["id": r.id, "file": r.file]
        }
        return o
    }
}

/// Where deletes and cards run: one serial queue off the cooperative pool, at most `limit` jobs queued
/// or running (a burst of requests gets 503 rather than a growing queue).
enum GalleryWork {
    /// Jobs at once (running + waiting).
    static let limit = 4
    private static let queue = DispatchQueue(label: "vf-control-gallery")
    private static let inFlight = Atomic<Int>(0)

    /// Runs `job` on the queue and gives its result; nil when `limit` jobs are already in hand.
    static func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T? {
        guard inFlight.add(1, ordering: .relaxed).newValue <= limit else {
            inFlight.subtract(1, ordering: .relaxed)
            return nil
        }
        return await withCheckedContinuation { (c: CheckedContinuation<T?, Never>) in
            queue.async {
                let result = job()
                inFlight.subtract(1, ordering: .relaxed)
                c.resume(returning: result)
            }
        }
    }
}
