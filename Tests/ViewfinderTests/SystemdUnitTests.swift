import Foundation
import TestSupport
import Testing

/// `packaging/viewfinder@.service`: systemd's own checks of the shipped unit (`systemd-analyze verify`, and `security`
/// offline for its sandbox), and its command run as the unit runs it (working directory, ExecStartPre, the settings file
/// beside the pipeline, SIGTERM to stop).
@Suite(.serialized, .tags(.live, .process), .tier) struct SystemdUnitTests {
    static let unit = Tools.root.appendingPathComponent("packaging/viewfinder@.service")

    /// The unit's `Key=value` lines (the last one of a key that repeats), comments left out.
    static func settings() throws -> [String: String] {
        var out: [String: String] = [:]
        for line in try String(contentsOf: unit, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            out[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return out
    }

    /// The unit in a scratch directory with ExecStart's binary at this build's `viewfinder` (verify checks it exists),
    /// and the man page its `Documentation=man:viewfinder(1)` names in `man1/` there (verify runs `man` to find it).
    static func unitHere() throws -> URL {
        let d = Tools.tempDir()
        let text = try String(contentsOf: unit, encoding: .utf8).replacingOccurrences(of: "/usr/bin/viewfinder", with: Tools.viewfinder)
        try text.write(to: d.appendingPathComponent("viewfinder@.service"), atomically: true, encoding: .utf8)
        let man = d.appendingPathComponent("man1")
        try FileManager.default.createDirectory(at: man, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Tools.root.appendingPathComponent("packaging/viewfinder.1"), to: man.appendingPathComponent("viewfinder.1"))
        return d
    }

    @Test func systemdVerifiesTheUnitAndRatesItsSandboxOK() throws {
        let d = try Self.unitHere()
        var environment = ProcessInfo.processInfo.environment
        environment["MANPATH"] = d.path
        let verify = try Tools.run(
            "/usr/bin/systemd-analyze", ["verify", "./viewfinder@door.service"], cwd: d, environment: environment, timeout: 60)
        #expect(verify.code == 0 && verify.out.isEmpty && verify.err.isEmpty, "verify: \(verify.code) \(verify.out) \(verify.err)")
        let security = try Tools.run(
            "/usr/bin/systemd-analyze", ["security", "--offline=yes", "--threshold=20", "./viewfinder@door.service"], cwd: d, timeout: 60)
        // "→ Overall exposure level for viewfinder@door.service: 1.6 OK"; --threshold=20: exit 0 only at 2.0 or under.
        let overall = security.out.split(separator: "\n").first { $0.contains("Overall exposure level") }.map(String.init) ?? ""
        let level = overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(security.code == 0 && (level ?? 10) <= 2.0, "\(overall) \(security.err)")
        let s = try Self.settings()
        #expect(s["NoNewPrivileges"] == "yes" && s["ProtectSystem"] == "strict" && s["DynamicUser"] == "yes")
        #expect(s["StateDirectory"] == "viewfinder/%i" && s["WorkingDirectory"] == "/var/lib/viewfinder/%i")
        #expect(s["Restart"] == "on-failure" && s["KillSignal"] == "SIGTERM" && s["KillMode"] == "mixed")
    }

    /// The instance `door`: /etc/viewfinder/door.pipeline records a live source to out/door.mkv, door.json beside it turns
    /// the control server on; run as ExecStartPre and ExecStart say, in the state directory, stopped by SIGTERM: the
    /// server answered while it ran, it ends 0 well within TimeoutStopSec, and the recording is finished (ffprobe reads
    /// every frame and its duration).
    @Test func theInstanceRunsFromEtcAndStopsCleanlyOnSIGTERM() throws {
        let s = try Self.settings()
        let etc = Tools.tempDir(), state = Tools.tempDir()
        let port = Tools.freePort()
        try "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! videoconvert\n  ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! matroskamux ! filesink location=out/door.mkv\n"
            .write(to: etc.appendingPathComponent("door.pipeline"), atomically: true, encoding: .utf8)
        try "{ \"version\": 1, \"server\": { \"http\": \"127.0.0.1:\(port)\" } }\n"
            .write(to: etc.appendingPathComponent("door.json"), atomically: true, encoding: .utf8)
        func command(_ key: String) throws -> [String] {
            let line = try #require(s[key]).replacingOccurrences(of: "/usr/bin/viewfinder", with: Tools.viewfinder)
                .replacingOccurrences(of: "/etc/viewfinder", with: etc.path).replacingOccurrences(of: "%i", with: "door")
            return line.split(separator: " ").map(String.init)
        }
        let pre = try command("ExecStartPre")
        #expect(try Tools.run(pre[0], Array(pre.dropFirst()), cwd: state, timeout: 10).code == 0)
        let start = try command("ExecStart")
        let (p, o, e) = try Tools.start(start[0], Array(start.dropFirst()), cwd: state)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        var answered = false
        for _ in 0..<100 where !answered {
            usleep(200_000)
            let r = try Tools.run("/usr/bin/curl", ["-s", "-f", "http://127.0.0.1:\(port)/api/state"], timeout: 5)
            answered = r.code == 0 && r.out.contains("\"state\"")
        }
        #expect(answered, "the settings file's control server never answered")
        sleep(1)
        kill(p.processIdentifier, SIGTERM)
        let stop = Double(s["TimeoutStopSec"] ?? "30") ?? 30
        let r = Tools.finish(p, o, e, timeout: stop)
        #expect(!r.hung && r.code == 0, "exit \(r.code): \(r.err)")
        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames:format=duration", "-of", "default=nw=1",
             state.appendingPathComponent("out/door.mkv").path], timeout: 30)
        let fields = Dictionary(
            probe.out.split(separator: "\n").compactMap { l -> (String, Double)? in
                let kv = l.split(separator: "=")
                return kv.count == 2 ? (String(kv[0]), Double(kv[1]) ?? -1) : nil
            }, uniquingKeysWith: { a, _ in a })
        #expect(probe.code == 0 && (fields["nb_read_frames"] ?? 0) >= 30 && (fields["duration"] ?? 0) >= 1, "\(probe.out) \(probe.err)")
    }
}
