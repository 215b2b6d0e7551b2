import Foundation
import GStreamerKit
import Host
import Stages

/// The HLS outputs of the session over the control server (`--http`): `GET /hls/index.m3u8` is the playlist of
/// the first `hlssink2`/`hlssink` (`Session.hlsOutputs`), `GET /hls/NAME/index.m3u8` the playlist of the sink
/// named NAME; `GET /hls/FILE` and `GET /hls/NAME/FILE` a segment the CURRENT playlist of that sink lists.
///
/// Nothing else of the directories is served: a file the playlist does not list (an older segment, the segment
/// being written, hlssink2's `.goutputstream-XXXXXX` temporary) is 404, and so is anything whose raw path
/// segment is not a plain name (`..`, `%2f`, backslashes: `Gallery.plainSegments`) or whose realpath leaves the
/// segment directory (a symlink). A segment deleted by `max-files` between the playlist and the request is 404.
///
/// The playlist trap (measured with strace on GStreamer 1.22): hlssink2 writes the playlist through
/// `g_file_replace`, which creates the file IN PLACE the first time (`O_CREAT|O_EXCL`: a reader may see it empty
/// or partly written) and afterwards writes a `.goutputstream-XXXXXX` temporary and renames it over the playlist
/// (atomic). It rewrites the playlist after a segment is closed, and deletes the segment `max-files` dropped only
/// after that rename. So a playlist is served only when it is complete (`HLSPlaylist.parse`: `#EXTM3U` first,
/// a newline last, a target duration, every `#EXTINF` followed by its URI line), otherwise 503 with `Retry-After: 1`; and only
/// when this run wrote it (modified after the server started): one left over from an earlier run, listing
/// that run's segments, is 503 too until the first segment of this run is closed.
///
/// Threads: runs on the connection's task; reads only `outputs` (plain values fixed when the session was built)
/// and the files themselves.
struct HLSRoutes: ControlRoutes {
    /// The session's HLS outputs (never empty: without one there are no HLS routes).
    let outputs: [HLSOutput]
    /// When the server started: an HLS playlist modified before is an earlier run's and is not served.
    let hlsSince: Date
    /// Told the name of each output whose playlist was served (`viewfinder_hls_playlist_requests_total`).
    var served: @Sendable (String) -> Void = { _ in }

    /// The answer to an `/hls/...` request, nil when `request` is not for `/hls`.
    func answer(_ request: ControlRequest) async -> ControlResponse? {
        let raw = request.rawPath
        guard raw == "/hls" || raw.hasPrefix("/hls/") else { return nil }
        guard let parts = Gallery.plainSegments(raw.dropFirst("/hls/".count)), parts.count == 1 || parts.count == 2 else {
            return ControlRouter.error(.notFound, "not found: \(Echo.value(raw)): expected /hls/index.m3u8, /hls/SEGMENT or /hls/NAME/...")
        }
        let output: HLSOutput
        if parts.count == 2 {
            guard let o = outputs.first(where: { $0.name == parts[0] }) else {
                return ControlRouter.error(
                    .notFound, "no HLS output \(Echo.value(parts[0])): expected one of \(outputs.map(\.name).joined(separator: ", "))")
            }
            output = o
        } else {
            output = outputs[0]
        }
        guard request.method == .GET else {
            return ControlRouter.error(
                .methodNotAllowed, "\(request.method.rawValue) not allowed on \(Echo.value(raw)): expected GET",
                headers: ["Allow": "GET"])
        }
        let file = parts[parts.count - 1]
        return file == "index.m3u8" ? playlist(of: output) : segment(file, of: output)
    }

    /// The current playlist of `output` when it is complete and written by this run.
    func playlist(of output: HLSOutput) -> ControlResponse {
        switch HLSPlaylist.current(output, since: hlsSince) {
        case .failure(let problem): return problem.response(output)
        case .success(let p):
            served(output.name)
            return ControlResponse(
                statusCode: .ok,
                headers: [
                    "Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "no-cache",
                    "X-Content-Type-Options": "nosniff",
                ],
                body: Data(p.text.utf8))
        }
    }

    /// Segment `name` of `output` when its current playlist lists it and it lies inside the segment directory.
    func segment(_ name: String, of output: HLSOutput) -> ControlResponse {
        let notFound = ControlRouter.error(.notFound, "no segment \(Echo.value(name)) in the current playlist of \(output.name)")
        guard case .success(let p) = HLSPlaylist.current(output, since: hlsSince), p.segments.contains(name),
            let realDirectory = FilePaths.realPath(output.segmentDirectory),
            let real = Gallery.inside(FilePaths.join(output.segmentDirectory, name), realDirectory: realDirectory),
            // The resolved path: a symlink swapped in after the check is not followed. Deleted meanwhile: nil.
            let data = FileManager.default.contents(atPath: real)
        else { return notFound }
        return ControlResponse(
            statusCode: .ok,
            headers: [
                "Content-Type": HLSPlaylist.contentType(ofSegment: name), "Cache-Control": "no-cache",
                "X-Content-Type-Options": "nosniff",
            ],
            body: data)
    }

