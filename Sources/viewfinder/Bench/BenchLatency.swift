import Foundation
import ViewfinderBench

/// `bench latency`: the delay a stage group adds, compose against the same pipeline without stages, at once.
struct BenchLatency: BenchKind {
    static let name = "latency"
    static let takesSeconds = true
    let seconds: Double

    init(_ arguments: BenchArguments) { seconds = arguments.seconds ?? 10 }

    func run() throws {
        print(
            "bench latency: live \(Bench.liveSource(name: "src")) ! compose ! fakesink sync=false, against the same without stages; "
                + String(
                    format: "both sessions at once, %.1f s (longer until each side has %d frames) after 1 s of warm-up; ", seconds,
                    Int(seconds * 30))
                + "delay = the sink's running time when a frame reaches its pad - the frame's running time (pts)")
        let r = try Bench.latency(seconds: seconds)
        Self.printFigures(r)
    }

    /// The figures of `bench latency`: both distributions, their difference, the latency queries.
    static func printFigures(_ r: Bench.LatencyResult) {
        print(
            String(
                format: "machine: %d processors, load average %.1f at the start, %.1f at the end", r.processors, r.loadAverage.start,
                r.loadAverage.end))
        for (name, s) in [("without stages", r.peer), ("compose", r.ours)] {
            print(
                String(
                    format: "%@: %d frames measured, delay p50 %.2f ms, p95 %.2f ms, mean %.2f ms, min %.2f ms, max %.2f ms; "
                        + "source %.1f fps; %d dropped by the host over the whole run", name, s.frames, s.p50, s.p95, s.mean, s.min,
                    s.max, s.sourceFPS, s.dropped))
        }
        print(String(format: "added by compose: p50 %+.2f ms, p95 %+.2f ms (measured over %.1f s)", r.addedP50, r.addedP95, r.seconds))
        func q(_ a: Bench.LatencyAnswer?) -> String { a?.text ?? "no answer" }
        print("latency query upstream from fakesink's pad, without stages: \(q(r.peer.sinkLatency))")
        print(
            "latency query upstream from fakesink's pad, compose: \(q(r.ours.sinkLatency)) (appsrc: the source's + the stage budget); "
                + "from the source segment's appsink: \(q(r.ours.sourceLatency))")
    }
}
