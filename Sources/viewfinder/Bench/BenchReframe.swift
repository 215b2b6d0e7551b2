import Foundation
import Host
import ViewfinderBench

/// `bench reframe`: the reframe operator against a fixed centre crop and an OBS-style face follower on real photos
/// (a moving virtual camera, labelled faces) and vtest.avi (against the analysis's own detections), and the stage's
/// video-thread cost per 1080p frame (see `Bench.reframe`).
struct BenchReframe: BenchKind {
    static let name = "reframe"
    let frames: Int
    let json: Bool
    let video: String

    init(_ arguments: BenchArguments) { frames = arguments.frames; json = arguments.json; video = BenchFaces.videoPath(arguments) }

    static func check(_ arguments: BenchArguments) throws(HostError) {
        try arguments.checkCommon(takesSeconds: takesSeconds)
        try arguments.refuseCount(takesJSON: true)
    }

    func run() throws {
        let r = try Bench.reframe(
            testdata: URL(fileURLWithPath: ".testdata"), labels: URL(fileURLWithPath: "Tests/FrameAnalysisTests/Fixtures/face_labels.json"),
            frames: frames, video: video)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(r), as: UTF8.self))
            return
        }
        print(
            "bench reframe: 9:16 output 1080 wide; \(frames) frames at 30 fps per scenario; compose's engine=auto analysis (staggered "
                + "fallbacks, smoother) at 640 px due every 3rd frame (analysis-fps 10), taken when the analysis thread is free and arriving "
                + "with the first frame after its measured time; the first frame and scene changes analysed at once (cut-analysis); methods: Reframer rule=auto and rule=thirds, "
                + "a fixed centre crop, an OBS-style follower (largest face's x, smoothed 0.15/frame, y centred)")
        print("placement rules: \(r.placementRules); steady = truth still for 1 s (30 frames)")
        for s in r.scenarios {
            let by = s.suppliers.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                String(
                    format: "\n%@ (%dx%d, %d frames, truth: %@; %d analyses, mean %.1f ms, subject from %@; scene changes at %@; camera jumps at %@)",
                    s.name, s.width, s.height, s.frames, s.truthIsDetections ? "the analysis's own detections, NOT labels" : "labels through the camera",
                    s.analyses, s.analysisMeanMs, by, s.sceneChanges.map(String.init).joined(separator: ",") as NSString,
                    s.jumps.map(String.init).joined(separator: ",") as NSString))
            table(s.methods)
        }
        if r.photos.first?.truthFrames ?? 0 > 0 {
            print("\nphotos pooled (labelled truth):")
            table(r.photos)
        }
        print("\nvideo-thread cost per 1080p I420 frame (operator: scene-change mark + camera motion + observe + advance; signature: 16x9 samples; motion: 160x90 luma thumbnail + CameraMotionEstimator; render: CropScaler):")
        for c in r.cost {
            print(
                String(
                    format: "  -> %@: total median %.3f ms, p95 %.3f ms (goal <= 3 ms: %@); operator %.4f / %.4f ms, signature %.4f ms, motion %.3f / %.3f ms, render %.3f / %.3f ms; "
                        + "%d converter builds over %d frames; output vs input rectangle %.1f luma levels apart\n"
                        + "     a fixed centre crop's crop and scale alone, same frames: median %.3f ms, p95 %.3f ms; reframe / centre crop %.2f (total), %.2f (render)",
                    c.output, c.totalMedianMs, c.totalP95Ms, c.totalMedianMs <= 3 ? "met" : "MISSED", c.operatorMedianMs, c.operatorP95Ms,
                    c.signatureMedianMs, c.motionMedianMs, c.motionP95Ms, c.renderMedianMs, c.renderP95Ms, c.converterBuilds, c.frames, c.renderCheck,
                    c.centreMedianMs, c.centreP95Ms, c.centreMedianMs > 0 ? c.totalMedianMs / c.centreMedianMs : 0,
                    c.centreMedianMs > 0 ? c.renderMedianMs / c.centreMedianMs : 0))
        }
    }

    /// The methods side by side: one row per metric, the goal, each method, the ratios auto/centre and auto/follow.
    private func table(_ f: [Bench.ReframeFigures]) {
        func find(_ m: Bench.ReframeMethod) -> Bench.ReframeFigures? { f.first { $0.method == m } }
        guard let auto = find(.reframeAuto), let thirds = find(.reframeThirds), let centre = find(.centre), let follow = find(.follow) else { return }
        let all = [auto, thirds, centre, follow]
        print(
            "  " + pad("metric", 30) + pad("goal", 9) + all.map { pad($0.method.rawValue, 17) }.joined() + pad("auto/centre", 12) + "auto/follow")
        func ratio(_ a: Double, _ b: Double) -> String { b != 0 ? String(format: "%.2f", a / b) : "-" }
        func row(_ name: String, _ goal: String, _ v: (Bench.ReframeFigures) -> Double, _ ok: ((Bench.ReframeFigures) -> Bool?)?, _ fmt: String) {
            var line = "  " + pad(name, 30) + pad(goal, 9)
            for m in all {
                var cell = String(format: fmt, v(m))
                if let ok, let met = ok(m) { cell += met ? " met" : " MISSED" }
                line += pad(cell, 17)
            }
            print(line + pad(ratio(v(auto), v(centre)), 12) + ratio(v(auto), v(follow)))
        }
        let reframe: Set<Bench.ReframeMethod> = [.reframeAuto, .reframeThirds]
        print("  " + pad("frames with truth / steady", 39) + all.map { pad("\($0.truthFrames) / \($0.steadyFrames)", 17) }.joined())
        row("required faces inside (%)", "100", { $0.insidePct }, { reframe.contains($0.method) ? $0.inside == $0.truthFrames : nil }, "%.1f")
        row("no face cut (%)", "100", { $0.uncutPct }, { reframe.contains($0.method) ? $0.uncut == $0.truthFrames : nil }, "%.1f")
        row("placed, auto rule (%)", ">= 90", { $0.placedAutoPct }, { $0.method == .reframeAuto ? $0.placedAutoPct >= 90 : nil }, "%.1f")
        row("placed, thirds (%)", ">= 90", { $0.placedThirdsPct }, { $0.method == .reframeThirds ? $0.placedThirdsPct >= 90 : nil }, "%.1f")
        row("jitter (px/frame², 1080 wide)", "<= 0.5", { $0.jitter }, { reframe.contains($0.method) ? $0.jitter <= 0.5 : nil }, "%.3f")
        row("cuts", "", { Double($0.cuts) }, nil, "%.0f")
        for m in [auto, thirds] {
            if !m.missedFrames.isEmpty { print("  \(m.method.rawValue): a required face not wholly inside at frames \(ranges(m.missedFrames))") }
            if !m.cutFrames.isEmpty { print("  \(m.method.rawValue): a face cut by an edge at frames \(ranges(m.cutFrames))") }
        }
    }

    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }

    /// "3-7, 12, 40-41" (runs of consecutive frames; frames 6 apart count as consecutive on vtest's analysed frames).
    private func ranges(_ frames: [Int]) -> String {
        var out: [String] = []
        var start = frames.first ?? 0, last = start
        for f in frames.dropFirst() + [Int.max] {
            if f - last <= 6 { last = f; continue }
            out.append(start == last ? "\(start)" : "\(start)-\(last)")
            start = f; last = f
        }
        return out.prefix(12).joined(separator: ", ") + (out.count > 12 ? ", ... (\(out.count) runs)" : "")
    }
}
