import Foundation
import TestSupport
import Testing

/// The `/hls` routes through the real binary (`viewfinder run pipelines/hls.pipeline --http`) and real clients
/// (ffprobe over HTTP, curl): the playlist and every segment it lists, and nothing else of the directory.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct HLSRoutesTests {
    /// `viewfinder run pipelines/hls.pipeline --http 127.0.0.1:PORT` in a fresh directory holding out/hls, with the
    /// fastest encoder preset and `sets`; with `light`, `viewfinder launch` of the same graph at 320x240 with 1 s
    /// segments instead (the tests of refused paths need segments, not the shipped file's 720p).
    static func start(
        light: Bool = false, sets: [String] = [], extra: [String] = [], before: (URL) throws -> Void = { _ in }
    ) throws -> (ControlTools.Running, URL) {
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out/hls"), withIntermediateDirectories: true)
        try before(d.appendingPathComponent("out/hls"))
        let port = ControlTools.freePort()
        var args: [String]
        if light {
            args = [
                "launch", "--http", "127.0.0.1:\(port)",
                "videotestsrc pattern=ball is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! compose ! videoconvert "
                    + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse "
                    + "! hlssink2 location=out/hls/segment%05d.ts playlist-location=out/hls/index.m3u8 target-duration=1 max-files=10",
            ]
        } else {
            args = [
                "run", Tools.root.appendingPathComponent("pipelines/hls.pipeline").path, "--http", "127.0.0.1:\(port)",
                "--set", "x264enc.speed-preset=ultrafast",
            ]
        }
        for set in sets { args += ["--set", set] }
        args += extra
        let r = try ControlTools.Running(args, port: port, cwd: d)
        #expect(r.waitListening(), "not listening: \(r.stderr)")
        return (r, d.appendingPathComponent("out/hls"))
    }

    /// Polls the served playlist until it lists at least `count` segments; the playlist text, nil after `timeout`.
    static func waitForSegments(_ r: ControlTools.Running, count: Int, timeout: Double = 30) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let a = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8")
            if a.status == 200 && segments(a.body).count >= count { return a.body }
            usleep(200_000)
        }
        return nil
    }

    /// The URI lines of a playlist.
    static func segments(_ playlist: String) -> [String] {
        playlist.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The headers of a `curl -i` answer, names lower-cased.
    static func headers(_ a: ControlTools.Answer) -> [String: String] {
        var h: [String: String] = [:]
        for line in a.body.components(separatedBy: "\r\n").prefix(while: { !$0.isEmpty }).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            h[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return h
    }

    /// The response headers of a GET (curl -D), names lower-cased, and the status.
    static func head(_ url: String) throws -> (status: Int, headers: [String: String]) {
        let c = try Tools.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url])
        let lines = c.out.components(separatedBy: "\r\n")
        var h: [String: String] = [:]
        for line in lines.prefix(while: { !$0.isEmpty }).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            h[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (Int(lines.last ?? "") ?? -1, h)
    }

    /// Stops the run through the API and waits for its end.
    static func stop(_ r: ControlTools.Running) {
        _ = try? ControlTools.curl("POST", "\(r.base)/api/stop")
        _ = r.finish(timeout: 15)
    }

    /// ffprobe opens the served playlist, follows it from its first segment and reads every segment it lists
    /// (its own log names each URL it opened): as many frames as the segments hold, a keyframe opening each.
    /// Each segment URL, probed on its own, starts with an I frame and lasts at most the target duration (+0.5 s);
    /// the bytes served are the file's.
    @Test func ffprobeReadsThePlaylistAndEverySegmentOverHTTP() throws {
        // The whole run in the playlist and on disk (the shipped file lists 5 and keeps 10): ffprobe takes its time.
        // --queue lossless: on a starved machine the default (leaky when live) drops a run of frames, and one that
        // spans a cut lengthens that segment (measured: 2.9 s; hlssink2 then raises EXT-X-TARGETDURATION to 3).
        let (r, dir) = try Self.start(sets: ["hlssink2.playlist-length=0", "hlssink2.max-files=0"], extra: ["--queue", "lossless"])
        defer { Self.stop(r) }
        #expect(r.stderr.contains("hls: \(r.base)/hls/index.m3u8 (hlssink2"), "\(r.stderr)")
        let playlist = try #require(try Self.waitForSegments(r, count: 3), "no 3 segments: \(r.stderr)")
        let lines = playlist.split(separator: "\n").map(String.init)
        #expect(lines.contains("#EXT-X-TARGETDURATION:2"), "\(playlist)")
        let durations = lines.filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).prefix { $0 != "," }) }
        let listed = Self.segments(playlist)
        #expect(durations.count == listed.count && durations.allSatisfy { $0 <= 2.5 }, "\(durations)")
        // What the playlist promises (EXTINF rounded <= EXT-X-TARGETDURATION) holds in any case.
        let target = lines.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }.flatMap { Double($0.dropFirst(22)) } ?? 0
        #expect(durations.allSatisfy { $0.rounded() <= target }, "\(durations) against \(target)")
        let frames = Int((durations.reduce(0, +) * 30).rounded())

        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            [
                "-v", "verbose", "-live_start_index", "0", "-select_streams", "v:0", "-read_intervals", "%+#\(frames)",
                "-show_entries", "frame=key_frame,pict_type", "-of", "csv=p=0", "\(r.base)/hls/index.m3u8",
            ], timeout: 40)
        #expect(probe.code == 0, "\(probe.err.suffix(2000))")
        for name in listed {
            #expect(probe.err.contains("Opening '\(r.base)/hls/\(name)' for reading"), "\(name) not read: \(probe.err.suffix(3000))")
        }
        let read = probe.out.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(read.count == frames, "read \(read.count) frames of \(frames)")
        #expect(read.first == ["1", "I"], "\(read.prefix(3))")
        #expect(read.filter { $0.first == "1" }.count >= listed.count, "keyframes: \(read.filter { $0.first == "1" }.count)")

        for name in listed {
            let url = "\(r.base)/hls/\(name)"
            let first = try Tools.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v", "-read_intervals", "%+#1", "-show_entries", "frame=key_frame,pict_type",
                    "-of", "csv=p=0", url,
                ])
            let fields = first.out.split(separator: "\n").first.map { $0.split(separator: ",").map(String.init) } ?? []
            #expect(first.code == 0 && fields.prefix(2) == ["1", "I"], "\(name): \(first.out) \(first.err)")
            // No Range support, so ffprobe cannot seek to the end for a duration over HTTP: count the frames (30 fps).
            let count = try Tools.ffprobeFrames(url)
            #expect(count > 0 && count <= 75, "\(name): \(count) frames")
            let served = try Self.head(url)
            #expect(served.status == 200)
            #expect(served.headers["content-type"] == "video/mp2t", "\(served.headers)")
        }
        // Byte for byte the file on disk (curl to a file, not through a String).
        let name = try #require(listed.first)
        let copy = Tools.tempDir().appendingPathComponent(name)
        let c = try Tools.run("/usr/bin/curl", ["-s", "-o", copy.path, "-w", "%{http_code}", "\(r.base)/hls/\(name)"])
        #expect(c.out == "200")
        #expect(
            FileManager.default.contents(atPath: copy.path) == FileManager.default.contents(atPath: dir.appendingPathComponent(name).path))

        let head = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8", includeHeaders: true)
        #expect(Self.headers(head)["content-type"] == "application/vnd.apple.mpegurl", "\(Self.headers(head))")
        #expect(Self.headers(head)["cache-control"] == "no-cache", "\(Self.headers(head))")
        // By element name too, with the same segments.
        let named = try ControlTools.curl("GET", "\(r.base)/hls/hlssink2-0/index.m3u8")
        #expect(named.status == 200 && named.body.hasPrefix("#EXTM3U\n"), "\(named.status) \(named.body)")
        #expect(try Self.head("\(r.base)/hls/hlssink2-0/\(name)").status == 200)
    }

    /// A segment that slid out of the playlist (still on disk) and one `max-files` deleted are 404, and the run goes on.
    @Test func segmentsNoLongerListedOrDeletedAreNotFound() throws {
        let (r, dir) = try Self.start(light: true, sets: ["hlssink2.playlist-length=2", "hlssink2.max-files=3"])
        defer { Self.stop(r) }
        let deadline = Date().addingTimeInterval(40)
        var playlist = ""
        while Date() < deadline && !playlist.contains("segment00004.ts") {
            playlist = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8").body
            usleep(200_000)
        }
        #expect(playlist.contains("segment00004.ts"), "\(playlist) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("segment00000.ts").path))
        #expect(try Self.head("\(r.base)/hls/segment00000.ts").status == 404)
        let unlisted = Tools.files(in: dir, suffix: ".ts").filter { !Self.segments(playlist).contains($0) }
        for name in unlisted where name < "segment00004.ts" {
            #expect(try Self.head("\(r.base)/hls/\(name)").status == 404, "\(name)")
        }
        let current = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8").body
        for name in Self.segments(current) { #expect(try Self.head("\(r.base)/hls/\(name)").status == 200, "\(name)") }
    }

    /// Only what the current playlist lists: a file put in the directory, the segment being written, traversals
    /// (raw and encoded), a listed segment swapped for a symlink out of the directory and an unknown sink are all 404;
    /// any method but GET is 405 with `Allow: GET`.
    @Test func refusesPathsThePlaylistDoesNotListAndOtherMethods() throws {
        let (r, dir) = try Self.start(light: true, sets: ["hlssink2.playlist-length=0"])
        defer { Self.stop(r) }
        let playlist = try #require(try Self.waitForSegments(r, count: 2), "no 2 segments: \(r.stderr)")
        let listed = Self.segments(playlist)
        try Data("not a segment".utf8).write(to: dir.appendingPathComponent("extra.ts"))
        #expect(try ControlTools.curl("GET", "\(r.base)/hls/extra.ts").status == 404)
        // The segment being written: on disk, not listed yet.
        let onDisk = Tools.files(in: dir, suffix: ".ts").filter { $0 != "extra.ts" && !listed.contains($0) }
        for name in onDisk {
            let status = try Self.head("\(r.base)/hls/\(name)").status
            // Closed and listed meanwhile (a new playlist every second): then 200 is right.
            let now = Self.segments(try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8").body)
            if !now.contains(name) { #expect(status == 404, "\(name)") }
        }
        for path in [
            "/hls/../hls.pipeline", "/hls/..%2f..%2fetc%2fpasswd", "/hls/%2e%2e/index.m3u8", "/hls/x/../../etc/passwd",
            "/hls//etc/passwd", "/hls/a%5c..%5cindex.m3u8", "/hls/nosuchsink/index.m3u8", "/hls/hlssink2-0/a/b",
        ] {
            let a = try Self.curlRaw(r.base + path)
            #expect(a == 404, "\(path): \(a)")
        }
        // A listed segment swapped for a symlink to a file outside: not followed.
        let victim = try #require(listed.first)
        let secret = Tools.tempDir().appendingPathComponent("secret.ts")
        try Data("secret".utf8).write(to: secret)
        try FileManager.default.removeItem(at: dir.appendingPathComponent(victim))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(victim).path, withDestinationPath: secret.path)
        let swapped = try ControlTools.curl("GET", "\(r.base)/hls/\(victim)")
        #expect(swapped.status == 404 && !swapped.body.contains("secret"), "\(swapped.status) \(swapped.body)")

        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let a = try ControlTools.curl(method, "\(r.base)/hls/index.m3u8", includeHeaders: true)
            #expect(a.status == 405, "\(method): \(a.status)")
            #expect(Self.headers(a)["allow"] == "GET", "\(Self.headers(a))")
        }
        #expect(try ControlTools.curl("POST", "\(r.base)/hls/\(listed[listed.count - 1])").status == 405)
        // Another origin is refused as on every route.
        #expect(try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8", headers: ["Origin: http://evil.example"]).status == 403)
    }

    /// A playlist left by an earlier run (listing that run's segments) is not served until this run rewrites it:
    /// 503 with `Retry-After`, and its segments are 404; then this run's playlist is served.
    @Test func aPlaylistFromAnEarlierRunIsNotServed() throws {
        let old = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nold00000.ts\n#EXT-X-ENDLIST\n"
        let (r, _) = try Self.start(light: true) { dir in
            try Data(old.utf8).write(to: dir.appendingPathComponent("index.m3u8"))
            try Data("old".utf8).write(to: dir.appendingPathComponent("old00000.ts"))
            let past = Date().addingTimeInterval(-60)
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: dir.appendingPathComponent("index.m3u8").path)
        }
        defer { Self.stop(r) }
        let early = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8", includeHeaders: true)
        #expect(early.status == 503, "\(early.body)")
        #expect(Self.headers(early)["retry-after"] == "1", "\(Self.headers(early))")
        #expect(early.body.contains("from an earlier run"), "\(early.body)")
        #expect(try ControlTools.curl("GET", "\(r.base)/hls/old00000.ts").status == 404)
        let fresh = try #require(try Self.waitForSegments(r, count: 1), "\(r.stderr)")
        #expect(!fresh.contains("old00000.ts"), "\(fresh)")
    }

    /// Two sinks: the first (by segment, then name) at /hls/index.m3u8, each at /hls/NAME/...; each serves only its own
    /// playlist's segments from its own directory; one `hls:` line each at start.
    @Test func everySinkByItsName() throws {
        let d = Tools.tempDir()
        for sub in ["out/one", "out/two"] {
            try FileManager.default.createDirectory(at: d.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let port = ControlTools.freePort()
        let description =
            "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! x264enc tune=zerolatency speed-preset=ultrafast "
            + "key-int-max=30 ! h264parse ! tee name=t t. ! queue ! hlssink2 name=one location=out/one/a%05d.ts "
            + "playlist-location=out/one/a.m3u8 target-duration=1 t. ! queue ! hlssink2 name=two location=out/two/b%05d.ts "
            + "playlist-location=out/two/b.m3u8 target-duration=1"
        let r = try ControlTools.Running(["launch", "--http", "127.0.0.1:\(port)", description], port: port, cwd: d)
        defer { Self.stop(r) }
        #expect(r.waitListening(), "not listening: \(r.stderr)")
        #expect(r.stderr.contains("hls: \(r.base)/hls/index.m3u8 (one, \(d.path)/out/one/a.m3u8)"), "\(r.stderr)")
        #expect(r.stderr.contains("hls: \(r.base)/hls/two/index.m3u8 (\(d.path)/out/two/b.m3u8)"), "\(r.stderr)")
        _ = try #require(try Self.waitForSegments(r, count: 1), "\(r.stderr)")
        let deadline = Date().addingTimeInterval(20)
        var two = ""
        while Date() < deadline && Self.segments(two).isEmpty {
            two = try ControlTools.curl("GET", "\(r.base)/hls/two/index.m3u8").body
            usleep(200_000)
        }
        let b = try #require(Self.segments(two).first, "\(two)")
        #expect(b.hasPrefix("b"), "\(two)")
        #expect(try Self.head("\(r.base)/hls/two/\(b)").status == 200)
        #expect(try Self.head("\(r.base)/hls/\(b)").status == 404)
        #expect(try Self.head("\(r.base)/hls/one/\(b)").status == 404)
        #expect(try Self.head("\(r.base)/hls/one/a00000.ts").status == 200)
        let one = try ControlTools.curl("GET", "\(r.base)/hls/one/index.m3u8")
        #expect(one.status == 200 && Self.segments(one.body).allSatisfy { $0.hasPrefix("a") }, "\(one.body)")

        // `/metrics` counts each sink's playlists served apart.
        func served(_ sink: String) throws -> Double? {
            let text = try ControlTools.curl("GET", "\(r.base)/metrics").body
            return MetricsReportTests.samples(text)["viewfinder_hls_playlist_requests_total{pipeline=\"main\",output=\"\(sink)\"}"]
        }
        let before = (try served("one") ?? 0, try served("two") ?? 0)
        #expect(before.0 >= 1 && before.1 >= 1, "\(before)")
        #expect(try ControlTools.curl("GET", "\(r.base)/hls/two/index.m3u8").status == 200)
        #expect(try served("two") == before.1 + 1)
        #expect(try served("one") == before.0)
    }

    /// With `--token` the HLS routes want it as every route does (401 without); ffprobe given the header
    /// (`-headers`, which its HLS reader passes on to the segment requests) reads the stream.
    @Test func theTokenGuardsTheStreamAndFFprobeCanSendIt() throws {
        let (r, _) = try Self.start(light: true, extra: ["--token", "s3cret-hls"])
        defer { Self.stop(r) }
        #expect(try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8").status == 401)
        let auth = "Authorization: Bearer s3cret-hls"
        let deadline = Date().addingTimeInterval(30)
        var playlist = ""
        while Date() < deadline && Self.segments(playlist).count < 2 {
            playlist = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8", headers: [auth]).body
            usleep(200_000)
        }
        let first = try #require(Self.segments(playlist).first, "\(playlist)")
        #expect(try Self.head("\(r.base)/hls/\(first)").status == 401)
        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-headers", "\(auth)\r\n", "-live_start_index", "0", "-select_streams", "v:0", "-read_intervals", "%+#30",
                "-show_entries", "frame=key_frame", "-of", "csv=p=0", "\(r.base)/hls/index.m3u8",
            ], timeout: 30)
        #expect(probe.code == 0, "\(probe.err.suffix(1000))")
        #expect(probe.out.split(separator: "\n").count == 30, "\(probe.out.suffix(300)) \(probe.err.suffix(500))")
    }

    /// A run without an HLS sink has no /hls (404 naming the elements it would need); no `hls:` line is printed.
    @Test func noHLSOutputIsNotFound() throws {
        let r = try ControlTools.launch("videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! fakesink")
        defer { Self.stop(r) }
        let a = try ControlTools.curl("GET", "\(r.base)/hls/index.m3u8")
        #expect(a.status == 404)
        #expect((a.json["error"] as? String)?.contains("no hlssink2 or hlssink element") == true, "\(a.body)")
        #expect(!r.stderr.contains("hls: "), "\(r.stderr)")
    }

    /// The status of a GET sent with the path exactly as written (`--path-as-is`: no dot-segment folding by curl).
    static func curlRaw(_ url: String) throws -> Int {
        let c = try Tools.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--path-as-is", "--max-time", "10", url])
        return Int(c.out) ?? -1
    }
}
