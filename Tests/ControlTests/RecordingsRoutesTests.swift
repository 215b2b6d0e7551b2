import Foundation
import TestSupport
import Testing

/// The recordings routes through the real binary (`viewfinder launch --http` recording 1 s segments) and real
/// clients (curl, ffprobe over HTTP): the listing, Range requests, HEAD, what is never served, and deletes.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct RecordingsRoutesTests {
    /// One request with curl (`Tools.curl`: `--path-as-is`, HEAD with `-I`).
    static func fetch(_ url: String, method: String = "GET", headers: [String] = []) throws -> HTTPAnswer {
        try Tools.curl(url, method: method, headers: headers)
    }

    @Test func listsServesRangesAndDeletesButNeverTheOpenSegmentNorAnythingElse() throws {
        let d = Tools.tempDir()
        let rec = d.appendingPathComponent("rec")
        try FileManager.default.createDirectory(at: rec, withIntermediateDirectories: true)
        try Data("not a recording".utf8).write(to: rec.appendingPathComponent("clip.mp4"))
        try FileManager.default.createSymbolicLink(
            atPath: rec.appendingPathComponent("REC_00099.mp4").path, withDestinationPath: "/etc/passwd")
        // An earlier run's segment larger than what is answered from memory (sparse): streamed whole.
        let big = (64 << 20) + 1
        #expect(FileManager.default.createFile(atPath: rec.path + "/REC_00000.mp4", contents: nil))
        let bigFile = try FileHandle(forWritingTo: rec.appendingPathComponent("REC_00000.mp4"))
        try bigFile.truncate(atOffset: UInt64(big))
        try bigFile.close()
        let r = try ControlTools.launch(
            "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! x264enc key-int-max=15 tune=zerolatency "
                + "! h264parse ! recordings name=rec directory=\(rec.path) segment=1")
        defer { if r.process.isRunning { kill(r.process.processIdentifier, SIGKILL) } }
        let base = r.base
        #expect(r.stderr.contains("recordings: \(base)/api/recordings"), "\(r.stderr)")

        // Until three segments of this run are closed (five listed, the newest open).
        var listing: [String: Any] = [:]
        let limit = Date().addingTimeInterval(30)
        while Date() < limit {
            let l = try Self.fetch(base + "/api/recordings")
            listing = ((l.json["recordings"] as? [[String: Any]])?.first) ?? [:]
            if ((listing["segments"] as? [[String: Any]]) ?? []).count >= 5 { break }
            usleep(200_000)
        }
        let segments = try #require(listing["segments"] as? [[String: Any]])
        #expect(listing["name"] as? String == "rec" && listing["directory"] as? String == rec.path && listing["format"] as? String == "mp4")
        #expect(listing["maxSizeText"] as? String == "0" && listing["segment"] as? Int == 1)
        let files = segments.compactMap { $0["file"] as? String }
        #expect(files.count >= 5 && files == files.sorted().reversed() && files.last == "REC_00000.mp4", "newest first: \(files)")
        #expect(segments.first?["open"] as? Bool == true && listing["open"] as? String == files.first)
        #expect(!files.contains("REC_00099.mp4"), "a symlink is not a segment")
        let open = files[0], closed = files[1]
        let closedBytes = try #require(segments[1]["bytes"] as? Int)
        // The fields the page reads: a closed segment's start and end (ISO 8601) and duration.
        #expect((segments[1]["start"] as? String)?.hasPrefix("20") == true && (segments[1]["end"] as? String)?.hasPrefix("20") == true)
        #expect(abs((segments[1]["duration"] as? Double ?? 0) - 1) < 0.2, "\(segments[1])")
        #expect(segments[1]["url"] as? String == "/recordings/rec/\(closed)")

        // The whole file, a range, a suffix, an unsatisfiable range, HEAD.
        let whole = try Self.fetch(base + "/recordings/rec/\(closed)")
        #expect(whole.status == 200 && whole.body.count == closedBytes && whole.headers["content-type"] == "video/mp4")
        #expect(whole.headers["accept-ranges"] == "bytes")
        #expect(whole.body == (try Data(contentsOf: rec.appendingPathComponent(closed))))
        let part = try Self.fetch(base + "/recordings/rec/\(closed)", headers: ["Range: bytes=100-199"])
        #expect(part.status == 206 && part.headers["content-range"] == "bytes 100-199/\(closedBytes)" && part.body == whole.body[100..<200])
        let tail = try Self.fetch(base + "/recordings/rec/\(closed)", headers: ["Range: bytes=-16"])
        #expect(tail.status == 206 && tail.body == whole.body.suffix(16))
        let beyond = try Self.fetch(base + "/recordings/rec/\(closed)", headers: ["Range: bytes=\(closedBytes)-"])
        #expect(beyond.status == 416 && beyond.headers["content-range"] == "bytes */\(closedBytes)")
        let head = try Self.fetch(base + "/recordings/rec/\(closed)", method: "HEAD")
        #expect(head.status == 200 && head.headers["content-length"] == String(closedBytes) && head.received == 0, "\(head.headers)")
        let download = try Self.fetch(base + "/recordings/rec/\(closed)?download")
        #expect(download.headers["content-disposition"] == "attachment; filename=\"\(closed)\"")
        let whole64 = try Self.fetch(base + "/recordings/rec/REC_00000.mp4")
        #expect(whole64.status == 200 && whole64.received == big && whole64.headers["content-length"] == String(big))
        #expect(whole64.body.count == big && whole64.body.allSatisfy { $0 == 0 })
        // A real player over HTTP: the mp4's moov is at its end, read with ranges.
        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                base + "/recordings/rec/\(closed)",
            ])
        #expect((Int(probe.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 25, "\(probe.out) \(probe.err)")
        // The open one is listed, so served (an mp4 without its moov yet).
        #expect(try Self.fetch(base + "/recordings/rec/\(open)", headers: ["Range: bytes=0-7"]).status == 206)

        // Nothing else of the directory, whatever the path says.
        for path in [
            "/recordings/rec/clip.mp4", "/recordings/rec/recordings.json", "/recordings/rec/REC_00099.mp4", "/recordings/rec/..%2fclip.mp4",
            "/recordings/rec/../rec/\(closed)", "/recordings/nope/\(closed)", "/recordings/rec", "/recordings/rec/REC_55555.mp4",
        ] {
            let a = try Self.fetch(base + path)
            #expect(a.status == 404, "\(path): \(a.status)")
        }

        // No state change by GET; the open segment is refused; a closed one goes for good.
        let get = try Self.fetch(base + "/api/recordings/rec/\(closed)")
        #expect(get.status == 405 && get.headers["allow"] == "DELETE")
        #expect(try Self.fetch(base + "/recordings/rec/\(closed)", method: "POST").status == 405)
        // The segment open now (segments last 1 s: one that closed between the listing and the DELETE goes, and
        // the next one is tried).
        var busy: HTTPAnswer?
        for _ in 0..<3 {
            let now = try Self.fetch(base + "/api/recordings")
            guard let current = (now.json["recordings"] as? [[String: Any]])?.first?["open"] as? String else { continue }
            let answer = try Self.fetch(base + "/api/recordings/rec/\(current)", method: "DELETE")
            if answer.status != 200 { busy = answer; break }
        }
        #expect(busy?.status == 409 && (busy?.json["error"] as? String ?? "").contains("is being written"), "\(busy?.json ?? [:])")
        let gone = try Self.fetch(base + "/api/recordings/rec/\(closed)", method: "DELETE")
        #expect(gone.status == 200 && gone.json["deleted"] as? String == closed && gone.json["bytes"] as? Int == closedBytes)
        #expect(!FileManager.default.fileExists(atPath: rec.appendingPathComponent(closed).path))
        #expect(try Self.fetch(base + "/api/recordings/rec/\(closed)", method: "DELETE").status == 404)
        #expect(try Self.fetch(base + "/api/recordings/nope/\(closed)", method: "DELETE").status == 404)
        #expect(try Self.fetch(base + "/recordings/rec/\(closed)").status == 404)
        let after = try Self.fetch(base + "/api/recordings")
        let listed = (((after.json["recordings"] as? [[String: Any]])?.first?["segments"] as? [[String: Any]]) ?? []).compactMap {
            $0["file"] as? String
        }
        #expect(!listed.contains(closed) && listed.contains("REC_00000.mp4"))

        #expect(try ControlTools.curl("POST", base + "/api/stop").status == 202)
        #expect(r.finish() == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: rec.appendingPathComponent("clip.mp4").path))
        #expect(r.stderr.contains("recordings rec: deleted \(closed)"), "\(r.stderr)")
    }
}
