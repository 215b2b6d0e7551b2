import Foundation
import ViewfinderBench

/// `bench control`: the control API on a live session: the preview with 0 and 1 viewer, requests, events.
struct BenchControl: BenchKind {
    static let name = "control"
    let frames: Int
    let rounds: Int

    init(_ arguments: BenchArguments) { frames = arguments.frames; rounds = arguments.rounds }

    func run() throws {
        print(
            "bench control: live videotestsrc pattern=ball 1280x720 I420 30 fps ! compose ! fakesink, control server on 127.0.0.1; "
                + "\(frames) frames per window, \(rounds) rounds alternating 0 and 1 preview viewer (curl on /api/preview.mjpeg)")
        let r = try Bench.control(frames: frames, rounds: rounds) { print($0) }
        Self.printFigures(r)
    }

    /// The figures of `bench control`, peers side by side (1 viewer against 0).
    static func printFigures(_ r: Bench.ControlResult) {
        let kb = r.jpegMeanBytes / 1024
        print(
            String(
                format: "machine: %d processors, load average %.1f at the start, %.1f at the end (wall times include waiting for the CPUs)",
                r.processors, r.loadAverage.start, r.loadAverage.end))
        print(
            String(
                format:
                    "preview: 0 viewers %.5f ms/frame in offer (p95 %.5f), CPU %.2f ms/frame; 1 viewer %.4f ms/frame in offer (p95 %.3f), "
                    + "CPU %.2f ms/frame; CPU ratio (1 viewer / 0) %.2f; %.1f JPEG/s, %dx%d, %.1f KB",
                r.idle.offerMeanMs, r.idle.offerP95Ms, r.idle.cpuMsPerFrame, r.watched.offerMeanMs, r.watched.offerP95Ms,
                r.watched.cpuMsPerFrame, r.cpuRatio, r.jpegPerSecond, r.jpegWidth, r.jpegHeight, kb))
        print(
            "preview frames: \(r.idle.frames) offered with 0 viewers (\(r.idle.offered) reduced), \(r.watched.frames) with 1 viewer "
                + "(\(r.watched.offered) reduced, \(r.watched.encoded) encoded, \(r.partsReceived) received by the viewer)")
        print(
            String(
                format: "preview reduction (1 viewer): worker CPU %.3f ms per reduced frame (p95 %.3f) over %d; one clock read %.0f ns "
                    + "(offer's own timing is two)", r.watched.reductionCPUMeanMs, r.watched.reductionCPUP95Ms, r.watched.reductions,
                r.clockReadNs))
        print(
            String(
                format:
                    "api: %.0f requests/s for %.0f s, open loop (latency from the planned send time to the parsed answer), URLSession, "
                    + "kept-alive connections, then %.0f s with a new connection each:",
                r.requestRate, r.requestSeconds, r.requestSeconds))
        for l in r.latencies {
            print(
                String(
                    format: "  %@: %d answers, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms; %d errors", l.request, l.count, l.p50,
                    l.p95,
                    l.p99, l.max, l.errors))
        }
        if let a = r.attack {
            let at = a.latencies.map { l in
                String(format: "%@ p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d answers, %d errors)", l.request, l.p50, l.p99, l.max, l.count, l.errors)
            }
            print(
                "under attack: \(a.idle) idle connections, \(a.slowloris) slowloris clients (a header byte a second), \(a.streams) stream "
                    + "clients that never read, attached for \(String(format: "%.1f", a.seconds)) s: " + at.joined(separator: "; "))
            print(
                "under attack, the server: closed \(a.evictedIdle) idle, \(a.evictedSlowloris) slowloris and \(a.evictedStreams) stream "
                    + "connections (each replaced at once); \(a.refusedStreams) stream requests answered 503, \(a.streaming) streaming at the end; "
                    + "\(a.failedConnects) connects failed")
        }
        print("api errors: \(r.requestErrors)" + (r.firstRequestError.map { " (first: \($0))" } ?? ""))
        print(
            String(
                format:
                    "events: %d viewfinder/composition events, delay from the bus loop handing the message to the server "
                    + "(Session.onElementMessage; the bus loop polls every 5 ms, not counted) to curl's event line parsed: "
                    + "p50 %.2f ms, p95 %.2f ms, max %.2f ms",
                r.events, r.eventP50, r.eventP95, r.eventMax))
    }
}
