import Foundation
import TestSupport
import Testing

/// Settings that last, through the real binary and curl: `--config FILE`, `--save-settings`, the file
/// beside a `.pipeline`, and the order description < settings < `--set`.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct SettingsTests {
    init() { signal(SIGPIPE, SIG_IGN) }

    /// A live source into compose and ringlight.
    static let description =
        "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! compose analysis-width=160 warmup=0 ! ringlight ! fakesink"

    /// The current value of a stage's property, as `GET /api/stages` lists it (typed JSON: a number, a
    /// boolean or a string).
    static func value(_ stages: [String: Any], _ stage: String, _ name: String) -> Any? {
        let list = stages["stages"] as? [[String: Any]] ?? []
        let props = list.first { $0["name"] as? String == stage }?["properties"] as? [[String: Any]] ?? []
        return props.first { $0["name"] as? String == name }?["value"]
    }

    /// The file's `stages` object.
    static func stages(in file: URL) -> [String: [String: Any]] {
        guard let data = try? Data(contentsOf: file), let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return [:]
        }
        return top["stages"] as? [String: [String: Any]] ?? [:]
    }

    /// Asks a running binary to stop and waits for exit code 0.
    static func stop(_ vf: ControlTools.Running) throws {
        let stop = try ControlTools.curl("POST", vf.base + "/api/stop")
        #expect(stop.status == 202, "\(stop.body)")
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
    }

    @Test func changesSavedThroughTheAPIAreRestoredOnTheNextStart() throws {
        let dir = Tools.tempDir()
        let config = dir.appendingPathComponent("c.json")
        // First run: the file does not exist yet; --save-settings creates it on the first change.
        let first = try ControlTools.launch(Self.description, extra: ["--config", config.path, "--save-settings"])
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        #expect(first.stderr.contains("settings: \(config.path)\n"))
        let rule = try ControlTools.curl("PATCH", first.base + "/api/stages/compose0", body: #"{"rule": "golden"}"#)
        #expect(rule.status == 200, "\(rule.body)")
        // A burst of changes: the last one lands.
        for opacity in stride(from: 100, through: 40, by: -5) {
            let r = try ControlTools.curl("PATCH", first.base + "/api/stages/ringlight0", body: "{\"opacity\": \(opacity)}")
            #expect(r.status == 200, "\(r.body)")
        }
        // A refused change writes nothing.
        let refused = try ControlTools.curl("PATCH", first.base + "/api/stages/ringlight0", body: #"{"opacity": 5}"#)
        #expect(refused.status == 400)
        try Self.stop(first)
        let saved = Self.stages(in: config)
        #expect(saved["compose0"]?["rule"] as? String == "golden", "\(saved)")
        #expect(saved["ringlight0"]?["opacity"] as? Int == 40, "\(saved)")
        #expect(saved.count == 2 && saved["ringlight0"]?.count == 1, "\(saved)")
        #expect(Tools.files(in: dir, suffix: "") == ["c.json"], "no temp file left")

        // Second run, same file, no --save-settings: both values are back.
        let second = try ControlTools.launch(Self.description, extra: ["--config", config.path])
        defer { if second.process.isRunning { kill(second.process.processIdentifier, SIGKILL) } }
        let list = try ControlTools.curl("GET", second.base + "/api/stages")
        #expect(list.status == 200)
        #expect(Self.value(list.json, "compose0", "rule") as? String == "golden", "\(list.body)")
        #expect(Self.value(list.json, "ringlight0", "opacity") as? Int == 40, "\(list.body)")
        // compose judges with the restored rule.
        let events = try ControlTools.events(second.base + "/api/events", seconds: 2)
        let rules = events.filter { $0["name"] as? String == "viewfinder/composition" }.compactMap {
            ($0["fields"] as? [String: Any])?["rule"] as? String
        }
        #expect(!rules.isEmpty && rules.allSatisfy { $0 == "golden" }, "\(rules)")
        // Without --save-settings a change stays in memory only.
        let change = try ControlTools.curl("PATCH", second.base + "/api/stages/compose0", body: #"{"rule": "center"}"#)
        #expect(change.status == 200)
        try Self.stop(second)
        #expect(Self.stages(in: config)["compose0"]?["rule"] as? String == "golden")
    }

    @Test func aFailedWriteIsReportedAndTheRunGoesOn() throws {
        let dir = Tools.tempDir().appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let config = dir.appendingPathComponent("c.json")
        let vf = try ControlTools.launch(Self.description, extra: ["--config", config.path, "--save-settings"])
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        // The directory goes away while running: every write fails, the stream and the API go on.
        try FileManager.default.removeItem(at: dir)
        for opacity in [50, 60, 70] {
            let r = try ControlTools.curl("PATCH", vf.base + "/api/stages/ringlight0", body: "{\"opacity\": \(opacity)}")
            #expect(r.status == 200, "\(r.body)")
            usleep(200_000)
        }
        let state = try ControlTools.curl("GET", vf.base + "/api/state")
        #expect(state.json["state"] as? String == "running", "\(state.body)")
        let list = try ControlTools.curl("GET", vf.base + "/api/stages")
        #expect(Self.value(list.json, "ringlight0", "opacity") as? Int == 70)
        try Self.stop(vf)
        let line = "settings: cannot write \(config.path): No such file or directory\n"
        #expect(vf.stderr.components(separatedBy: line).count == 2, "reported once: \(vf.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path))
    }

    @Test func runPicksUpTheFileBesideThePipeline() throws {
        let dir = Tools.tempDir()
        let pipeline = dir.appendingPathComponent("door.pipeline")
        let beside = dir.appendingPathComponent("door.json")
        try Data("# the door camera\n\(Self.description)\n".utf8).write(to: pipeline)
        try Data(#"{"version": 1, "stages": {"ringlight0": {"opacity": 30}}}"#.utf8).write(to: beside)
        let port = ControlTools.freePort()
        let vf = try ControlTools.Running(["run", "--http", "127.0.0.1:\(port)", "--save-settings", pipeline.path], port: port)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "\(vf.stderr)")
        #expect(vf.stderr.contains("settings: \(beside.path)\n"), "\(vf.stderr)")
        let list = try ControlTools.curl("GET", vf.base + "/api/stages")
        #expect(Self.value(list.json, "ringlight0", "opacity") as? Int == 30, "\(list.body)")
        // --save-settings writes back into the file beside the pipeline.
        let r = try ControlTools.curl("PATCH", vf.base + "/api/stages/ringlight0", body: #"{"enabled": false}"#)
        #expect(r.status == 200, "\(r.body)")
        try Self.stop(vf)
        let saved = Self.stages(in: beside)
        #expect(saved["ringlight0"]?["opacity"] as? Int == 30 && saved["ringlight0"]?["enabled"] as? Bool == false, "\(saved)")
        // No file beside: nothing is said, nothing is created (dry run).
        let bare = dir.appendingPathComponent("bare.pipeline")
        try Data(Self.description.utf8).write(to: bare)
        let dry = try Tools.vf("run", "--dry-run", bare.path)
        #expect(dry.code == 0 && !dry.err.contains("settings:"), "\(dry.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bare.json").path))
    }

    @Test func setBeatsTheSettingsFileWhichBeatsTheDescription() throws {
        let dir = Tools.tempDir()
        let config = dir.appendingPathComponent("c.json")
        try Data(#"{"stages": {"compose0": {"rule": "golden"}, "ringlight0": {"opacity": 30}}}"#.utf8).write(to: config)
        let description = Self.description.replacingOccurrences(of: "! ringlight !", with: "! ringlight opacity=90 width=12 !")
        let vf = try ControlTools.launch(description, extra: ["--config", config.path, "--set", "compose0.rule=center"])
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let list = try ControlTools.curl("GET", vf.base + "/api/stages").json
        #expect(Self.value(list, "compose0", "rule") as? String == "center")
        #expect(Self.value(list, "ringlight0", "opacity") as? Int == 30)
        #expect(Self.value(list, "ringlight0", "width") as? Int == 12)
        try Self.stop(vf)
    }

    @Test func serverOptionsComeFromTheFileAndTheCommandLineWins() throws {
        let dir = Tools.tempDir()
        let config = dir.appendingPathComponent("c.json")
        let port = ControlTools.freePort()
        try Data("{\"server\": {\"http\": \"127.0.0.1:\(port)\", \"token\": \"s3cret\"}}".utf8).write(to: config)
        let vf = try ControlTools.Running(["launch", "--config", config.path, Self.description], port: port)
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        #expect(vf.waitListening(), "\(vf.stderr)")
        #expect(try ControlTools.curl("GET", vf.base + "/api/state").status == 401)
        #expect(try ControlTools.curl("GET", vf.base + "/api/state", headers: ["Authorization: Bearer s3cret"]).status == 200)
        let stop = try ControlTools.curl("POST", vf.base + "/api/stop", headers: ["Authorization: Bearer s3cret"])
        #expect(stop.status == 202)
        #expect(vf.finish(timeout: 20) == 0, "\(vf.stderr)")
        // --http and --token on the command line win over the file's.
        let other = ControlTools.freePort()
        let cli = try ControlTools.Running(
            ["launch", "--config", config.path, "--http", "127.0.0.1:\(other)", "--token", "mine", Self.description], port: other)
        defer { if cli.process.isRunning { kill(cli.process.processIdentifier, SIGKILL) } }
        #expect(cli.waitListening(), "\(cli.stderr)")
        #expect(try ControlTools.curl("GET", cli.base + "/api/state", headers: ["Authorization: Bearer s3cret"]).status == 401)
        #expect(try ControlTools.curl("POST", cli.base + "/api/stop", headers: ["Authorization: Bearer mine"]).status == 202)
        #expect(cli.finish(timeout: 20) == 0, "\(cli.stderr)")
    }

    @Test func badSettingsAreUsageErrorsBeforeAnythingRuns() throws {
        let dir = Tools.tempDir()
        func write(_ name: String, _ text: String) throws -> String {
            let f = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: f)
            return f.path
        }
        let d = "videotestsrc num-buffers=10 ! compose ! ringlight ! fakesink"
        let cases: [([String], String)] = [
            (
                ["--config", try write("a.json", #"{"version": 1, "stagez": {}}"#)],
                "unknown key 'stagez': expected version, server, stages"
            ),
            (["--config", try write("b.json", #"{"server": {"htp": "x"}}"#)], "unknown key 'server.htp'"),
            (["--config", try write("c.json", "{\"stages\": {\n\"compose0\" {}}}")], "bad JSON: unexpected text at line 2"),
            (
                ["--config", try write("d.json", #"{"stages": {"compose1": {"rule": "golden"}}}"#)],
                "stage 'compose1' is not in the description"
            ),
            (["--config", try write("e.json", #"{"stages": {"compose0": {"rule": "gold"}}}"#)], "bad value 'gold' for property 'rule'"),
            (["--config", try write("f.json", #"{"server": {"http": "127.0.0.1:99999"}}"#)], "(server): bad port '99999'"),
            (["--config", dir.appendingPathComponent("none.json").path], "cannot read: no such file"),
            (["--save-settings"], "--save-settings needs a settings file: expected --config FILE"),
            (["--config", dir.appendingPathComponent("no/c.json").path, "--save-settings"], "cannot save there: directory"),
        ]
        for (extra, expected) in cases {
            let r = try Tools.run(Tools.viewfinder, ["launch"] + extra + [d], timeout: 30)
            #expect(r.code == 2, "\(extra): \(r.err)")
            #expect(r.err.contains(expected), "\(extra): \(r.err)")
            #expect(!r.err.contains("frames"), "nothing ran: \(r.err)")
        }
        // The file is named in the error.
        let named = try Tools.run(Tools.viewfinder, ["launch", "--config", dir.appendingPathComponent("a.json").path, d], timeout: 30)
        #expect(named.err.contains("settings \(dir.appendingPathComponent("a.json").path): unknown key"), "\(named.err)")
    }

    @Test func aDryRunWritesNoSettingsFile() throws {
        let dir = Tools.tempDir()
        let config = dir.appendingPathComponent("new.json")
        let r = try Tools.vf(
            "launch", "--dry-run", "--config", config.path, "--save-settings", "videotestsrc num-buffers=10 ! compose ! fakesink",
            timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("compose0 (compose)"), "\(r.out)")
        #expect(Tools.files(in: dir, suffix: "").isEmpty)
        // With an existing file the dry run shows its values and leaves the file as it was.
        let existing = dir.appendingPathComponent("c.json")
        let text = #"{"stages": {"compose0": {"rule": "golden"}}}"#
        try Data(text.utf8).write(to: existing)
        let shown = try Tools.vf(
            "launch", "--dry-run", "--config", existing.path, "--save-settings", "videotestsrc num-buffers=10 ! compose ! fakesink",
            timeout: 30)
        #expect(shown.out.contains("compose0 (compose rule=golden)"), "\(shown.out)")
        #expect(try String(contentsOf: existing, encoding: .utf8) == text)
        #expect(Tools.files(in: dir, suffix: "") == ["c.json"])
    }
}
