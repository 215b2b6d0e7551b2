import Foundation
import GStreamerKit

/// Side-by-side measurements against a peer GStreamer element, in one run.
public enum Bench {
    /// Result of `bench bridge`.
    public struct BridgeResult: Sendable {
        /// Frames per run.
        public var frames: Int
        /// Best frames per second through `identity`.
        public var identityFPS: Double
        /// Best frames per second through the host with the `passthrough` stage.
        public var stageFPS: Double
        /// Buffer copies the binding made in the stage runs.
        public var copies: Int
        /// Buffers that reached the sink holding the very memory the appsink received (last stage run).
        public var identical: Int
        /// Buffers that reached the sink (last stage run).
        public var reachedSink: Int
        /// stage fps / identity fps.
        public var ratio: Double { identityFPS > 0 ? stageFPS / identityFPS : 0 }
    }

    /// Runs `videotestsrc ! I420 WxH ! identity ! fakesink` and the same with `passthrough`, alternating.
    public static func bridge(frames: Int = 300, width: Int = 1920, height: Int = 1080, rounds: Int = 3,
                              log: (String) -> Void = { _ in }) throws(HostError) -> BridgeResult {
        let source = "videotestsrc num-buffers=\(frames) ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1"
        var best = (identity: 0.0, stage: 0.0)
        var copies = 0, identical = 0, reached = 0
        for round in 1...rounds {
            // identity, as gst-launch would run it.
            let peer = try Session(description: "\(source) ! identity ! fakesink name=vf_bench_sink")
            var t0 = Date()
            guard peer.run() == 0 else { throw HostError(.runtime, "identity run failed: \(peer.errors.joined(separator: "; "))") }
            let idFPS = Double(frames) / Date().timeIntervalSince(t0)
            best.identity = max(best.identity, idFPS)

            let ours = try Session(description: "\(source) ! passthrough ! fakesink name=vf_bench_sink")
            let up = ours.element(named: "vf_passthrough0_sink")!.traceBuffers()
            let down = ours.element(named: "vf_bench_sink")!.traceBuffers(reference: up)
            let c0 = BufferCopies.count
            t0 = Date()
            guard ours.run() == 0 else { throw HostError(.runtime, "passthrough run failed: \(ours.errors.joined(separator: "; "))") }
            let stFPS = Double(frames) / Date().timeIntervalSince(t0)
            best.stage = max(best.stage, stFPS)
            copies += BufferCopies.count - c0
            identical = down.matched; reached = down.seen
            log(String(format: "round %d: identity %.1f fps, passthrough %.1f fps", round, idFPS, stFPS))
        }
        return BridgeResult(frames: frames, identityFPS: best.identity, stageFPS: best.stage, copies: copies, identical: identical, reachedSink: reached)
    }

    /// Result of `bench compose`.
    public struct ComposeResult: Sendable {
        /// Frames through the stage.
        public var frames: Int
        /// Mean ms per frame spent in the stage on the video thread (submit, meta, overlay, blend).
        public var meanMs: Double
        /// 95th percentile of the same.
        public var p95Ms: Double
        /// Analyses run (on the analysis thread) and their mean ms.
        public var analyses: Int
        /// Mean ms of one analysis.
        public var analysisMeanMs: Double
    }

    /// Runs 1080p video through `compose` (analysis at `analysisWidth`) and reports the stage's cost per frame.
    public static func compose(frames: Int = 300, analysisWidth: Int = 320, engine: String = "auto") throws(HostError) -> ComposeResult {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-compose-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let s = try Session(description: "videotestsrc pattern=ball num-buffers=\(frames) ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! compose name=c engine=\(engine) analysis-width=\(analysisWidth) warmup=0 metadata-location=\(json) ! fakesink")
        guard s.run() == 0, let r = s.report, let t = r.stages.first else {
            throw HostError(.runtime, "compose run failed: \(s.errors.joined(separator: "; "))")
        }
        let lines = (try? String(contentsOfFile: json, encoding: .utf8))?.split(separator: "\n") ?? []
        let ms = lines.compactMap { line -> Double? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return o["analysis_ms"] as? Double
        }
        return ComposeResult(frames: t.frames, meanMs: t.meanMs, p95Ms: t.p95Ms, analyses: ms.count,
                             analysisMeanMs: ms.isEmpty ? 0 : ms.reduce(0, +) / Double(ms.count))
    }
}
