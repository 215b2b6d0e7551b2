import Foundation
import Host
import Timing

/// `viewfinder bench rtsp`: the timing a strict recorder sees from `rtspserve` against a stock gst-rtsp-server
/// (a PyGObject `GstRtspServer` whose media is the same encode chain), both recorded at the same time by
/// `ffmpeg -rtsp_transport tcp -i URL -c copy -t SECONDS` (it keeps the RTP timestamps): "Non-monotonous DTS"
/// warnings, frames, and the spread of the steps between frames against 1/30 s.
public enum RTSPBench {
    /// What one side's recording shows.
    public struct Side: Sendable {
        /// ffmpeg's "Non-monotonous DTS" warnings while recording.
        public var dtsWarnings: Int
        /// Video frames recorded.
        public var frames: Int
        /// Steps between frames (presentation order) that are not 1/30 s within 1 ms.
        public var offSteps: Int
        /// The smallest and largest step (ms).
        public var minStep: Double, maxStep: Double

        /// Largest minus smallest step (ms): 0 for exact timing.
        public var spread: Double { maxStep - minStep }
    }

    /// Both sides of one run.
    public struct Result: Sendable {
        public var seconds: Double
        public var host: Side, stock: Side
    }

    /// The encode chain both servers run (the host's before `rtspserve`, the stock one's as its media).
    static let chain =
        "videotestsrc is-live=true ! video/x-raw,width=640,height=360,framerate=30/1 ! videoconvert ! video/x-raw,format=I420"
        + " ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! rtph264pay"

    /// The stock server: gst-rtsp-server through PyGObject, one shared media at /live on 127.0.0.1:PORT.
    static let stockServer = """
        import sys, gi
        gi.require_version('Gst', '1.0'); gi.require_version('GstRtspServer', '1.0')
        from gi.repository import Gst, GstRtspServer, GLib
        Gst.init(None)
        server = GstRtspServer.RTSPServer(); server.set_address('127.0.0.1'); server.set_service(sys.argv[1])
        factory = GstRtspServer.RTSPMediaFactory(); factory.set_launch('( ' + sys.argv[2] + ' name=pay0 )'); factory.set_shared(True)
        server.get_mount_points().add_factory('/live', factory)
        server.attach(None)
        print('ready', flush=True)
        GLib.MainLoop().run()
        """

    /// Runs both servers, records both for `seconds`, and reads the recordings.
    public static func run(seconds: Double) throws(HostError) -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-rtsp-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
            throw HostError(.runtime, "bench rtsp: cannot make \(dir.path): \(error.localizedDescription)")
        }
        // Two ports from the process id (a port in use is refused by name: rtspserve binds when the session is made).
        let hostPort = 20_000 + Int(getpid() % 20_000) * 2, stockPort = hostPort + 1
        let session = try Session(description: "\(chain) ! rtspserve port=\(hostPort) path=/live")
        try session.prepare()
        defer { session.close() }
        let ours = BackgroundRun(session, name: "vf-bench-rtsp")
        defer { ours.stop() }
        try ours.waitPlaying("rtspserve")
        let stock = try start("/usr/bin/python3", ["-c", stockServer, String(stockPort), chain], dir: dir, name: "stock")
        defer { if stock.isRunning { stock.terminate() }; stock.waitUntilExit() }
        // The stock server says "ready" once it listens.
        let clock = SystemClock.shared
        let ready = clock.now + 10
        while clock.now < ready && !((try? String(contentsOf: dir.appendingPathComponent("stock.out"), encoding: .utf8)) ?? "").contains("ready") {
            guard stock.isRunning else { throw HostError(.runtime, "bench rtsp: the stock server (python3 GstRtspServer) ended: \(text(dir, "stock.err"))") }
            clock.sleep(seconds: 0.05)
        }
        var recorders: [Process] = []
        for (name, port) in [("host", hostPort), ("stock", stockPort)] {
            recorders.append(try start(
                "/usr/bin/ffmpeg",
                ["-hide_banner", "-nostdin", "-rtsp_transport", "tcp", "-i", "rtsp://127.0.0.1:\(port)/live", "-c", "copy", "-t",
                 String(format: "%.1f", seconds), "-y", dir.appendingPathComponent("\(name).mp4").path],
                dir: dir, name: "\(name)-ffmpeg"))
        }
        let deadline = clock.now + seconds + 30
        for r in recorders {
            while r.isRunning && clock.now < deadline { clock.sleep(seconds: 0.05) }
            if r.isRunning { r.terminate() }
            r.waitUntilExit()
        }
        return Result(seconds: seconds, host: try side(dir, "host"), stock: try side(dir, "stock"))
    }

    /// One side's figures from its recording and ffmpeg's log.
    static func side(_ dir: URL, _ name: String) throws(HostError) -> Side {
        let warnings = text(dir, "\(name)-ffmpeg.err").components(separatedBy: "Non-monotonous DTS").count - 1
        let probe = try start(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", dir.appendingPathComponent("\(name).mp4").path],
            dir: dir, name: "\(name)-probe")
        probe.waitUntilExit()
        let times = text(dir, "\(name)-probe.out").split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.sorted()
        guard times.count >= 2 else { throw HostError(.runtime, "bench rtsp: the \(name) recording has \(times.count) frames: \(text(dir, "\(name)-ffmpeg.err").suffix(400))") }
        let steps = zip(times.dropFirst(), times).map { ($0 - $1) * 1000 }
        return Side(
            dtsWarnings: warnings, frames: times.count, offSteps: steps.filter { abs($0 - 1000.0 / 30) > 1 }.count,
            minStep: steps.min() ?? 0, maxStep: steps.max() ?? 0)
    }

    /// Starts a process with its output in DIR/NAME.out and DIR/NAME.err.
    static func start(_ exe: String, _ args: [String], dir: URL, name: String) throws(HostError) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        do {
            for (suffix, set) in [("out", { (h: FileHandle) in p.standardOutput = h }), ("err", { (h: FileHandle) in p.standardError = h })] {
                let url = dir.appendingPathComponent("\(name).\(suffix)")
                FileManager.default.createFile(atPath: url.path, contents: nil)
                set(try FileHandle(forWritingTo: url))
            }
            try p.run()
        } catch {
            throw HostError(.runtime, "bench rtsp: cannot start \(exe): \(error.localizedDescription)")
        }
        return p
    }

    static func text(_ dir: URL, _ name: String) -> String {
        (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
}
