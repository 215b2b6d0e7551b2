import Foundation
import ViewfinderBench

/// `bench bridge`: identity against the passthrough stage through the host, and the zero-copy proof.
struct BenchBridge: BenchKind {
    static let name = "bridge"
    let frames: Int
    let rounds: Int

    init(_ arguments: BenchArguments) { frames = arguments.frames; rounds = arguments.rounds }

    func run() throws {
        print("bench bridge: 1920x1080 I420, \(frames) frames per run, best of \(rounds); peer: identity")
        let r = try Bench.bridge(frames: frames, rounds: rounds) { print($0) }
        print(
            "zero-copy: \(r.copies) buffer copies; \(r.identical)/\(r.reachedSink) buffers reached fakesink with the very memory the appsink received"
        )
        print(String(format: "identity %.1f fps, passthrough stage %.1f fps, ratio %.3f", r.identityFPS, r.stageFPS, r.ratio))
    }
}
