import Foundation
import ViewfinderBench

/// `bench capture`: a tee ! jpegenc photo branch against capture (photos, thumbnails, index).
struct BenchCapture: BenchKind {
    static let name = "capture"
    let frames: Int
    let rounds: Int

    init(_ arguments: BenchArguments) { frames = arguments.frames; rounds = arguments.rounds }

    func run() throws {
        print(
            "bench capture: 1920x1080 I420, \(frames) frames, 5 photos/s, best of \(rounds); peer: tee ! videorate ! jpegenc ! jifmux ! multifilesink"
        )
        let r = try Bench.capture(frames: frames, rounds: rounds)
        print(
            String(
                format: "capture on the video thread: %.2f ms mean, %.2f ms p95 without saving; %.2f ms mean, %.2f ms p95 while saving",
                r.quiet.mean, r.quiet.p95, r.saving.mean, r.saving.p95))
        print(
            String(
                format:
                    "peer %.1f fps (%d photos), capture %.1f fps (%d photos + thumbnails + records.json, %d triggers refused as busy), ratio %.2f",
                r.peerFPS, r.peerPhotos, r.oursFPS, r.ourPhotos, r.refused, r.ratio))
    }
}
