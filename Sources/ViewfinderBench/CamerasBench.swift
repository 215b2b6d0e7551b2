import Foundation
import Host

/// `bench cameras N`: N live 720p30 `compose ! x264enc` cameras in one `viewfinder serve` process, against the same N
/// as N `viewfinder launch` processes, in one run. Every figure comes from the processes' own `GET /metrics` (read
/// with curl at the start and the end of the window): frames out, drops and analyses per camera, and each process's
/// CPU seconds and resident memory. The serve side starts with one camera (its memory read after the warm-up) and
/// gets the others through `POST /api/pipelines`, so "each camera after the first" is measured in one process.
extension Bench {
    /// One side's figures.
    public struct CamerasSide: Sendable {
        /// Frames out per second, per camera.
        public var fps: [Double] = []
        /// Analyses per second, per camera (how fresh the guidance is).
        public var analyses: [Double] = []
        /// Frames the host dropped in the window, all cameras.
        public var dropped: Int = 0
        /// CPU seconds of the window / its wall seconds / processors (1 = every core busy).
        public var cpuShare: Double = 0
        /// Resident memory at the end, all processes (MB).
        public var residentMB: Double = 0
    }

    /// Both sides, and the serve process's memory with one camera.
    public struct CamerasResult: Sendable {
        public var count: Int
        public var seconds: Double
        public var processors: Int
        public var serve: CamerasSide
        public var launch: CamerasSide
        /// The serve process with its first camera, after the warm-up (MB).
        public var firstCameraMB: Double
        /// (serve with N - serve with 1) / (N - 1), MB; 0 for one camera.
        public var furtherCameraMB: Double { count > 1 ? (serve.residentMB - firstCameraMB) / Double(count - 1) : 0 }
    }

    /// A camera as `bench cameras` runs it; `metadata` for compose's JSON lines (nil: none).
    public static func cameraDescription() -> String {
        "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 "
            + "! compose ! x264enc tune=zerolatency speed-preset=ultrafast ! fakesink sync=false"
    }

    /// Runs both sides with `executable` (the running viewfinder); `warmUp` s before each window of `seconds`.
    public static func cameras(count: Int, seconds: Double, warmUp: Double = 3, executable: String) throws(HostError) -> CamerasResult {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-cameras-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data((cameraDescription() + "\n").utf8).write(to: dir.appendingPathComponent("cam1.pipeline"))
        } catch { throw HostError(.runtime, "bench cameras: cannot prepare \(dir.path): \(error.localizedDescription)") }

