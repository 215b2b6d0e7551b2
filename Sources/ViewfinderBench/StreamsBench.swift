import Foundation
import GStreamerKit
import Host
import Timing

extension Bench {
    /// A stream "holds" 30 fps at this many frames out per second or more.
    public static let holdingFPS = 29.5

    /// Result of `bench streams N`.
    public struct StreamsResult: Sendable {
        /// One side's figures over the measured window.
        public struct Side: Sendable {
            /// Frames out per second of each stream (buffers reaching its fakesink / wall seconds).
            public var fps: [Double]
            /// Frames each source produced per second (a source that cannot keep up falls below 30).
            public var sourceFPS: [Double]
            /// Frames that reached the sinks, all streams.
            public var framesOut: Int
            /// Frames the host's leaky hand-offs dropped over the whole run, warm-up included (the end-of-run
            /// report's `dropped`: exact, where a live figure counts the frames waiting in a hand-off too; 0 without stages).
            public var dropped: Int
            /// Frames the sources made that did not come out (dropped, or still on their way at the end).
            public var lost: Int
            /// Process CPU time / wall time / processors (1 = every core busy all the time).
            public var cpuShare: Double
            /// Measured seconds.
            public var seconds: Double
            /// The slowest stream's fps.
            public var minFPS: Double { fps.min() ?? 0 }
            /// Every stream held `holdingFPS`.
            public var holds: Bool { !fps.isEmpty && minFPS >= Bench.holdingFPS }
        }
        /// Streams per side.
        public var count: Int
        /// With compose, and the same without stages.
        public var ours: Side, peer: Side
        /// Processors, and the 1-minute load average when the round began.
        public var processors: Int, loadAverage: Double
    }

    /// The description of `count` streams: each `liveSource ! [compose !] x264enc ... ! fakesink sync=false`,
    /// as separate chains of one description.
    public static func streamsDescription(count: Int, stages: Bool) -> String {
        (0..<count).map { i in
            "\(liveSource(name: "vf_bench_src\(i)")) ! \(stages ? "compose ! " : "")x264enc tune=zerolatency speed-preset=ultrafast ! "
                + "fakesink name=vf_bench_sink\(i) sync=false"
        }.joined(separator: "  ")
    }

    /// `count` live 720p30 streams through compose + x264enc in one session (one description with
    /// `count` chains, as `viewfinder launch` would run them for `count` cameras: one bus loop, one clock,
    /// one stage group and worker per chain), for `seconds` after `warmup`; then the same without stages.
    /// One after the other: CPU share is a process figure, so the sides cannot share the process's time.
    public static func streams(count: Int, seconds: Double = 10, warmup: Double = 1, log: (String) -> Void = { _ in }) throws(HostError)
        -> StreamsResult
    {
        let load = loadAverage()
        let ours = try streamsSide(count: count, stages: true, seconds: seconds, warmup: warmup)
        log(String(format: "streams %d with compose: slowest %.1f fps", count, ours.minFPS))
        let peer = try streamsSide(count: count, stages: false, seconds: seconds, warmup: warmup)
        log(String(format: "streams %d without stages: slowest %.1f fps", count, peer.minFPS))
        return StreamsResult(
            count: count, ours: ours, peer: peer, processors: ProcessInfo.processInfo.activeProcessorCount, loadAverage: load)
    }

    /// Runs one side of `bench streams` and measures it.
    static func streamsSide(count: Int, stages: Bool, seconds: Double, warmup: Double) throws(HostError) -> StreamsResult.Side {
        let what = stages ? "with compose" : "without stages"
        let session = try Session(description: streamsDescription(count: count, stages: stages))
        var sources: [FrameCounter] = [], sinks: [FrameCounter] = []
        for i in 0..<count {
            let s = FrameCounter(), o = FrameCounter()
            guard let src = session.element(named: "vf_bench_src\(i)"), src.watchBuffers(pad: "src", { _ in s.add() }),
                let sink = session.element(named: "vf_bench_sink\(i)"), sink.watchBuffers({ _ in o.add() })
            else { throw HostError(.runtime, "bench streams: no videotestsrc or fakesink pad to watch in stream \(i)") }
            sources.append(s)
            sinks.append(o)
        }
        let run = BackgroundRun(session, name: "vf-bench-streams")
        defer { run.stop() }
        try run.waitPlaying("bench streams: \(count) streams \(what)")
        SystemClock.shared.sleep(seconds: warmup)
        let in0 = sources.map(\.count), out0 = sinks.map(\.count)
        let cpu0 = processCPUMs(), t0 = SystemClock.shared.now
        SystemClock.shared.sleep(seconds: seconds)
        let in1 = sources.map(\.count), out1 = sinks.map(\.count)
        let cpu1 = processCPUMs(), wall = SystemClock.shared.elapsed(since: t0)
        guard run.stop() == 0 else {
            throw HostError(.runtime, "bench streams: \(count) streams \(what) failed: \(session.errors.joined(separator: "; "))")
        }
        let made = zip(in1, in0).map { $0 - $1 }, out = zip(out1, out0).map { $0 - $1 }
        return StreamsResult.Side(
            fps: out.map { Double($0) / wall }, sourceFPS: made.map { Double($0) / wall }, framesOut: out.reduce(0, +),
            dropped: session.report?.dropped ?? 0, lost: max(0, made.reduce(0, +) - out.reduce(0, +)),
            cpuShare: (cpu1 - cpu0) / 1000 / wall / Double(max(1, ProcessInfo.processInfo.activeProcessorCount)), seconds: wall)
    }
}
