import Foundation
import Host
import ViewfinderBench

/// `bench cameras N`: N live 720p30 compose + x264enc cameras in one `serve` process against N `launch` processes.
struct BenchCameras: BenchKind {
    static let name = "cameras"
    static let takesSeconds = true
    let count: Int
    let seconds: Double

    init(_ arguments: BenchArguments) { count = arguments.count ?? 7; seconds = arguments.seconds ?? 10 }

    /// The common checks, then a count of 1 - 16 (default 7); no `--max`, no `--photos`.
    static func check(_ arguments: BenchArguments) throws(HostError) {
        try arguments.checkCommon(takesSeconds: takesSeconds)
        if let count = arguments.count, !(1...16).contains(count) {
            throw HostError(.usage, "bad camera count '\(count)' for bench cameras: expected 1 - 16")
        }
        if arguments.searchMax { throw HostError(.usage, "--max is for bench streams only") }
        if arguments.photos != nil { throw HostError(.usage, "--photos is for bench faces only") }
    }

    func run() throws {
        print(
            "bench cameras: \(count) live cameras \(Bench.cameraDescription()); one serve process (the first camera, then the others "
                + String(format: "through POST /api/pipelines) against %d launch processes; %.1f s measured per side after 3 s of warm-up, ", count, seconds)
                + "figures from each process's GET /metrics")
        let r = try Bench.cameras(count: count, seconds: seconds, executable: URL(fileURLWithPath: CommandLine.arguments[0]).path)
        for (name, s) in [("serve (1 process)", r.serve), ("launch (\(r.count) processes)", r.launch)] {
            print(
                String(
                    format: "%@: fps per camera %@ (slowest %.1f); analyses per second per camera %@ (slowest %.1f); %d dropped; "
                        + "CPU %.0f%% of %d processors; RSS %.0f MB", name, Self.list(s.fps), s.fps.min() ?? 0, Self.list(s.analyses),
                    s.analyses.min() ?? 0, s.dropped, s.cpuShare * 100, r.processors, s.residentMB))
        }
        print(
            String(
                format: "serve memory: %.0f MB with the first camera, %.1f MB for each further camera; launch: %.1f MB per process",
                r.firstCameraMB, r.furtherCameraMB, r.launch.residentMB / Double(max(1, r.count))))
        print(
            String(
                format: "ratios serve/launch: CPU %.2f, RSS %.2f", r.launch.cpuShare > 0 ? r.serve.cpuShare / r.launch.cpuShare : 0,
                r.launch.residentMB > 0 ? r.serve.residentMB / r.launch.residentMB : 0))
        let fps = (r.serve.fps.min() ?? 0) >= Bench.holdingFPS
        let fresh = (r.serve.analyses.min() ?? 0) >= 5
        let memory = r.count < 2 || r.furtherCameraMB <= 40
        print(
            "goal (\(r.count) cameras in one process, \(r.processors) processors): 30 fps each \(fps ? "met" : "NOT met"); "
                + ">= 5 analyses per second each \(fresh ? "met" : "NOT met"); <= 40 MB per further camera \(memory ? "met" : "NOT met")")
    }

    static func list(_ values: [Double]) -> String { values.map { String(format: "%.1f", $0) }.joined(separator: " ") }
}
