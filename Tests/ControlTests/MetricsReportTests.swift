import Foundation
import Host
import TestSupport
import Testing

@testable import Control

/// `GET /metrics` (and `/healthz` beside it) through the real binary and curl, checked by Prometheus's own
/// `promtool check metrics`; and the report over several sessions in process, as a process serving many would
/// ask for it.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct MetricsReportTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// The samples of an exposition text by series (`name{labels}`), for reading values back.
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            out[String(line[..<space])] = value == "NaN" ? .nan : Double(value)
        }
        return out
    }

    /// `promtool check metrics` on `text` (its standard input): exit code and what it said (lint problems).
    static func promtool(_ text: String) throws -> (code: Int32, said: String) {
        let input = Tools.tempDir().appendingPathComponent("metrics.txt")
        try Data(text.utf8).write(to: input)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        p.arguments = ["check", "metrics"]
        p.standardInput = try FileHandle(forReadingFrom: input)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, said)
    }

    @Test func launchServesRealFiguresThatPromtoolAccepts() throws {
        let dir = Tools.tempDir().appendingPathComponent("photos")
        let vf = try ControlTools.launch(
            "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=160 warmup=0 ! capture directory=\(dir.path) auto=false ! fakesink"
        )
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }

        // One photo, so capture's counter has something to count; and a few seconds of frames.
        #expect(try ControlTools.curl("POST", vf.base + "/api/capture").status == 202)
        let deadline = Date().addingTimeInterval(20)
        while ControlServerTests.records(dir).isEmpty && Date() < deadline { usleep(100_000) }
        #expect(ControlServerTests.records(dir).count == 1)
        // At least 3 s of playing (`/api/state`'s seconds), so the rate is the source's.
        let played = Date().addingTimeInterval(20)
        while (try ControlTools.curl("GET", vf.base + "/api/state").json["seconds"] as? Double ?? 0) < 3 && Date() < played {
            usleep(100_000)
        }

        let head = try ControlTools.curl("GET", vf.base + "/metrics", includeHeaders: true)
        #expect(head.status == 200)
        #expect(head.body.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), "\(head.body.prefix(300))")
        let metrics = try ControlTools.curl("GET", vf.base + "/metrics")
        let checked = try Self.promtool(metrics.body)
        #expect(checked.code == 0 && checked.said.isEmpty, "promtool: \(checked.said)\n\(metrics.body)")

        let s = Self.samples(metrics.body)
        let main = #"pipeline="main""#
        #expect(s["viewfinder_pipeline_state{\(main),state=\"running\"}"] == 1)
        #expect(s["viewfinder_pipeline_state{\(main),state=\"ended\"}"] == 0)
        let framesIn = s["viewfinder_frames_in_total{\(main)}"] ?? 0
        #expect(framesIn > 60, "\(metrics.body)")
        #expect((s["viewfinder_frames_out_total{\(main)}"] ?? 0) > 60)
        #expect(s["viewfinder_frames_dropped_total{\(main)}"] != nil)
        // The source's 30 fps, averaged from the moment the pipelines played.
        let fps = s["viewfinder_fps{\(main)}"] ?? 0
        #expect(fps > 25 && fps < 31, "\(fps)")
        for stage in ["compose0", "capture0"] {
            let p95 = s["viewfinder_stage_process_seconds{\(main),stage=\"\(stage)\",quantile=\"0.95\"}"] ?? 0
            let p50 = s["viewfinder_stage_process_seconds{\(main),stage=\"\(stage)\",quantile=\"0.5\"}"] ?? 0
            #expect(p95 > 0 && p95 < 1 && p50 > 0 && p50 <= p95, "\(stage): p50 \(p50) p95 \(p95)")
            let count = s["viewfinder_stage_process_seconds_count{\(main),stage=\"\(stage)\"}"] ?? 0
            #expect(count > 60 && count <= framesIn)
        }
        #expect((s["viewfinder_analyses_total{\(main),stage=\"compose0\"}"] ?? 0) > 0)
        #expect((s["viewfinder_analyses_per_second{\(main),stage=\"compose0\"}"] ?? 0) > 0)
        let age = s["viewfinder_guidance_age_seconds{\(main),stage=\"compose0\"}"] ?? -1
        #expect(age >= 0 && age < 3, "\(age)")
        #expect(s["viewfinder_photos_total{\(main),stage=\"capture0\"}"] == 1)
        #expect(s["viewfinder_viewers{\(main),output=\"preview\"}"] == 0)
        #expect(s["viewfinder_viewers{\(main),output=\"events\"}"] == 0)
        #expect((s["process_resident_memory_bytes"] ?? 0) > 10_000_000)
        #expect((s["process_cpu_seconds_total"] ?? 0) > 0)

        // An event client shows as a viewer while it reads.
        let events = Process()
        events.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        events.arguments = ["-s", "-N", "--max-time", "5", vf.base + "/api/events"]
        events.standardOutput = FileHandle.nullDevice
        try events.run()
        defer { if events.isRunning { events.terminate() } }
        var watching = 0.0
        let until = Date().addingTimeInterval(4)
        while watching != 1 && Date() < until {
            usleep(100_000)
            watching =
                Self.samples(try ControlTools.curl("GET", vf.base + "/metrics").body)["viewfinder_viewers{\(main),output=\"events\"}"] ?? 0
        }
        #expect(watching == 1)

        // /healthz while it plays; both behind the same checks as every route.
        let health = try ControlTools.curl("GET", vf.base + "/healthz")
        #expect(health.status == 200 && health.body == #"{"pipelines":{"main":"running"},"status":"ok"}"# + "\n", "\(health.body)")
        for path in ["/metrics", "/healthz"] {
            let foreign = try ControlTools.curl("GET", vf.base + path, headers: ["Origin: http://evil.example"])
            #expect(foreign.status == 403 && foreign.json["field"] as? String == "Origin", "\(path): \(foreign.body)")
            let rebound = try ControlTools.curl("GET", vf.base + path, headers: ["Host: evil.example:\(vf.port)"])
            #expect(rebound.status == 403 && rebound.json["field"] as? String == "Host", "\(path): \(rebound.body)")
            let post = try ControlTools.curl("POST", vf.base + path)
            #expect(post.status == 405, "\(path): \(post.body)")
        }

        #expect(try ControlTools.curl("POST", vf.base + "/api/stop").status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }

    @Test func runNamesThePipelineAfterItsFileAndTheTokenGuardsBoth() throws {
        let file = Tools.tempDir().appendingPathComponent("yard-cam.pipeline")
        try Data("# the yard\nvideotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1 ! grid ! fakesink\n".utf8).write(
            to: file)
        let port = ControlTools.freePort()
        let vf = try ControlTools.Running(["run", "--http", "127.0.0.1:\(port)", "--token", "s3cret", file.path], port: port)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "\(vf.stderr)")

        for path in ["/metrics", "/healthz"] {
            let refused = try ControlTools.curl("GET", vf.base + path)
            #expect(refused.status == 401, "\(path): \(refused.body)")
        }
        let auth = ["Authorization: Bearer s3cret"]
        var health = try ControlTools.curl("GET", vf.base + "/healthz", headers: auth)
        let deadline = Date().addingTimeInterval(10)
        while health.status != 200 && Date() < deadline {
            usleep(100_000)
            health = try ControlTools.curl("GET", vf.base + "/healthz", headers: auth)
        }
        #expect(health.status == 200 && health.body == #"{"pipelines":{"yard-cam":"running"},"status":"ok"}"# + "\n", "\(health.body)")
        let metrics = try ControlTools.curl("GET", vf.base + "/metrics", headers: auth)
        let s = Self.samples(metrics.body)
        #expect(s[#"viewfinder_pipeline_state{pipeline="yard-cam",state="running"}"#] == 1, "\(metrics.body)")
        #expect(s[#"viewfinder_stage_process_seconds_count{pipeline="yard-cam",stage="grid0"}"#] != nil)
        // No compose, no capture: their families are not there at all.
        #expect(!metrics.body.contains("viewfinder_analyses_total") && !metrics.body.contains("viewfinder_photos_total"))
        #expect(try Self.promtool(metrics.body).code == 0)

        #expect(try ControlTools.curl("POST", vf.base + "/api/stop", headers: auth).status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }

    /// Several sessions in one report (a process serving many): one family per name with every pipeline's samples
    /// in it, as promtool demands; an ended session says so.
    @Test func severalSessionsMakeOneValidReport() throws {
        let yard = try Session(
            description: "videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120 ! compose analysis-width=80 warmup=0 ! fakesink")
        let gate = try Session(description: "videotestsrc num-buffers=20 ! video/x-raw,width=160,height=120 ! grid ! fakesink")
        let notYet = MetricsReport.text([("yard", yard), ("gate", gate)], process: nil)
        #expect(try Self.promtool(notYet).code == 0, "\(notYet)")
        let early = Self.samples(notYet)
        #expect(early[#"viewfinder_pipeline_state{pipeline="yard",state="built"}"#] == 1)
        #expect(early[#"viewfinder_frames_in_total{pipeline="gate"}"#] == 0)
        #expect(!notYet.contains("viewfinder_fps") && !notYet.contains("process_"))

        #expect(yard.run() == 0, "\(yard.errors)")
        #expect(gate.run() == 0, "\(gate.errors)")
        let text = MetricsReport.text([("yard", yard), ("gate", gate), ("yard", gate)])
        let checked = try Self.promtool(text)
        #expect(checked.code == 0 && checked.said.isEmpty, "\(checked.said)\n\(text)")
        #expect(text.components(separatedBy: "# TYPE viewfinder_frames_in_total counter").count == 2)
        let s = Self.samples(text)
        #expect(s[#"viewfinder_pipeline_state{pipeline="yard",state="ended"}"#] == 1)
        #expect(s[#"viewfinder_frames_in_total{pipeline="yard"}"#] == 30 && s[#"viewfinder_frames_out_total{pipeline="yard"}"#] == 30)
        #expect(s[#"viewfinder_frames_in_total{pipeline="gate"}"#] == 20)
        #expect(s[#"viewfinder_stage_process_seconds_count{pipeline="yard",stage="compose0"}"#] == 30)
        #expect(s[#"viewfinder_stage_process_seconds_count{pipeline="gate",stage="grid0"}"#] == 20)
        #expect((s[#"viewfinder_analyses_total{pipeline="yard",stage="compose0"}"#] ?? 0) >= 1)
        // The gate's `yard` duplicate is left out: 30 frames in, not 20.
        #expect(s.keys.filter { $0.hasPrefix("viewfinder_frames_in_total") }.count == 2)
        #expect((s["process_resident_memory_bytes"] ?? 0) > 10_000_000)
    }
}
