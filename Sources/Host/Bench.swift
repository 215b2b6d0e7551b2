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
}