        // serve: one camera, its memory; then the others through the API.
        let serve = try BenchProcess(executable, ["serve", dir.path, "--http", "127.0.0.1:0"])
        defer { serve.stop() }
        try serve.waitMetrics { $0.contains(#"viewfinder_pipeline_status{pipeline="cam1",state="playing"} 1"#) }
        Thread.sleep(forTimeInterval: warmUp)
        let first = MetricsText(serve.get("/metrics")).value("process_resident_memory_bytes") / 1e6
        for i in 2...max(2, count) where i <= count {
            let body = #"{"name": "cam\#(i)", "description": "\#(cameraDescription())"}"#
            let answer = serve.post("/api/pipelines", Data(body.utf8))
            guard answer.contains("\"name\":\"cam\(i)\"") else { throw HostError(.runtime, "bench cameras: adding cam\(i) failed: \(answer)") }
        }
        try serve.waitMetrics { text in (1...count).allSatisfy { text.contains(#"viewfinder_pipeline_status{pipeline="cam\#($0)",state="playing"} 1"#) } }
        Thread.sleep(forTimeInterval: warmUp)
        let served = try window([serve], names: (1...count).map { "cam\($0)" }, seconds: seconds, processors: processors)
        serve.stop()

        // launch: N processes of one camera each.
        var launches: [BenchProcess] = []
        defer { for p in launches { p.stop() } }
        for _ in 0..<count {
            launches.append(try BenchProcess(executable, ["launch", "--quiet", "--http", "127.0.0.1:0", cameraDescription()]))
        }
        for p in launches { try p.waitMetrics { $0.contains(#"viewfinder_pipeline_state{pipeline="main",state="running"} 1"#) } }
        Thread.sleep(forTimeInterval: warmUp)
        let launched = try window(launches, names: ["main"], seconds: seconds, processors: processors)
        return CamerasResult(count: count, seconds: seconds, processors: processors, serve: served, launch: launched, firstCameraMB: first)
    }

    /// Reads every process's /metrics, waits `seconds`, reads again: the side's figures over the window.
    static func window(_ processes: [BenchProcess], names: [String], seconds: Double, processors: Int) throws(HostError) -> CamerasSide {
        let before = processes.map { MetricsText($0.get("/metrics")) }
        let start = Date()
        Thread.sleep(forTimeInterval: seconds)
        let after = processes.map { MetricsText($0.get("/metrics")) }
        let wall = Date().timeIntervalSince(start)
        var side = CamerasSide()
        var cpu = 0.0
        for (b, a) in zip(before, after) {
            for name in names {
                let label = #"{pipeline="\#(name)"}"#
                side.fps.append((a.value("viewfinder_frames_out_total" + label) - b.value("viewfinder_frames_out_total" + label)) / wall)
                side.dropped += Int(a.value("viewfinder_frames_dropped_total" + label) - b.value("viewfinder_frames_dropped_total" + label))
                let analyses = #"viewfinder_analyses_total{pipeline="\#(name)",stage="compose0"}"#
                side.analyses.append((a.value(analyses) - b.value(analyses)) / wall)
            }
            cpu += a.value("process_cpu_seconds_total") - b.value("process_cpu_seconds_total")
            side.residentMB += a.value("process_resident_memory_bytes") / 1e6
        }
        side.cpuShare = cpu / wall / Double(max(1, processors))
        return side
    }
}

/// A Prometheus text as `name{labels} value` lines: the value of a series written exactly as the text writes it.
struct MetricsText {
    private var values: [String: Double] = [:]
    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let v = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = v
        }
    }
    /// The series' value, 0 when absent.
    func value(_ series: String) -> Double { values[series] ?? 0 }
}

/// A `viewfinder` child with its control server on a loopback port it chose (`--http 127.0.0.1:0`, read back from its
/// `control: URL` line), talked to with curl.
final class BenchProcess: @unchecked Sendable {
    let process = Process()
    private(set) var port: UInt16 = 0
    let log: URL

    init(_ executable: String, _ arguments: [String]) throws(HostError) {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-child-\(UUID().uuidString).log")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        do {
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        } catch { throw HostError(.runtime, "bench cameras: cannot start \(executable): \(error.localizedDescription)") }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && process.isRunning {
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let m = said.firstMatch(of: /control: http:\/\/127\.0\.0\.1:(\d+)\//), let p = UInt16(m.output.1) {
                port = p
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw HostError(.runtime, "bench cameras: \(arguments.first ?? "") did not listen in 30 s")
    }

    /// Waits (at most 30 s) until its /metrics holds `ready`.
    func waitMetrics(_ ready: (String) -> Bool) throws(HostError) {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if ready(get("/metrics")) { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw HostError(.runtime, "bench cameras: \(process.arguments?.first ?? "") did not play in 30 s: \(said.suffix(400))")
    }

    func get(_ path: String) -> String { curl(["-s", "--max-time", "5", "http://127.0.0.1:\(port)\(path)"]) }

    func post(_ path: String, _ body: Data) -> String {
        curl(["-s", "--max-time", "30", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", String(decoding: body, as: UTF8.self),
              "http://127.0.0.1:\(port)\(path)"])
    }

    private func curl(_ arguments: [String]) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Ctrl-C, then SIGKILL after 10 s.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}
