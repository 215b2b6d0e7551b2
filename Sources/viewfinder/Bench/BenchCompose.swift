import Foundation
import ViewfinderBench

/// `bench compose`: compose's cost on the video and analysis threads, and its buffer copies.
struct BenchCompose: BenchKind {
    static let name = "compose"
    let frames: Int

    init(_ arguments: BenchArguments) { frames = arguments.frames }

    func run() throws {
        print("bench compose: 1920x1080 I420, \(frames) frames, analysis at 320 px (engine auto)")
        let r = try Bench.compose(frames: frames)
        print(String(format: "analysis thread: %d analyses, mean %.2f ms each", r.analyses, r.analysisMeanMs))
        print(
            String(
                format: "compose on the video thread: mean %.3f ms, p95 %.3f ms per 1080p frame (goal <= 5 ms mean)", r.meanMs, r.p95Ms)
        )
        print(
            String(
                format: "buffer copies per frame: compose %.2f, passthrough %.2f (goal: 0 for both: drawing writes in place)",
                r.copiesPerFrame, r.passthroughCopiesPerFrame))
    }
}
