import Foundation

/// Runs stock GStreamer tools (gst-launch-1.0, gst-inspect-1.0) and python3 against the built plugin.
///
/// The plugin is found through `GST_PLUGIN_PATH` at a directory holding only a link to the built
/// `libgstviewfinder.so`, and every run uses a private registry file (`GST_REGISTRY`), so a failed load
/// can never blacklist the plugin in the user's registry.
enum PluginTools {
    struct Result {
        var code: Int32
        var out: String
        var err: String
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built plugin: .build/debug/libgstviewfinder.so (swift build --build-tests builds it).
    static var library: URL { root.appendingPathComponent(".build/debug/libgstviewfinder.so") }

    /// One directory per test process with a link to the plugin, and the private registry next to it.
    static let work: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-plugin-\(getpid())")
        try? FileManager.default.createDirectory(at: d.appendingPathComponent("plugins"), withIntermediateDirectories: true)
        let link = d.appendingPathComponent("plugins/libgstviewfinder.so")
        try? FileManager.default.removeItem(at: link)
        try? FileManager.default.createSymbolicLink(at: link, withDestinationURL: library.resolvingSymlinksInPath())
        return d
    }()

    /// The environment of every tool run: the plugin directory, the private registry, no fork of the scanner
    /// skipped (the scanner is what loads the plugin as GStreamer does for users).
    static func environment(pluginDir: URL? = nil, registry: URL? = nil) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["GST_PLUGIN_PATH"] = (pluginDir ?? work.appendingPathComponent("plugins")).path
        env["GST_REGISTRY"] = (registry ?? work.appendingPathComponent("registry.bin")).path
        env["GST_REGISTRY_UPDATE"] = "yes"
        env.removeValue(forKey: "GST_DEBUG")
        return env
    }

    /// A fresh empty directory.
    static func tempDir() -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-plugin-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Runs `exe args` with the plugin environment; kills it after `timeout` s.
    static func run(_ exe: String, _ args: [String], environment env: [String: String]? = nil, timeout: Double = 30) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.environment = env ?? environment()
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read both pipes while it runs (a full pipe would stall the tool).
        let group = DispatchGroup()
        nonisolated(unsafe) var o = Data(), e = Data()
        DispatchQueue.global().async(group: group) { o = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { e = err.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning {
            p.terminate()
            usleep(200_000)
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        p.waitUntilExit()
        group.wait()
        return Result(code: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
    }

    /// `gst-launch-1.0 ARGS` (the description split on spaces, as a shell would for these tests).
    static func launch(_ description: String, messages: Bool = false, timeout: Double = 30) throws -> Result {
        let words = description.split(separator: " ").map(String.init)
        // -q would silence -m too.
        return try run("/usr/bin/gst-launch-1.0", (messages ? ["-m"] : ["-q"]) + words, timeout: timeout)
    }

    /// `gst-inspect-1.0 ARGS`.
    static func inspect(_ args: String...) throws -> Result { try run("/usr/bin/gst-inspect-1.0", args) }

    /// Why the plugin did not load, for test failures: gst-inspect-1.0 on the .so path itself prints the
    /// loader's error (wrong name, missing runtime, undefined symbol).
    static func loadDiagnosis() -> String {
        guard FileManager.default.fileExists(atPath: library.path) else {
            return "\(library.path) does not exist: build it with swift build --build-tests (product gstviewfinder)"
        }
        let r = try? run("/usr/bin/gst-inspect-1.0", [library.path])
        return "gst-inspect-1.0 \(library.path) exited \(r?.code ?? -1): \(r?.err ?? "")\(r?.out.prefix(400) ?? "")"
    }
}
