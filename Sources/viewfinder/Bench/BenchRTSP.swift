import Foundation
import ViewfinderBench

/// `bench rtsp`: what a strict recorder (ffmpeg -c copy) sees from rtspserve and from a stock gst-rtsp-server fed by
/// the same encode chain, recorded at the same time.
struct BenchRTSP: BenchKind {
    static let name = "rtsp"
    static let takesSeconds = true
    let seconds: Double

    init(_ arguments: BenchArguments) { seconds = arguments.seconds ?? 10 }

    func run() throws {
        print(
            "bench rtsp: live 640x360 30 fps videotestsrc ! x264enc tune=zerolatency ! rtph264pay, served by rtspserve and by a stock "
                + String(format: "gst-rtsp-server (PyGObject), both recorded at once by ffmpeg -rtsp_transport tcp -c copy -t %.1f", seconds))
        let r = try RTSPBench.run(seconds: seconds)
        for (name, s) in [("rtspserve", r.host), ("stock", r.stock)] {
            print(
                String(
                    format: "%@: %d frames, %d Non-monotonous DTS, %d of %d steps off 1/30 s by over 1 ms, steps %.3f - %.3f ms (spread %.3f ms)",
                    name, s.frames, s.dtsWarnings, s.offSteps, max(0, s.frames - 1), s.minStep, s.maxStep, s.spread))
        }
        print(
            String(
                format: "rtspserve / stock: DTS warnings %d / %d, off steps %d / %d, spread %.3f / %.3f ms", r.host.dtsWarnings,
                r.stock.dtsWarnings, r.host.offSteps, r.stock.offSteps, r.host.spread, r.stock.spread))
    }
}
