import Foundation
import Stages
import Testing
import TestSupport

@testable import Host

/// The settings file: parsing with errors that name the file and the key, applying stage settings between
/// the description and `--set`, atomic saving, the file beside a pipeline.
@Suite struct SettingsFileTests {
    /// A fresh directory for one test.
    static func directory() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-settings-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Parses `text` as the file `c.json`; the usage error's message, or nil when it parsed.
    static func refusal(_ text: String) -> String? {
        do { _ = try SettingsFile.parse(Data(text.utf8), path: "c.json") } catch {
            #expect(error.kind == .usage)
            return error.message
        }
        return nil
    }

    @Test func parsesServerOptionsAndTypedStageValues() throws {
        let text = """
            { "version": 1,
              "server": { "http": "127.0.0.1:8080", "tokenFile": "token.txt", "mqtt": "127.0.0.1:1883", "topic": "cams/door" },
              "stages": { "compose0": { "rule": "golden", "overlay": false }, "ringlight0": { "opacity": 50, "width": 12 },
                          "grid0": { "opacity": 0.25 } } }
            """
        let s = try SettingsFile.parse(Data(text.utf8), path: "dir/c.json")
        #expect(s.path == "dir/c.json" && s.version == 1)
        #expect(
            s.server
                == SettingsFile.Server(
                    http: "127.0.0.1:8080", token: nil, tokenFile: "token.txt", mqtt: "127.0.0.1:1883", topic: "cams/door"))
        #expect(s.stages["compose0"] == ["rule": .string("golden"), "overlay": .bool(false)])
        #expect(s.stages["ringlight0"] == ["opacity": .int(50), "width": .int(12)])
        #expect(s.stages["grid0"]?["opacity"] == .double(0.25))
        #expect(s.stages["grid0"]?["opacity"]?.text == "0.25")
        // Every key is optional.
        #expect(try SettingsFile.parse(Data("{}".utf8), path: "c.json") == SettingsFile(path: "c.json"))
    }

    @Test(arguments: [
        ("{\"version\": 1,\n  \"stages\" {}}", ["settings c.json: bad JSON", "line 2, column 12", "expected an object"]),
        ("  \n", ["settings c.json: bad JSON: the file is empty"]),
        ("[1, 2]", ["settings c.json: expected a JSON object at the top", "got an array"]),
        (#"{"version": 1, "stagez": {}}"#, ["unknown key 'stagez': expected version, server, stages"]),
        (#"{"server": {"htp": "127.0.0.1:1"}}"#, ["unknown key 'server.htp': expected http, token, tokenFile, mqtt, topic"]),
        (#"{"server": {"http": 8080}}"#, ["'server.http' must be a string (HOST:PORT), got a number"]),
        (#"{"server": {"token": "a", "tokenFile": "t"}}"#, ["both 'token' and 'tokenFile'"]),
        (#"{"server": []}"#, ["'server' must be an object", "got an array"]),
        (#"{"version": 2}"#, ["bad value '2' for 'version': expected 1"]),
        (#"{"version": "1"}"#, ["bad value '1' for 'version': expected 1"]),
        (#"{"stages": [1]}"#, ["'stages' must be an object", "got an array"]),
        (#"{"stages": {"compose0": "golden"}}"#, ["'stages.compose0' must be an object", "got a string"]),
        (#"{"stages": {"compose0": {"rule": ["golden"]}}}"#, ["'stages.compose0.rule' must be a string, number or boolean, got an array"]),
        (#"{"stages": {"compose0": {"rule": null}}}"#, ["'stages.compose0.rule'", "got null"]),
    ])
    func badFilesAreRefusedNamingTheKey(text: String, expected: [String]) {
        let message = Self.refusal(text)
        for e in expected { #expect(message?.contains(e) == true, "\(message ?? "parsed") lacks \(e)") }
    }

    @Test func loadNamesAMissingOrUnreadableFile() throws {
        let dir = Self.directory()
        #expect(throws: HostError(.usage, "settings \(dir)/none.json: cannot read: no such file")) {
            try SettingsFile.load(path: "\(dir)/none.json")
        }
        #expect(throws: HostError(.usage, "settings \(dir): cannot read: is a directory, expected a JSON file")) {
            try SettingsFile.load(path: dir)
        }
        try Data(count: SettingsFile.sizeLimit + 1).write(to: URL(fileURLWithPath: "\(dir)/huge.json"))
        #expect(
            throws: HostError(
                .usage, "settings \(dir)/huge.json: cannot read: 1048577 bytes, expected a JSON file of at most 1048576")
        ) {
            try SettingsFile.load(path: "\(dir)/huge.json")
        }
        try Data(#"{"stages": {"compose0": {"rule": "golden"}}}"#.utf8).write(to: URL(fileURLWithPath: "\(dir)/c.json"))
        #expect(try SettingsFile.load(path: "\(dir)/c.json").stages == ["compose0": ["rule": .string("golden")]])
    }

    /// The compose rule and ringlight opacity a description gets with these settings and overrides.
    static func values(_ description: String, settings: SettingsFile?, set overrides: [String] = []) throws -> (String, String) {
        var o = SessionOptions()
        o.settings = settings
        o.overrides = overrides
        let session = try Session(description: description, options: o)
        return (
            session.propertyValues(ofStage: "compose0")?["rule"]?.description ?? "?",
            session.propertyValues(ofStage: "ringlight0")?["opacity"]?.description ?? "?"
        )
    }

    @Test func descriptionThenSettingsThenSetOverrides() throws {
        let d = "videotestsrc num-buffers=1 ! compose rule=thirds ! ringlight opacity=90 ! fakesink"
        let settings = SettingsFile(path: "c.json", stages: ["compose0": ["rule": .string("golden")], "ringlight0": ["opacity": .int(40)]])
        #expect(try Self.values(d, settings: nil) == ("thirds", "90"))
        #expect(try Self.values(d, settings: settings) == ("golden", "40"))
        #expect(try Self.values(d, settings: settings, set: ["compose0.rule=center"]) == ("center", "40"))
        #expect(try Self.values(d, settings: settings, set: ["ringlight.opacity=20"]) == ("golden", "20"))
        // A name= given in the description is the name the file uses.
        let named = SettingsFile(path: "c.json", stages: ["door": ["rule": .string("edges")]])
        var o = SessionOptions()
        o.settings = named
        let session = try Session(description: "videotestsrc num-buffers=1 ! compose name=door ! fakesink", options: o)
        #expect(session.propertyValues(ofStage: "door")?["rule"] == .choice("edges"))
    }

    @Test func stageSettingsThatDoNotFitTheDescriptionAreUsageErrors() throws {
        let d = "videotestsrc num-buffers=1 ! compose ! ringlight ! identity ! fakesink"
        func refusal(_ stages: [String: [String: SettingsFile.Value]]) -> HostError? {
            var o = SessionOptions()
            o.settings = SettingsFile(path: "c.json", stages: stages)
            do { _ = try Session(description: d, options: o) } catch { return error }
            return nil
        }
        #expect(
            refusal(["compose1": ["rule": .string("golden")]])
                == HostError(.usage, "settings c.json: stage 'compose1' is not in the description: its stages are compose0, ringlight0"))
        // An element is not a stage: the file holds stage settings only.
        #expect(refusal(["identity0": ["silent": .bool(true)]])?.message.contains("stage 'identity0' is not in the description") == true)
        let unknown = refusal(["compose0": ["zoom": .int(2)]])
        #expect(
            unknown?.message.hasPrefix("settings c.json: compose0 has no property 'zoom'; properties are: ") == true,
            "\(String(describing: unknown))")
        #expect(unknown?.message.contains("rule") == true)
        #expect(
            refusal(["ringlight0": ["opacity": .int(500)]])
                == HostError(.usage, "settings c.json: ringlight0: bad value '500' for property 'opacity': expected integer 10 - 100"))
        #expect(refusal(["compose0": ["rule": .string("golden")]]) == nil)
    }

    /// The host's own description elements take settings too: `rtspserve`'s credentials file (and its method) from
    /// the settings file, so neither the description nor the command line carries them; a bad value is refused as a
    /// stage's is, naming the file.
    @Test func rtspserveCredentialsComeFromTheSettingsFile() throws {
        let dir = Self.directory()
        let users = "\(dir)/users"
        try Data("alice:secret-one\n".utf8).write(to: URL(fileURLWithPath: users))
        chmod(users, 0o600)
        var o = SessionOptions()
        o.settings = SettingsFile(path: "c.json", stages: ["rtspserve0": ["auth-file": .string(users), "auth": .string("basic")]])
        let session = try Session(description: "videotestsrc ! x264enc ! rtph264pay ! rtspserve port=\(Tools.freePort())", options: o)
        defer { session.close() }
        let serve = try #require(session.services(RTSPServeService.self).first).serve
        #expect(serve.credentials?.file == users)
        #expect(serve.credentials?.method == .basic)
        #expect(serve.credentials?.users.map(\.user) == ["alice"])
        o.settings = SettingsFile(path: "c.json", stages: ["rtspserve0": ["auth": .string("ntlm")]])
        #expect(throws: HostError.self) { _ = try Session(description: "videotestsrc ! x264enc ! rtph264pay ! rtspserve", options: o) }
    }

    @Test func recordKeepsTheOtherKeysAndSaveWritesThemAtomically() throws {
        let dir = Self.directory()
        let path = "\(dir)/c.json"
        try Data(
            #"{"version": 1, "server": {"http": "127.0.0.1:8080", "token": "s3cret"}, "stages": {"grid0": {"lines": "thirds"}}}"#.utf8
        ).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o600) == 0)
        var s = try SettingsFile.load(path: path)
        s.record(stage: "compose0", [("rule", .choice("golden")), ("overlay", .bool(false))])
        s.record(stage: "ringlight0", [("opacity", .int(40)), ("preset", .choice("warm-cream"))])
        s.record(stage: "grid1", [("lines", .set(["thirds", "diagonals"]))])
        s.record(stage: "compose0", [("analysis-fps", .double(2.5))])
        try s.save()
        // What is on disk: every key, typed; the server options as they were; nothing else in the directory.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let top = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(top["version"] as? Int == 1)
        #expect(top["server"] as? [String: String] == ["http": "127.0.0.1:8080", "token": "s3cret"])
        let stages = try #require(top["stages"] as? [String: [String: Any]])
        #expect(stages["grid0"]?["lines"] as? String == "thirds")
        #expect(stages["grid1"]?["lines"] as? String == "thirds+diagonals")
        #expect(stages["compose0"]?["rule"] as? String == "golden")
        #expect(stages["compose0"]?["overlay"] as? Bool == false)
        #expect(stages["compose0"]?["analysis-fps"] as? Double == 2.5)
        #expect(stages["ringlight0"]?["opacity"] as? Int == 40)
        #expect(stages["ringlight0"]?["preset"] as? String == "warm-cream")
        #expect(text.hasSuffix("}\n") && text.contains("\"opacity\" : 40"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["c.json"])
        // The file keeps its permissions (it may hold a token).
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        // And reads back as what was saved.
        #expect(try SettingsFile.load(path: path) == s)
    }

    @Test func aNewFileIsCreatedBySave() throws {
        let dir = Self.directory()
        let s = SettingsFile(path: "\(dir)/new.json", stages: ["ringlight0": ["opacity": .int(30)]])
        try s.save()
        #expect(
            try String(contentsOfFile: "\(dir)/new.json", encoding: .utf8)
                == "{\n  \"stages\" : {\n    \"ringlight0\" : {\n      \"opacity\" : 30\n    }\n  },\n  \"version\" : 1\n}\n")
    }

    @Test func aSymbolicLinkStaysOneAndItsTargetIsReplaced() throws {
        let dir = Self.directory()
        try FileManager.default.createDirectory(atPath: "\(dir)/real", withIntermediateDirectories: false)
        try Data(#"{"stages": {"grid0": {"lines": "thirds"}}}"#.utf8).write(to: URL(fileURLWithPath: "\(dir)/real/c.json"))
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/link.json", withDestinationPath: "real/c.json")
        var s = try SettingsFile.load(path: "\(dir)/link.json")
        s.record(stage: "grid0", [("lines", .set(["golden"]))])
        try s.save()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/link.json") == "real/c.json")
        #expect(try SettingsFile.load(path: "\(dir)/real/c.json").stages == ["grid0": ["lines": .string("golden")]])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/real") == ["c.json"])
    }

    @Test func aFailedSaveNamesTheFileAndLeavesNothingBehind() throws {
        let dir = Self.directory()
        // The directory is gone.
        #expect(throws: HostError(.runtime, "settings: cannot write \(dir)/gone/c.json: No such file or directory")) {
            try SettingsFile(path: "\(dir)/gone/c.json").save()
        }
        // The "directory" is a file.
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(dir)/file"))
        #expect(throws: HostError(.runtime, "settings: cannot write \(dir)/file/c.json: Not a directory")) {
            try SettingsFile(path: "\(dir)/file/c.json").save()
        }
        // A directory nobody may create files in, root included (sysfs).
        #expect(throws: HostError(.runtime, "settings: cannot write /sys/c.json: Permission denied")) {
            try SettingsFile(path: "/sys/c.json").save()
        }
        // The target is a directory: the rename fails, the old content stays, the temp file is removed.
        try FileManager.default.createDirectory(atPath: "\(dir)/c.json", withIntermediateDirectories: false)
        #expect(throws: HostError(.runtime, "settings: cannot write \(dir)/c.json: Is a directory")) {
            try SettingsFile(path: "\(dir)/c.json").save()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["c.json", "file"])
    }

    @Test(.enabled(if: getuid() != 0, "root writes into read-only directories")) func anUnwritableDirectoryIsReported() throws {
        let dir = Self.directory()
        #expect(chmod(dir, 0o500) == 0)
        defer { chmod(dir, 0o700) }
        #expect(throws: HostError(.runtime, "settings: cannot write \(dir)/c.json: Permission denied")) {
            try SettingsFile(path: "\(dir)/c.json").save()
        }
        #expect(throws: HostError(.usage, "settings \(dir)/c.json: cannot save there: directory '\(dir)': Permission denied")) {
            try SettingsFile.checkWritable(path: "\(dir)/c.json")
        }
    }

    @Test func checkWritableWantsAnExistingDirectory() throws {
        let dir = Self.directory()
        try SettingsFile.checkWritable(path: "\(dir)/c.json")
        #expect(throws: HostError(.usage, "settings \(dir)/no/c.json: cannot save there: directory '\(dir)/no' does not exist")) {
            try SettingsFile.checkWritable(path: "\(dir)/no/c.json")
        }
    }

    @Test(arguments: [
        ("pipelines/x.pipeline", "pipelines/x.json"), ("x.pipeline", "x.json"), ("/a.b/door", "/a.b/door.json"),
        ("d/.hidden", "d/.hidden.json"), ("a.b.pipeline", "a.b.json"),
    ])
    func theFileBesideAPipeline(file: String, settings: String) {
        #expect(SettingsFile.beside(pipelineFile: file) == settings)
    }

    @Test func tokenFileIsReadRelativeToTheSettingsFile() throws {
        let dir = Self.directory()
        try Data("  s3cret \nsecond line\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/token.txt"))
        let s = SettingsFile(path: "\(dir)/c.json", server: .init(tokenFile: "token.txt"))
        #expect(try s.tokenFromFile() == "s3cret")
        #expect(try SettingsFile(path: "\(dir)/c.json").tokenFromFile() == nil)
        let missing = SettingsFile(path: "\(dir)/c.json", server: .init(tokenFile: "none.txt"))
        #expect(
            throws: HostError(
                .usage, "settings \(dir)/c.json: cannot read 'server.tokenFile' \(dir)/none.txt: expected a file holding the token")
        ) {
            try missing.tokenFromFile()
        }
    }
}
