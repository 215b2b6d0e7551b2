import Foundation
import Host
import ViewfinderBench

/// `bench redact`: the redact stage against GStreamer's faceblur on the same frames in one run: labelled photos seen by a
/// moving, zooming virtual camera and vtest.avi; leak rate, over-cover and fps (see `Bench.redact`).
struct BenchRedact: BenchKind {
    static let name = "redact"
    let frames: Int
    let json: Bool
    let video: String

    init(_ arguments: BenchArguments) { frames = arguments.frames; json = arguments.json; video = BenchFaces.videoPath(arguments) }

    static func check(_ arguments: BenchArguments) throws(HostError) {
        try arguments.checkCommon(takesSeconds: takesSeconds)
        try arguments.refuseCount(takesJSON: true)
    }

    func run() throws {
        let r = try Bench.redact(
            testdata: URL(fileURLWithPath: ".testdata"), labels: URL(fileURLWithPath: "Tests/FrameAnalysisTests/Fixtures/face_labels.json"),
            frames: frames, video: video)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(r), as: UTF8.self))
            return
        }
        print(
            "bench redact: \(frames) frames per scenario, each frame through both methods in turn, one at a time (pushed, then pulled: "
                + "time per frame on the calling thread; no frame dropped)")
        print("  redact:   \(r.redactSettings)")
        print("  faceblur: \(r.faceblurSettings) (faceblur takes RGB only; the two conversions alone: \(String(format: "%.2f", r.conversionMs)) ms a frame)")
        print(
            "  (OpenCV's \"Can't open file ... haarcascades//usr/...\" lines on stderr are faceblur loading its default cascade, from a path "
                + "its Debian build doubles, each time one is made; the profile property then loads the right one)")
        print(
            "judged from the pixels (8x8 luma cells): a true face of \(r.minFace) px or more leaks on a frame when a textured cell inside it "
                + "(10 % inset; textured: neighbours 3+ levels apart on average) keeps over 40 % of its detail and its mean moved under 12 levels; missed: most such cells bare; over-cover = covered textured cells outside the true faces")
        for s in r.scenarios {
            print("\n\(s.name) (\(s.width)x\(s.height), \(s.frames) frames; truth: \(s.truth))")
            table(s.methods)
        }
        if r.photos.first?.truthFrames ?? 0 > 0 {
            print("\nphotos pooled (labelled truth):")
            table(r.photos)
        }
    }

    private func table(_ f: [Bench.RedactFigures]) {
        guard let a = f.first(where: { $0.method == .redact }), let b = f.first(where: { $0.method == .faceblur }) else { return }
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
        print("  " + pad("metric", 34) + pad("goal", 12) + pad("redact", 18) + pad("faceblur", 14) + "redact/faceblur")
        func ratio(_ x: Double, _ y: Double) -> String { y != 0 ? String(format: "%.2f", x / y) : "-" }
        print("  " + pad("frames with a true face", 34) + pad("", 12) + pad("\(a.truthFrames) of \(a.frames)", 18) + "\(b.truthFrames) of \(b.frames)")
        let leakGoal = a.leakedFrames == 0 ? " met" : " MISSED"
        print(
            "  " + pad("leak rate (frames, %)", 34) + pad("0", 12) + pad(String(format: "%.2f", a.leakRate) + leakGoal, 18)
                + pad(String(format: "%.2f", b.leakRate), 14) + ratio(a.leakRate, b.leakRate))
        print(
            "  " + pad("faces leaked / face-frames", 34) + pad("", 12) + pad("\(a.leakedFaces) / \(a.truthFaces)", 18)
                + "\(b.leakedFaces) / \(b.truthFaces)")
        print(
            "  " + pad("faces missed (mostly bare)", 34) + pad("", 12) + pad("\(a.bareFaces) / \(a.truthFaces)", 18)
                + "\(b.bareFaces) / \(b.truthFaces)")
        print(
            "  " + pad("over-cover (% outside faces)", 34) + pad("", 12) + pad(String(format: "%.1f", a.overCover), 18)
                + pad(String(format: "%.1f", b.overCover), 14) + ratio(a.overCover, b.overCover))
        let fpsGoal = a.fps >= 2 * b.fps ? " met" : " MISSED"
        print(
            "  " + pad("fps (1000 / mean ms)", 34) + pad(">= 2x", 12) + pad(String(format: "%.1f", a.fps) + fpsGoal, 18)
                + pad(String(format: "%.1f", b.fps), 14) + ratio(a.fps, b.fps))
        print(
            "  " + pad("ms per frame: median / p95", 34) + pad("", 12) + pad(String(format: "%.1f / %.1f", a.medianMs, a.p95Ms), 18)
                + String(format: "%.1f / %.1f", b.medianMs, b.p95Ms))
        if !a.leakedAt.isEmpty { print("  redact leaked at frames \(a.leakedAt.map(String.init).joined(separator: ","))") }
    }
}
