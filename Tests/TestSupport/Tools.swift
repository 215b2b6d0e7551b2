import Foundation

/// Runs the built `viewfinder` binary and real GStreamer/FFmpeg clients for the CLI tests.
public enum Tools {
    /// The `viewfinder` executable next to the test bundle.
    public static var viewfinder: String {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let p = candidate.appendingPathComponent("viewfinder").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/viewfinder").path
    }

    /// The repository root (for pipelines/).
    public static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Result of a finished process.
    public struct Result: Sendable {
        public var code: Int32; public var out: String; public var err: String
        /// The signal that ended the process (a crash: SIGILL, SIGSEGV, SIGABRT...), nil after a normal exit.
        public var signal: Int32? = nil
        /// True when it had to be killed: still running `timeout` s after it started (and, with an
        /// interrupt grace, still running that long after a SIGINT too).
        public var hung = false

        public init(code: Int32, out: String, err: String, signal: Int32? = nil, hung: Bool = false) {
            self.code = code; self.out = out; self.err = err; self.signal = signal; self.hung = hung
        }
    }

    /// Starts a process with stdout/stderr captured to files.
    public static func start(_ exe: String, _ args: [String], cwd: URL? = nil, environment: [String: String]? = nil) throws -> (Process, URL, URL)
    {
        let p = Process()
        if let environment { p.environment = environment }
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        if let cwd { p.currentDirectoryURL = cwd }
        let o = FileManager.default.temporaryDirectory.appendingPathComponent("vf-out-\(UUID().uuidString)")
        let e = FileManager.default.temporaryDirectory.appendingPathComponent("vf-err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: o.path, contents: nil)
        FileManager.default.createFile(atPath: e.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: o)
        p.standardError = try FileHandle(forWritingTo: e)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return (p, o, e)
    }

    /// Waits (bounded) and collects the output. With `interruptGrace`, a process still running after
    /// `timeout` first gets SIGINT (Ctrl-C: end of stream) and that many more seconds before SIGKILL;
    /// `hung` says it had to be killed.
    public static func finish(_ p: Process, _ o: URL, _ e: URL, timeout: Double = 120, interruptGrace: Double? = nil) -> Result {
        func wait(_ seconds: Double) {
            let deadline = Date().addingTimeInterval(seconds)
            while p.isRunning && Date() < deadline { usleep(20_000) }
        }
        wait(timeout)
        if p.isRunning, let interruptGrace {
            kill(p.processIdentifier, SIGINT)
            wait(interruptGrace)
        }
        let hung = p.isRunning
        if hung { p.terminate(); kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        let out = (try? String(contentsOf: o, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: e, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: o); try? FileManager.default.removeItem(at: e)
        let signal = p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil
        return Result(code: p.terminationStatus, out: out, err: err, signal: hung ? SIGKILL : signal, hung: hung)
    }

    /// Runs a program to the end.
    public static func run(
        _ exe: String, _ args: [String], cwd: URL? = nil, environment: [String: String]? = nil, timeout: Double = 120,
        interruptGrace: Double? = nil
    ) throws -> Result {
        let (p, o, e) = try start(exe, args, cwd: cwd, environment: environment)
        return finish(p, o, e, timeout: timeout, interruptGrace: interruptGrace)
    }

    /// Runs `viewfinder ARGS`.
    public static func vf(_ args: String..., cwd: URL? = nil, timeout: Double = 120) throws -> Result {
        try run(viewfinder, args, cwd: cwd, timeout: timeout)
    }

    /// Connects the TCP socket `fd` to 127.0.0.1:`port` (blocking); whether it connected (errno says why not).
    public static func connectLoopback(_ fd: Int32, port: UInt16) -> Bool {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// A loopback port nothing is bound to right now (TCP, or UDP with `udp`): bound to 0, read back, closed.
    public static func freePort(udp: Bool = false) -> UInt16 {
        let fd = socket(AF_INET, Int32((udp ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: a.sin_port)
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = port.bigEndian
        let r = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return r == 0
    }

    /// A fresh empty directory.
    public static func tempDir() -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Frames ffprobe decodes in the first video stream.
    public static func ffprobeFrames(_ file: String) throws -> Int {
        let r = try run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0",
                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file,
            ])
        return Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").first ?? "") ?? -1
    }

    /// Per-frame presentation times (s) and sizes of the first video stream, by ffprobe.
    public static func ffprobeVideoFrames(_ file: String) throws -> [(pts: Double, width: Int, height: Int)] {
        let r = try run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "frame=pts_time,width,height", "-of", "json", file,
            ])
        guard let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any],
            let frames = obj["frames"] as? [[String: Any]]
        else { return [] }
        return frames.map { f in
            (Double(f["pts_time"] as? String ?? "") ?? -1, f["width"] as? Int ?? 0, f["height"] as? Int ?? 0)
        }
    }

    /// Stream types ffprobe finds ("video", "audio").
    public static func ffprobeStreams(_ file: String) throws -> [String] {
        let r = try run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", file])
        return r.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Decodes an image or the first frame of a video with gst-launch-1.0 into 8-bit luma.
    public static func luma(of file: String, decoder: String = "decodebin") throws -> (pixels: [UInt8], width: Int, height: Int) {
        let info = try run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=width,height", "-of", "csv=p=0", file,
            ])
        let wh = info.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("vf-luma-\(UUID().uuidString).gray").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let r = try run(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "filesrc", "location=\(file)", "!", decoder, "!", "videoconvert", "!",
                "video/x-raw,format=GRAY8", "!", "filesink", "location=\(raw)",
            ])
        guard r.code == 0, wh.count == 2, let data = FileManager.default.contents(atPath: raw) else { return ([], 0, 0) }
        return (Array(data.prefix(wh[0] * wh[1])), wh[0], wh[1])
    }

    /// Mean luma of a column over all rows.
    public static func columnMean(_ img: (pixels: [UInt8], width: Int, height: Int), x: Int) -> Double {
        guard img.width > 0 else { return -1 }
        var s = 0
        for y in 0..<img.height { s += Int(img.pixels[y * img.width + x]) }
        return Double(s) / Double(img.height)
    }

    /// Files in a directory with a suffix, sorted.
    public static func files(in dir: URL, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(suffix) }.sorted()
    }
}
