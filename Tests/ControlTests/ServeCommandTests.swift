import Foundation
import TestSupport
import Testing

/// `viewfinder serve DIR` through the real binary and real clients (curl, ffprobe): several cameras in one process,
/// one failing without touching the others, pipelines added and removed through the API and written back to DIR
/// (surviving kill -9), each pipeline's own routes under its prefix.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct ServeCommandTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// A live 320x240 camera at 30 fps through `grid`, ending in `sink`.
    static func camera(pattern: String, _ sink: String) -> String {
        "videotestsrc is-live=true pattern=\(pattern) ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! \(sink)"
    }

    /// `viewfinder serve DIR --http 127.0.0.1:PORT EXTRA`, listening.
    static func serve(_ dir: URL, extra: [String] = []) throws -> ControlTools.Running {
        let port = ControlTools.freePort()
        let r = try ControlTools.Running(["serve", dir.path, "--http", "127.0.0.1:\(port)"] + extra, port: port)
        #expect(r.waitListening(), "not listening: \(r.stderr)")
        return r
    }

    /// Waits (real time, bounded) until GET /api/pipelines/NAME says `state`.
    static func wait(_ vf: ControlTools.Running, _ name: String, state: String, timeout: Double = 20) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try ControlTools.curl("GET", "\(vf.base)/api/pipelines/\(name)").json
            if last["state"] as? String == state { return last }
            usleep(100_000)
        }
        return last
    }

    @Test func aFailingPipelineNeitherStopsNorSlowsTheOthers() throws {
        let dir = Tools.tempDir()
        let out = Tools.tempDir()
        let frames = out.appendingPathComponent("c")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let recorder = "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! matroskamux ! filesink location="
        try Self.camera(pattern: "ball", recorder + out.appendingPathComponent("a.mkv").path).write(
            to: dir.appendingPathComponent("a.pipeline"), atomically: true, encoding: .utf8)
        try Self.camera(pattern: "smpte", recorder + out.appendingPathComponent("b.mkv").path).write(
            to: dir.appendingPathComponent("b.pipeline"), atomically: true, encoding: .utf8)
        try Self.camera(pattern: "snow", "jpegenc ! multifilesink location=\(frames.path)/f%05d.jpg").write(
            to: dir.appendingPathComponent("c.pipeline"), atomically: true, encoding: .utf8)
        let vf = try Self.serve(dir)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        for name in ["a", "b", "c"] { #expect(try Self.wait(vf, name, state: "playing")["state"] as? String == "playing") }
        sleep(2)
        // c's filesink loses its directory mid-run: its next frame fails, its restarts cannot build.
        #expect(rename(frames.path, out.appendingPathComponent("gone").path) == 0)
        let c = try Self.wait(vf, "c", state: "restarting")
        #expect(c["state"] as? String == "restarting", "\(c)")
        #expect((c["error"] as? String ?? "").contains("multifilesink"), "\(c)")
        sleep(4)
        let list = try ControlTools.curl("GET", vf.base + "/api/pipelines").json["pipelines"] as? [[String: Any]] ?? []
        let byName = Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
        for name in ["a", "b"] {
            #expect(byName[name]?["state"] as? String == "playing")
            #expect((byName[name]?["fps"] as? Double ?? 0) > 27, "\(byName[name] ?? [:])")
            #expect(byName[name]?["dropped"] as? Int == 0)
        }
        #expect((byName["c"]?["restarts"] as? Int ?? 0) >= 2, "\(byName["c"] ?? [:])")
        // Health names the pipeline that does not play; the metrics pass promtool and say the same.
        let health = try ControlTools.curl("GET", vf.base + "/healthz")
        #expect(health.status == 503 && health.json["failing"] as? [String] == ["c"], "\(health.body)")
        let metrics = try ControlTools.curl("GET", vf.base + "/metrics")
        let checked = try MetricsReportTests.promtool(metrics.body)
        #expect(checked.code == 0, "\(checked.said)")
        #expect(metrics.body.contains(#"viewfinder_pipeline_status{pipeline="c",state="restarting"} 1"#), "\(metrics.body)")
        #expect(metrics.body.contains(#"viewfinder_pipeline_status{pipeline="a",state="playing"} 1"#))
        #expect(metrics.body.contains(#"viewfinder_frames_out_total{pipeline="b"}"#))
        #expect(vf.stderr.contains("pipeline c: ended with an error"), "\(vf.stderr)")
        #expect(vf.stderr.contains("restarting in 1.0 s (restart 1)") && vf.stderr.contains("restarting in 2.0 s (restart 2)"), "\(vf.stderr)")
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
        // The others' recordings are whole: 30 frames a second, no hole, readable to the end.
        for name in ["a", "b"] {
            let f = try Tools.ffprobeVideoFrames(out.appendingPathComponent("\(name).mkv").path)
            let span = (f.last?.pts ?? 0) - (f.first?.pts ?? 0)
            #expect(span > 5, "\(name): \(f.count) frames over \(span) s")
            #expect(Double(f.count) >= span * 30 * 0.97, "\(name): \(f.count) frames over \(span) s")
            let steps = zip(f.dropFirst(), f).map { $0.pts - $1.pts }
            #expect((steps.max() ?? 1) < 2.5 / 30, "\(name): largest step \(steps.max() ?? 0)")
        }
    }

    @Test func addedAndRemovedPipelinesAreWrittenBackAndSurviveKill9() throws {
        let dir = Tools.tempDir()
        var vf = try Self.serve(dir)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let api = vf.base + "/api/pipelines"
        // Validated like launch: the parse error with its position and token, nothing written.
        let bad = try ControlTools.curl("POST", api, body: #"{"name": "door", "description": "videotestsrc ! ! grid ! fakesink"}"#)
        #expect(bad.status == 400)
        #expect(bad.json["error"] as? String == "unexpected '!' after '!': expected an element before '!'")
        #expect(bad.json["position"] as? Int == 15 && bad.json["token"] as? String == "!", "\(bad.json)")
        let unknown = try ControlTools.curl("POST", api, body: #"{"name": "door", "description": "videotestsrc ! nosuch ! fakesink"}"#)
        #expect(unknown.status == 400 && (unknown.json["error"] as? String ?? "").contains("unknown element or stage 'nosuch'"))
        let badName = try ControlTools.curl("POST", api, body: #"{"name": "Front Door", "description": "videotestsrc ! fakesink"}"#)
        #expect(badName.status == 400 && badName.json["field"] as? String == "name")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        let body = #"{"name": "door", "description": "\#(Self.camera(pattern: "ball", "fakesink"))", "settings": {"stages": {"grid0": {"lines": "golden"}}}}"#
        let added = try ControlTools.curl("POST", api, body: body)
        #expect(added.status == 201, "\(added.body)")
        #expect(try Self.wait(vf, "door", state: "playing")["state"] as? String == "playing")
        #expect(try ControlTools.curl("POST", api, body: body).status == 409)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("door.pipeline").path))
        let settings = try String(contentsOf: dir.appendingPathComponent("door.json"), encoding: .utf8)
        #expect(settings.contains("\"golden\""), "\(settings)")
        // The pipeline's own routes under its prefix, long and short.
        let stages = try ControlTools.curl("GET", api + "/door/api/stages")
        #expect(stages.status == 200 && stages.body.contains("\"grid0\""))
        #expect(try ControlTools.curl("GET", api + "/door/stages").body == stages.body)
        let patched = try ControlTools.curl("PATCH", api + "/door/stages/grid0", body: #"{"lines": "center"}"#)
        #expect(patched.status == 200, "\(patched.body)")
        #expect((try ControlTools.curl("GET", api + "/door/state").json["framesOut"] as? Int ?? 0) > 0)
        #expect(try ControlTools.curl("GET", api + "/nobody/state").status == 404)

        // kill -9: a new process runs the same camera, with its settings.
        kill(vf.process.processIdentifier, SIGKILL)
        vf.process.waitUntilExit()
        vf = try Self.serve(dir)
        let again = try Self.wait(vf, "door", state: "playing")
        #expect(again["state"] as? String == "playing", "\(again)")
        let lines = try ControlTools.curl("GET", vf.base + "/api/pipelines/door/api/stages").body
        #expect(lines.contains("\"value\":\"golden\""), "\(lines)")
        let removed = try ControlTools.curl("DELETE", vf.base + "/api/pipelines/door")
        #expect(removed.status == 200 && removed.json["state"] as? String == "removed", "\(removed.body)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        #expect((try ControlTools.curl("GET", vf.base + "/api/pipelines").json["pipelines"] as? [Any])?.isEmpty == true)
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
    }

    @Test func deleteFinalisesTheRecordingAndStopStartWork() throws {
        let dir = Tools.tempDir()
        let file = Tools.tempDir().appendingPathComponent("door.mp4")
        try Self.camera(pattern: "ball", "x264enc tune=zerolatency speed-preset=ultrafast ! mp4mux ! filesink location=\(file.path)").write(
            to: dir.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        let vf = try Self.serve(dir, extra: ["--token", "s3cret"])
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let auth = ["Authorization: Bearer s3cret"]
        let api = vf.base + "/api/pipelines"
        #expect(try ControlTools.curl("GET", api).status == 401)
        #expect(try ControlTools.curl("GET", api + "/door/api/stages").status == 401)
        var door: [String: Any] = [:]
        for _ in 0..<100 {
            door = try ControlTools.curl("GET", api + "/door", headers: auth).json
            if door["state"] as? String == "playing" { break }
            usleep(100_000)
        }
        #expect(door["state"] as? String == "playing", "\(door)")
        sleep(2)
        let stopped = try ControlTools.curl("POST", api + "/door/stop", headers: auth)
        #expect(stopped.status == 202)
        // A stop ends the run with end-of-stream: the MP4 is finished and playable.
        for _ in 0..<100 where (try ControlTools.curl("GET", api + "/door", headers: auth).json["state"] as? String) != "stopped" { usleep(100_000) }
        let first = try Tools.ffprobeVideoFrames(file.path).count
        #expect(first > 10, "frames in the stopped recording: \(first)")
        #expect(try ControlTools.curl("GET", api + "/door/api/state", headers: auth).status == 503)
        #expect(try ControlTools.curl("POST", api + "/door/start", headers: auth).status == 202)
        sleep(2)
        let removed = try ControlTools.curl("DELETE", api + "/door", headers: auth)
        #expect(removed.status == 200, "\(removed.body)")
        #expect(try Tools.ffprobeVideoFrames(file.path).count > 10)
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
    }

    @Test func badDirectoriesAreRefusedBeforeAnythingRuns() throws {
        let missing = try Tools.vf("serve", "/nonexistent-cameras")
        #expect(missing.code == 2 && missing.err.contains("serve: '/nonexistent-cameras' is not a directory"), "\(missing.err)")
        let dir = Tools.tempDir()
        try "videotestsrc ! grid ! fakesink".write(to: dir.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        let dry = try Tools.vf("serve", dir.path, "--dry-run")
        #expect(dry.code == 0 && dry.out.hasPrefix("# door\n") && dry.out.contains("appsink name=vf_grid0_sink"), "\(dry.out)\(dry.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["door.pipeline"])
        try "videotestsrc ! nosuch ! fakesink".write(to: dir.appendingPathComponent("yard.pipeline"), atomically: true, encoding: .utf8)
        let bad = try Tools.vf("serve", dir.path, "--http", "127.0.0.1:0")
        #expect(bad.code == 2 && bad.err.contains("yard.pipeline: unknown element or stage 'nosuch'"), "\(bad.err)")
        #expect(!bad.err.contains("pipeline door: playing") && !bad.err.contains("control:"), "nothing played nor bound: \(bad.err)")
        let set = try Tools.vf("serve", dir.path, "--set", "grid0.lines=golden")
        #expect(set.code == 2 && set.err.contains("--set is not for serve"), "\(set.err)")
    }

    /// Every frame of `file` at 4x4 RGB: the red, green and blue of its middle pixel.
    static func colours(_ file: String) throws -> [(r: Int, g: Int, b: Int)] {
        let raw = Tools.tempDir().appendingPathComponent("frames.rgb")
        let r = try Tools.run("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-vf", "scale=4:4", "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        #expect(r.code == 0, "\(r.err)")
        let data = try [UInt8](Data(contentsOf: raw))
        return stride(from: 0, to: data.count - 47, by: 48).map { i in
            let p = i + (2 * 4 + 2) * 3
            return (Int(data[p]), Int(data[p + 1]), Int(data[p + 2]))
        }
    }

    @Test func aSourceSwitchedMidRecordingKeepsTheTimingAndChangesThePicture() throws {
        let dir = Tools.tempDir()
        let file = Tools.tempDir().appendingPathComponent("door.mkv")
        try "videotestsrc is-live=true pattern=red ! video/x-raw,width=320,height=240,framerate=30/1 ! passthrough ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! matroskamux ! filesink location=\(file.path)".write(
            to: dir.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        let vf = try Self.serve(dir)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let api = vf.base + "/api/pipelines/door/source"
        #expect(try Self.wait(vf, "door", state: "playing")["state"] as? String == "playing")
        sleep(2)
        // Refused, and the red source goes on: a parse error (its position and token), a source that does not link.
        let bad = try ControlTools.curl("PATCH", api, body: #"{"description": "videotestsrc ! ! x"}"#)
        #expect(bad.status == 400 && bad.json["position"] as? Int == 15 && bad.json["token"] as? String == "!", "\(bad.body)")
        let audio = try ControlTools.curl("PATCH", api, body: #"{"description": "audiotestsrc is-live=true"}"#)
        #expect(audio.status == 400 && (audio.json["error"] as? String ?? "").contains("not raw video"), "\(audio.body)")
        #expect(try ControlTools.curl("PATCH", vf.base + "/api/pipelines/nobody/source", body: #"{"description": "videotestsrc"}"#).status == 404)
        #expect(try ControlTools.curl("POST", api, body: "{}").status == 405)
        let switched = try ControlTools.curl("PATCH", api, body: #"{"description": "videotestsrc is-live=true pattern=blue ! videoconvert"}"#)
        #expect(switched.status == 200, "\(switched.body)")
        #expect((switched.json["source"] as? [String: Any])?["element"] as? String == "videotestsrc")
        sleep(2)
        kill(vf.process.processIdentifier, SIGINT)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
        let frames = try Tools.ffprobeVideoFrames(file.path)
        let steps = zip(frames.dropFirst(), frames).map { $0.pts - $1.pts }
        #expect(steps.allSatisfy { $0 > 0 } && (steps.max() ?? 1) <= 2.0 / 30, "largest step \(steps.max() ?? 0)")
        // Red, then blue, nothing else: the picture changes once, at the switch.
        let c = try Self.colours(file.path)
        let kinds = c.map { $0.r > 150 && $0.b < 100 ? "red" : ($0.b > 150 && $0.r < 100 ? "blue" : "other") }
        let runs = kinds.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(runs == ["red", "blue"], "\(runs) over \(kinds.count) frames")
        #expect(kinds.filter { $0 == "red" }.count > 45 && kinds.filter { $0 == "blue" }.count > 40, "\(kinds.count) frames")
    }
}
