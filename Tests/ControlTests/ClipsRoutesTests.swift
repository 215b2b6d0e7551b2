import Foundation
import TestSupport
import Testing

/// The clip routes through the real binary (`viewfinder launch --http` with a `clips` element on x264's stream) and
/// real curl: a clip asked over the API, its file served with range requests (206 / 416 / 200 compared byte for byte
/// with the file on disk), traversal refused, wrong methods and unknown clips refused.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct ClipsRoutesTests {
    /// A closed connection must fail the test's write, not kill the test process.
    init() { signal(SIGPIPE, SIG_IGN) }

    /// The description the clip tests run: a live 640x360 test picture encoded by x264 (a keyframe every 0.5 s) into a
    /// clip recorder keeping 2 s before the trigger and writing 2 s after it.
    static func description(_ dir: URL) -> String {
        "videotestsrc is-live=true ! video/x-raw,width=640,height=360,framerate=30/1"
            + " ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! clips pre=2 post=2 directory=\(dir.path)"
    }

    /// Starts the binary on `description(dir)` and asks a clip (`clip(at:)`); the running binary and the clip as
    /// `GET /api/clips` lists it.
    static func launchWithClip(_ dir: URL) throws -> (vf: ControlTools.Running, clip: [String: Any]) {
        let vf = try ControlTools.launch(description(dir))
        return (vf, try clip(at: vf.base))
    }

    /// Waits (20 s at most) until the ring at `api` (a server's base URL, or a pipeline's under `serve`) holds 2 s,
    /// asks a clip with `POST api/api/clips` and waits (30 s at most) until it is listed; the clip as listed.
    static func clip(at api: String) throws -> [String: Any] {
        func list() throws -> [String: Any] { try ControlTools.curl("GET", api + "/api/clips").json }
        var deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let ring = (try list()["recorders"] as? [[String: Any]])?.first?["ringSeconds"] as? Double ?? 0
            if ring >= 2 { break }
            usleep(200_000)
        }
        let asked = try ControlTools.curl("POST", api + "/api/clips", body: "{}")
        #expect(asked.status == 202, "\(asked.body)")
        #expect((asked.json["clips"] as? [[String: Any]])?.first?["state"] as? String == "opened", "\(asked.body)")
        deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let clip = (try list()["clips"] as? [[String: Any]])?.first { return clip }
            usleep(200_000)
        }
        Issue.record("no clip listed within 30 s at \(api)")
        return [:]
    }

    /// clips.json's records.
    static func records(_ dir: URL) -> [[String: Any]] {
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("clips.json")),
            let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return [] }
        return top["clips"] as? [[String: Any]] ?? []
    }

    /// `curl -s --path-as-is -D FILE -H HEADER...` (`Tools.curl`).
    static func fetch(_ url: String, method: String = "GET", headers: [String] = []) throws -> HTTPAnswer {
        try Tools.curl(url, method: method, headers: headers)
    }

    @Test func rangesMethodsAndTraversal() throws {
        let dir = Tools.tempDir().appendingPathComponent("clips")
        let (vf, clip) = try Self.launchWithClip(dir)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let file = try #require(clip["file"] as? String)
        let url = try #require(clip["url"] as? String)
        #expect(url == "/clips/vf_clips0/\(file)")
        #expect(clip["thumbUrl"] as? String == "/clips/vf_clips0/thumbs/" + file.replacingOccurrences(of: ".mp4", with: ".jpg"))
        #expect(clip["trigger"] as? String == "api")
        let record = try #require(Self.records(dir).first)
        #expect(record["id"] as? Int == clip["id"] as? Int && record["startTime"] as? String == clip["startTime"] as? String)
        let disk = try Data(contentsOf: dir.appendingPathComponent(file))
        let size = disk.count
        // `bytes` counts the encoded video; the file adds the MP4 boxes around it.
        #expect(size > 1000 && (record["bytes"] as? Int ?? .max) < size, "\(size) \(record["bytes"] ?? "")")

        // The first 100 bytes.
        let head = try Self.fetch(vf.base + url, headers: ["Range: bytes=0-99"])
        #expect(head.status == 206)
        #expect(head.headers["content-range"] == "bytes 0-99/\(size)")
        #expect(head.headers["content-length"] == "100" && head.headers["accept-ranges"] == "bytes")
        #expect(head.headers["content-type"] == "video/mp4")
        #expect(head.body == disk.prefix(100))
        // An open-ended range from the middle: the rest of the file.
        let middle = size / 2
        let tail = try Self.fetch(vf.base + url, headers: ["Range: bytes=\(middle)-"])
        #expect(tail.status == 206)
        #expect(tail.headers["content-range"] == "bytes \(middle)-\(size - 1)/\(size)")
        #expect(tail.body == disk.suffix(from: middle))
        // A suffix range: the last 100 bytes.
        let last = try Self.fetch(vf.base + url, headers: ["Range: bytes=-100"])
        #expect(last.status == 206 && last.headers["content-range"] == "bytes \(size - 100)-\(size - 1)/\(size)")
        #expect(last.body == disk.suffix(100))
        // From the end on: nothing to send.
        let beyond = try Self.fetch(vf.base + url, headers: ["Range: bytes=\(size)-"])
        #expect(beyond.status == 416)
        #expect(beyond.headers["content-range"] == "bytes */\(size)")
        // The API's JSON error says why, not a byte of the file.
        #expect(String(decoding: beyond.body, as: UTF8.self).contains("lies outside the file's \(size) bytes"))
        // No range: the whole file, byte for byte, inline; with ?download=1 as an attachment.
        let whole = try Self.fetch(vf.base + url)
        #expect(whole.status == 200 && whole.headers["accept-ranges"] == "bytes" && whole.headers["content-disposition"] == nil)
        #expect(whole.body == disk)
        let download = try Self.fetch(vf.base + url + "?download=1")
        #expect(download.status == 200 && download.body == disk)
        #expect(download.headers["content-disposition"] == "attachment; filename=\"\(file)\"")
        let thumb = try Self.fetch(vf.base + (clip["thumbUrl"] as? String ?? "/missing"))
        #expect(thumb.status == 200 && thumb.headers["content-type"] == "image/jpeg" && thumb.body.prefix(2) == Data([0xFF, 0xD8]))

        // Only listed files, only plain names, only the right methods.
        for path in ["/clips/vf_clips0/..%2fclips.json", "/clips/vf_clips0/clips.json", "/clips/vf_clips0/../clips.json", "/clips/nope/\(file)"] {
            #expect(try Self.fetch(vf.base + path).status == 404, "\(path)")
        }
        #expect(try Self.fetch(vf.base + url, method: "DELETE").status == 405)
        let wrong = try Self.fetch(vf.base + "/api/clips/x/1")
        #expect(wrong.status == 405 && wrong.headers["allow"] == "DELETE")
        let unknown = try Self.fetch(vf.base + "/api/clips/vf_clips0/999", method: "DELETE")
        #expect(unknown.status == 404 && unknown.json["field"] as? String == "id", "\(unknown.text)")
        #expect(try Self.fetch(vf.base + "/api/clips/nope/1", method: "DELETE").status == 404)
        #expect(try Self.fetch(vf.base + "/api/clips", method: "PUT").status == 405)
        #expect(try ControlTools.curl("POST", vf.base + "/api/clips", body: #"{"element": "nope"}"#).status == 404)
        #expect(try ControlTools.curl("POST", vf.base + "/api/clips", body: #"{"elements": 1}"#).status == 400)
        #expect(Self.records(dir).count == 1 && FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path))

        #expect(try ControlTools.curl("POST", vf.base + "/api/stop").status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }

    /// Under `serve` a pipeline's clips are at its mount: the listed URLs carry it, and `/api/pipelines/NAME/clips/...`
    /// is the file (as `.../photos/...` is), not the short form of `/api/clips/...`.
    @Test func underServesMount() throws {
        let dir = Tools.tempDir()
        let cameras = dir.appendingPathComponent("cameras"), clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: cameras, withIntermediateDirectories: true)
        try Self.description(clips).write(to: cameras.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        let vf = try ServeCommandTests.serve(cameras)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(try ServeCommandTests.wait(vf, "door", state: "playing")["state"] as? String == "playing", "\(vf.stderr)")
        let mount = "/api/pipelines/door"
        let clip = try Self.clip(at: vf.base + mount)
        let file = try #require(clip["file"] as? String)
        #expect(clip["url"] as? String == "\(mount)/clips/vf_clips0/\(file)")
        #expect(clip["thumbUrl"] as? String == "\(mount)/clips/vf_clips0/thumbs/" + file.replacingOccurrences(of: ".mp4", with: ".jpg"))
        let disk = try Data(contentsOf: clips.appendingPathComponent(file))
        let part = try Self.fetch(vf.base + (clip["url"] as? String ?? ""), headers: ["Range: bytes=100-199"])
        #expect(part.status == 206 && part.headers["content-range"] == "bytes 100-199/\(disk.count)", "\(part.status) \(part.text.prefix(200))")
        #expect(part.body == disk.subdata(in: 100..<200))
        let thumb = try Self.fetch(vf.base + (clip["thumbUrl"] as? String ?? ""))
        #expect(thumb.status == 200 && thumb.headers["content-type"] == "image/jpeg")
        let gone = try Self.fetch(vf.base + "\(mount)/api/clips/vf_clips0/\(clip["id"] as? Int ?? 0)", method: "DELETE")
        #expect(gone.status == 200, "\(gone.text)")
        #expect(Self.records(clips).isEmpty && !FileManager.default.fileExists(atPath: clips.appendingPathComponent(file).path))
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }
}
