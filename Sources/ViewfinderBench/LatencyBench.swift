import Foundation
import GStreamerKit
import Host
import Timing

extension Bench {
    /// The live 720p30 source of `bench latency` and `bench streams`: SMPTE bars scrolling 4 px a frame.
    /// Moving (the encoder and the analysis see motion) and cheap: ~1.3 ms of CPU per 720p frame here,
    /// against ~7 ms for `pattern=ball` (which repaints the whole background each frame).
    public static func liveSource(name: String) -> String {
        "videotestsrc name=\(name) is-live=true pattern=smpte horizontal-speed=4 ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1"
    }

    /// Result of `bench latency`.
    public struct LatencyResult: Sendable {
        /// One side's figures.
        public struct Side: Sendable {
            /// Frames whose delay was measured.
            public var frames: Int
            /// Delay at the sink, ms: median, 95th percentile, mean, minimum, maximum.
            public var p50: Double, p95: Double, mean: Double, min: Double, max: Double
            /// Frames the source produced in the window, per second.
            public var sourceFPS: Double
            /// Frames dropped by the host's leaky hand-offs over the whole run, warm-up included (the end-of-run
            /// report's: exact, where a live figure counts the frames waiting in a hand-off too; 0 without stages).
            public var dropped: Int
            /// What a latency query sent upstream from the fakesink's pad answered (a fakesink with `sync=false`
            /// does not ask upstream itself, so the pipeline's own query says "not live, 0"), and the same
            /// from the appsink that ends the source segment (the fakesink's again without stages).
            public var sinkLatency: LatencyAnswer?, sourceLatency: LatencyAnswer?
        }
        /// Measured seconds (after the warm-up): `seconds`, longer when a side had fewer than 30 frames a second.
        public var seconds: Double
        /// The same pipeline without stages, and with `compose`.
        public var peer: Side, ours: Side
        /// Added by compose: ours - peer, ms.
        public var addedP50: Double { ours.p50 - peer.p50 }
        /// Added by compose at the 95th percentile, ms.
        public var addedP95: Double { ours.p95 - peer.p95 }
        /// The machine: processors, 1-minute load average at the start and at the end.
        public var processors: Int, loadAverage: (start: Double, end: Double)
    }

    /// The sink every latency side ends in: no clock sync, so arrival at its pad is the render time.
    static let latencySink = "fakesink name=vf_bench_sink sync=false"

    /// `liveSource ! compose ! fakesink sync=false` and the same without the stage, both sessions playing at
    /// once in this process, for `seconds` after `warmup` (longer, up to 3x, until each side measured
    /// `seconds` x 30 frames): the delay of every frame at the sink's pad (`Element.watchArrivals`: running
    /// time now - the buffer's running time) on each side.
    ///
    /// Concurrently, not alternating: on a shared 2-core machine the load changes from second to second,
    /// and running both at once exposes both sides to the same interference at the same moments (a paired
    /// comparison), where alternating windows would compare different moments. The peer's own cost (the
    /// source and a fakesink, ~1.3 ms of CPU per frame) is small next to what it measures.
    public static func latency(seconds: Double = 10, warmup: Double = 1, log: (String) -> Void = { _ in }) throws(HostError)
        -> LatencyResult
    {
        let loadAtStart = loadAverage()
        let peer = try Session(description: "\(liveSource(name: "vf_bench_src")) ! \(latencySink)")
        let ours = try Session(description: "\(liveSource(name: "vf_bench_src")) ! compose ! \(latencySink)")
        let limit = Int(seconds * 30 * 2) + 1000
        var recorders: [DelayRecorder] = []
        var sources: [FrameCounter] = []
        for s in [peer, ours] {
            let r = DelayRecorder(limit: limit), c = FrameCounter()
            guard let sink = s.element(named: "vf_bench_sink"), sink.watchArrivals({ r.record(ns: $0) }),
                let src = s.element(named: "vf_bench_src"), src.watchBuffers(pad: "src", { _ in c.add() })
            else { throw HostError(.runtime, "bench latency: no fakesink or videotestsrc pad to watch") }
            recorders.append(r)
            sources.append(c)
        }
        let runs = [BackgroundRun(peer, name: "vf-bench-peer"), BackgroundRun(ours, name: "vf-bench-compose")]
        defer { for r in runs { r.stop() } }
        try runs[0].waitPlaying("bench latency: the pipeline without stages")
        try runs[1].waitPlaying("bench latency: the pipeline with compose")
        SystemClock.shared.sleep(seconds: warmup)

        let counts0 = sources.map(\.count)
        let t0 = SystemClock.shared.now
        for r in recorders { r.start() }
        // `seconds` of frames at 30 fps on each side: on a loaded machine a side that drops frames takes
        // longer to get them, so the window ends when both have them, or at 3x `seconds` (+ 5 s) at the latest.
        let wanted = Int(seconds * 30), deadline = t0 + seconds * 3 + 5
        SystemClock.shared.sleep(seconds: seconds)
        while recorders.contains(where: { $0.count < wanted }) && SystemClock.shared.now < deadline { SystemClock.shared.sleep(seconds: 0.02) }
        let delays = recorders.map { $0.stop() }
        let wall = SystemClock.shared.elapsed(since: t0)
        let counts1 = sources.map(\.count)
        log(String(format: "measured %.2f s", wall))

        func side(_ i: Int) -> LatencyResult.Side {
            let d = delays[i].sorted, s = i == 0 ? peer : ours
            return LatencyResult.Side(
                frames: d.count, p50: percentile(d, 0.5), p95: percentile(d, 0.95), mean: d.isEmpty ? 0 : d.reduce(0, +) / Double(d.count),
                min: d.first ?? 0, max: d.last ?? 0, sourceFPS: Double(counts1[i] - counts0[i]) / wall, dropped: 0,
                sinkLatency: LatencyAnswer.of(s.element(named: "vf_bench_sink")?.upstreamLatency()),
                sourceLatency: LatencyAnswer.of(
                    (s.element(named: "vf_compose0_sink") ?? s.element(named: "vf_bench_sink"))?.upstreamLatency()))
        }
        var result = LatencyResult(
            seconds: wall, peer: side(0), ours: side(1),
            processors: ProcessInfo.processInfo.activeProcessorCount, loadAverage: (loadAtStart, loadAverage()))
        for (i, r) in runs.enumerated() where r.stop() != 0 {
            throw HostError(
                .runtime,
                "bench latency: side \(i == 0 ? "without stages" : "with compose") failed: \(r.session.errors.joined(separator: "; "))")
        }
        result.ours.dropped = ours.report?.dropped ?? 0
        return result
    }
}
