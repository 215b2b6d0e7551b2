import Foundation
import Host
import Timing

/// `viewfinder bench plugin`: the stages as a GStreamer plugin (libgstviewfinder.so in stock gst-launch-1.0)
/// against `identity` in the same tool and against the host running the same stages, alternating, one run.
public enum PluginBench {
    /// Best frames per second of each side.
    public struct Result: Sendable {
        /// Frames per run.
        public var frames: Int
        /// gst-launch-1.0: `identity`, `vfpassthrough`, `vfgrid`.
        public var identity: Double, vfpassthrough: Double, vfgrid: Double
        /// The host (in process): `passthrough`, `grid`.
        public var hostPassthrough: Double, hostGrid: Double
        /// The plugin used.
        public var plugin: String

        /// `fps` as a fraction of identity's.
        public func ofIdentity(_ fps: Double) -> Double { identity > 0 ? fps / identity : 0 }
    }

    /// The built plugin next to the running executable (`.build/<config>/libgstviewfinder.so`), else the
    /// installed one (launch/install-plugin).
    public static func findPlugin() -> String? {
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [
            exe.deletingLastPathComponent().appendingPathComponent("libgstviewfinder.so").path,
            FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/gstreamer-1.0/plugins/libgstviewfinder.so").path,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Runs each side `rounds` times on `frames` 1920x1080 I420 frames; gst-launch-1.0's own "Execution ended
    /// after" (PLAYING to EOS) times its runs, wall time around `Session.run` times the host's.
    public static func run(frames: Int = 300, rounds: Int = 3, log: (String) -> Void = { _ in }) throws(HostError) -> Result {
        guard let plugin = findPlugin() else {
            throw HostError(.usage, "bench plugin: no libgstviewfinder.so next to the viewfinder binary nor installed: run 'swift build' or launch/install-plugin")
        }
        // A directory holding only the plugin, and a private registry: a failed load never blacklists it for the user.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-plugin-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("plugins"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: dir.appendingPathComponent("plugins/libgstviewfinder.so"), withDestinationURL: URL(fileURLWithPath: plugin))
        } catch {
            throw HostError(.runtime, "bench plugin: cannot prepare \(dir.path): \(error.localizedDescription)")
        }
        var env = ProcessInfo.processInfo.environment
        env["GST_PLUGIN_PATH"] = dir.appendingPathComponent("plugins").path
        env["GST_REGISTRY"] = dir.appendingPathComponent("registry.bin").path
        let source = "videotestsrc num-buffers=\(frames) ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
        var best = Result(frames: frames, identity: 0, vfpassthrough: 0, vfgrid: 0, hostPassthrough: 0, hostGrid: 0, plugin: plugin)
        for round in 1...rounds {
            let id = try launch("\(source) ! identity ! fakesink", env: env, frames: frames)
            let vp = try launch("\(source) ! vfpassthrough ! fakesink", env: env, frames: frames)
            let vg = try launch("\(source) ! vfgrid ! fakesink", env: env, frames: frames)
            let hp = try host("\(source) ! passthrough ! fakesink", frames: frames)
            let hg = try host("\(source) ! grid ! fakesink", frames: frames)
            best.identity = max(best.identity, id); best.vfpassthrough = max(best.vfpassthrough, vp); best.vfgrid = max(best.vfgrid, vg)
            best.hostPassthrough = max(best.hostPassthrough, hp); best.hostGrid = max(best.hostGrid, hg)
            log(
                String(
                    format: "round %d: gst-launch-1.0 identity %.1f, vfpassthrough %.1f, vfgrid %.1f fps; host passthrough %.1f, grid %.1f fps",
                    round, id, vp, vg, hp, hg))
        }
        return best
    }

    /// Frames per second of one gst-launch-1.0 run, from its "Execution ended after H:MM:SS.nnnnnnnnn".
    static func launch(_ description: String, env: [String: String], frames: Int) throws(HostError) -> Double {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = description.split(separator: " ").map(String.init)
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { throw HostError(.runtime, "bench plugin: cannot run gst-launch-1.0: \(error.localizedDescription)") }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0, let line = text.split(separator: "\n").first(where: { $0.contains("Execution ended after") }),
            let seconds = parseDuration(String(line)), seconds > 0
        else {
            throw HostError(.runtime, "bench plugin: gst-launch-1.0 \(description) failed (exit \(p.terminationStatus)): \(problems)\(text.suffix(300))")
        }
        return Double(frames) / seconds
    }

    /// Seconds in "Execution ended after 0:00:01.234567890".
    static func parseDuration(_ line: String) -> Double? {
        guard let t = line.split(separator: " ").last else { return nil }
        let parts = t.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    /// Frames per second of the host running `description` (wall time around `Session.run`).
    static func host(_ description: String, frames: Int) throws(HostError) -> Double {
        let s = try Session(description: description)
        let t0 = SystemClock.shared.now
        guard s.run() == 0 else { throw HostError(.runtime, "bench plugin: host run failed: \(s.errors.joined(separator: "; "))") }
        return Double(frames) / SystemClock.shared.elapsed(since: t0)
    }
}
