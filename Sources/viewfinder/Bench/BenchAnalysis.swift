import Foundation
import ViewfinderBench

/// `bench analysis`: compose's `engine=auto` step by step on frames without a face (and with one), and a whole
/// analysis with `fallbacks=all` against `fallbacks=staggered`, in one run.
struct BenchAnalysis: BenchKind {
    static let name = "analysis"
    let analyses: Int

    init(_ arguments: BenchArguments) { analyses = arguments.frames }

    func run() throws {
        print(
            "bench analysis: compose engine=auto for 1280x720 input, analysis at 320 px; each engine alone, then fallbacks=all "
                + "vs fallbacks=staggered alternating (pts 100 ms apart), \(analyses) analyses per frame and side")
        let frames = try Bench.analysisFrames(testdata: URL(fileURLWithPath: ".testdata"))
        if frames.count < 5 { print("(photos missing from .testdata: run launch/testdata for all five frames)") }
        for r in try Bench.analysis(frames: frames, analyses: analyses) {
            print("\(r.frame) (\(r.width)x\(r.height)):")
            for e in r.engines {
                print(String(format: "  %-9@ median %7.2f ms, max %7.2f ms, found %d", e.engine as NSString, e.medianMs, e.maxMs, e.found))
            }
            for c in [r.all, r.staggered] {
                let by = c.suppliers.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                print(
                    String(
                        format: "  fallbacks=%-9@ mean %7.2f ms, p95 %7.2f ms, max %7.2f ms per analysis; %.2f engines run per analysis; "
                            + "subject from: %@", c.mode as NSString, c.meanMs, c.p95Ms, c.maxMs, c.enginesPerAnalysis, by as NSString))
            }
            let turns = r.staggered.turns.map { String(format: "%@ %.1f", $0.turn as NSString, $0.medianMs) }.joined(separator: ", ")
            print("  staggered, median ms of the analyses taking each turn: \(turns)")
            print(String(format: "  staggered / all: %.2f", r.all.meanMs > 0 ? r.staggered.meanMs / r.all.meanMs : 0))
        }
    }
}