    /// The `hls: URL` lines printed next to the page's URL: the first HLS output at `/hls/index.m3u8`, every
    /// other by its element name at `/hls/NAME/index.m3u8` (a name the routes cannot carry is said so).
    func startLines(serverURL server: String) -> [String] {
        outputs.enumerated().map { i, o in
            let plain = o.name.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
            }
            if i == 0 { return "hls: \(server)hls/index.m3u8 (\(o.name), \(o.playlist))" }
            guard plain else { return "hls: \(o.name) not served: its name has characters other than A-Z a-z 0-9 . _ -" }
            return "hls: \(server)hls/\(o.name)/index.m3u8 (\(o.playlist))"
        }
    }
}

extension HLSOutputsService: ServesControlRoutes {
    public func controlRoutes(_ server: ControlRouteContext) -> any ControlRoutes {
        HLSRoutes(outputs: outputs, hlsSince: server.started, served: { [weak self] in self?.playlistServed($0) })
    }
}

/// Reading and checking an HLS playlist (pure functions but for the file read).
enum HLSPlaylist {
    /// A complete playlist: its text and the segment file names it lists (plain names only, in order).
    struct Parsed: Equatable {
        var text: String
        var segments: [String]
    }

    /// Why a playlist is not served now.
    enum Problem: Error, Equatable {
        /// Not there yet (the sink writes it when its first segment is closed).
        case missing
        /// There, but older than this run: an earlier run's.
        case stale
        /// Empty or cut short (the first write is in place).
        case incomplete(String)

        /// 503 with `Retry-After: 1`: each is over within a segment's duration.
        func response(_ output: HLSOutput) -> ControlResponse {
            let why: String
            switch self {
            case .missing: why = "not written yet (after the first segment)"
            case .stale: why = "from an earlier run, not rewritten by this one yet (after the first segment)"
            case .incomplete(let detail): why = "being written (\(detail))"
            }
            return ControlRouter.error(
                .serviceUnavailable, "playlist of \(output.name) (\(output.playlist)) \(why): try again",
                headers: ["Retry-After": "1"])
        }
    }

    /// The playlist of `output` as it is on disk now, refused when missing, modified before `since`, or incomplete.
    static func current(_ output: HLSOutput, since: Date) -> Result<Parsed, Problem> {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: output.playlist),
            let data = FileManager.default.contents(atPath: output.playlist)
        else { return .failure(.missing) }
        // File times come from the kernel's coarse clock (a few ms behind): a little slack.
        if let modified = attributes[.modificationDate] as? Date, modified < since.addingTimeInterval(-0.05) {
            return .failure(.stale)
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// The playlist when complete: `#EXTM3U` on the first line, a newline at the end, `#EXT-X-TARGETDURATION`, every
    /// `#EXTINF` followed by a URI line. The segments are the URI lines that are plain file names (`A-Z a-z 0-9 . _ -`); URIs with a
    /// `playlist-root` prefix or a path are not ours to serve and are left out.
    static func parse(_ text: String) -> Result<Parsed, Problem> {
        guard !text.isEmpty else { return .failure(.incomplete("empty")) }
        // Lines end with LF or CRLF (one Character in Swift: split on `isNewline`, not on "\n").
        let lines = text.split(whereSeparator: \.isNewline)
        guard lines.first == "#EXTM3U" else {
            return .failure(.incomplete("no #EXTM3U first line"))
        }
        guard text.last?.isNewline == true else { return .failure(.incomplete("no newline at the end")) }
        guard lines.contains(where: { $0.hasPrefix("#EXT-X-TARGETDURATION:") }) else {
            return .failure(.incomplete("no #EXT-X-TARGETDURATION"))
        }
        var segments: [String] = []
        var awaitingURI = false
        for line in lines where !line.isEmpty {
            if line.hasPrefix("#") {
                if awaitingURI && line.hasPrefix("#EXTINF:") { return .failure(.incomplete("#EXTINF without its URI")) }
                if line.hasPrefix("#EXTINF:") { awaitingURI = true }
                continue
            }
            awaitingURI = false
            if let parts = Gallery.plainSegments(line), parts.count == 1 { segments.append(parts[0]) }
        }
        guard !awaitingURI else { return .failure(.incomplete("#EXTINF without its URI")) }
        return .success(Parsed(text: text, segments: segments))
    }

    /// `video/mp2t` for MPEG-TS segments (`.ts`), `video/mp4` for fragmented MP4 ones, else octet-stream.
    static func contentType(ofSegment name: String) -> String {
        let lower = name.lowercased()
        if lower.hasSuffix(".ts") { return "video/mp2t" }
        if lower.hasSuffix(".m4s") || lower.hasSuffix(".mp4") { return "video/mp4" }
        return "application/octet-stream"
    }
}
