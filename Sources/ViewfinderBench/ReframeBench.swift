import Foundation
import FrameAnalysis
import GStreamerKit
import Host
import Stages

/// `bench reframe`: the reframe operator (`Reframer`, rule auto and thirds) against a fixed centre crop and a plain
/// "centre on the largest face" follower, on the same analyses of the same frames, 9:16 output 1080 wide; and the
/// stage's video-thread cost per 1080p frame.
extension Bench {
    /// The framings compared.
    public enum ReframeMethod: String, CaseIterable, Codable, Sendable {
        case reframeAuto = "reframe auto", reframeThirds = "reframe thirds", centre, follow
    }

    /// One method's figures on one scenario (or pooled over several): counts, and the percentages of them.
    public struct ReframeFigures: Codable, Sendable {
        public var method: ReframeMethod
        /// Frames with truth, those where every required face was wholly inside, those where no truth face was cut.
        public var truthFrames = 0, inside = 0, uncut = 0
        /// Steady frames, and those placed by the auto rule's choice (thirds for one face, no `portrait` rule being
        /// registered; center for a group) and by thirds.
        public var steadyFrames = 0, placedAuto = 0, placedThirds = 0
        /// Sum and count of the jitter's second differences (output px/frame²), cut frames left out.
        public var jitterSum = 0.0, jitterSteps = 0
        public var cuts = 0
        /// Frames where a required face was not wholly inside / a face was cut (scenario runs only).
        public var missedFrames: [Int] = [], cutFrames: [Int] = []
        /// Every frame's window as (centre x, centre y, width) in input pixels, and the frames cuts landed on
        /// (scenario runs only; for `--json` readers tracing a failure).
        public var windows: [[Double]] = [], cutAt: [Int] = []

        public var insidePct: Double { pct(inside, truthFrames) }
        public var uncutPct: Double { pct(uncut, truthFrames) }
        public var placedAutoPct: Double { pct(placedAuto, steadyFrames) }
        public var placedThirdsPct: Double { pct(placedThirds, steadyFrames) }
        public var jitter: Double { jitterSteps > 0 ? jitterSum / Double(jitterSteps) : 0 }
        func pct(_ a: Int, _ b: Int) -> Double { b > 0 ? 100 * Double(a) / Double(b) : 0 }

        /// The pooled figures of `self` and `o`.
        func adding(_ o: ReframeFigures) -> ReframeFigures {
            var s = self
            s.truthFrames += o.truthFrames; s.inside += o.inside; s.uncut += o.uncut
            s.steadyFrames += o.steadyFrames; s.placedAuto += o.placedAuto; s.placedThirds += o.placedThirds
            s.jitterSum += o.jitterSum; s.jitterSteps += o.jitterSteps; s.cuts += o.cuts
            s.missedFrames = []; s.cutFrames = []; s.windows = []; s.cutAt = []
            return s
        }
    }

    /// One scenario's figures.
    public struct ReframeScenarioResult: Codable, Sendable {
        public var name: String
        public var frames: Int, width: Int, height: Int
        public var truthIsDetections: Bool
        public var analyses: Int, analysisMeanMs: Double
        public var suppliers: [String: Int]
        public var sceneChanges: [Int], jumps: [Int]
        public var methods: [ReframeFigures]
    }

    /// The stage's video-thread cost per 1080p I420 frame for one output size.
    public struct ReframeCost: Codable, Sendable {
        public var output: String
        public var frames: Int
        /// The operator (scene change mark, camera motion, observe, advance), the scene signature (16x9 samples), the
        /// camera's motion (the 160x90 luma thumbnail and `CameraMotionEstimator`), the render; total.
        public var operatorMedianMs: Double, operatorP95Ms: Double
        public var signatureMedianMs: Double
        public var motionMedianMs: Double, motionP95Ms: Double
        public var renderMedianMs: Double, renderP95Ms: Double
        public var totalMedianMs: Double, totalP95Ms: Double
        /// The peer on the same frames, interleaved (the same machine at the same moment): a fixed centre crop's crop
        /// and scale alone (`CropScaler` on the widest centred window, one converter), the least any reframing to this
        /// output costs.
        public var centreMedianMs: Double, centreP95Ms: Double
        /// GstVideoConverter builds (a new one per moved rectangle).
        public var converterBuilds: Int
        /// Mean absolute luma difference between the last output and the input rectangle it shows (16x9 points,
        /// nearest pixel): small when the render really crops and scales.
        public var renderCheck: Double
    }

    public struct ReframeResult: Codable, Sendable {
        public var scenarios: [ReframeScenarioResult]
        /// Pooled over the photo scenarios (labelled truth).
        public var photos: [ReframeFigures]
        public var cost: [ReframeCost]
        /// The rules the placement used.
        public var placementRules: String
    }

    /// The photos of `face_labels.json` the moving camera runs over: three groups and a portrait.
    public static let reframePhotos = ["t1", "family", "multi_face", "obama"]

    /// Runs every scenario (`frames` frames each; vtest.avi up to `frames`) and the cost (at least 300 frames).
    public static func reframe(testdata: URL, labels: URL, frames: Int, video: String) throws(HostError) -> ReframeResult {
        var scenarios: [ReframeScenario] = []
        for (name, photo, faces) in try labelledPhotos(testdata: testdata, labels: labels, bench: "reframe") {
            scenarios.append(try photoScenario(name: name, photo: photo, labels: faces, frames: frames))
        }
        if FileManager.default.fileExists(atPath: video) { scenarios.append(try videoScenario(path: video, frames: frames)) }
        guard !scenarios.isEmpty else { throw HostError(.runtime, "bench reframe: no photo or video found (run launch/testdata)") }
        let results = scenarios.map(measure)
        var pooled = ReframeMethod.allCases.map { ReframeFigures(method: $0) }
        for r in results where !r.truthIsDetections {
            for (i, f) in r.methods.enumerated() { pooled[i] = pooled[i].adding(f) }
        }
        let costFrom = scenarios.first { !$0.truthIsDetections } ?? scenarios[0]
        let cost = try reframeCost(costFrom, frames: max(300, frames))
        let single = ReframeMetrics.rule(named: "auto", group: false)?.name ?? "none"
        return ReframeResult(
            scenarios: results, photos: pooled, cost: cost,
            placementRules: "auto: one face -> \(single), a group -> center; thirds: thirds")
    }

    /// The windows of `method` over the scenario's frames, and the frames a cut landed on.
    static func frame(_ method: ReframeMethod, _ s: ReframeScenario) -> (windows: [CropWindow], cuts: Set<Int>) {
        let fw = Double(s.frameWidth), fh = Double(s.frameHeight)
        let widest = CropWindow.widest(aspect: 9.0 / 16, frameWidth: fw, frameHeight: fh)
        var windows: [CropWindow] = [], cuts: Set<Int> = []
        windows.reserveCapacity(s.frames)
        switch method {
        case .centre:
            windows = Array(repeating: widest, count: s.frames)
        case .follow:
            // OBS-style: the widest window's width, centre x on the largest face (exponentially smoothed, 0.15 a frame),
            // y centred, no dead zone, no cuts. Without a face the subject box stands in (vtest's walkers).
            var cx = widest.cx, target = widest.cx
            for n in 0..<s.frames {
                if let o = s.observations[n] {
                    let boxes = o.scene.faces.isEmpty ? (o.scene.subject.map { [$0] } ?? []) : o.scene.faces
                    if let largest = boxes.max(by: { $0.area < $1.area }) { target = largest.center.x }
                }
                cx += 0.15 * (target - cx)
                windows.append(CropWindow(cx: cx, cy: fh / 2, width: widest.width, aspect: widest.aspect).clamped(frameWidth: fw, frameHeight: fh))
            }
        case .reframeAuto, .reframeThirds:
            var r = Reframer(
                settings: ReframeSettings(aspect: 9.0 / 16, rule: method == .reframeAuto ? .auto : .thirds), frameWidth: s.frameWidth,
                frameHeight: s.frameHeight)
            for n in 0..<s.frames {
                let t = Double(n) / 30, before = r.cuts
                // The stage's order: the scene-change mark, the new analysis, then the frame's window.
                if s.sceneChanges.contains(n) { r.sceneChanged(at: t) }
                if let m = s.motions[n] { r.cameraMoved(m, at: t) }
                if let o = s.observations[n] { r.observe(o.scene, at: o.time) }
                windows.append(r.advance(to: t))
                if r.cuts > before { cuts.insert(n) }
            }
        }
        return (windows, cuts)
    }

    /// Every method's figures on one scenario.
    static func measure(_ s: ReframeScenario) -> ReframeScenarioResult {
        // Steady: the truth still for 1 s (30 frames); vtest's detections move a little between analyses, so there
        // "still" is within 5 % of the frame's width on every edge.
        let steady = ReframeMetrics.steady(s.required, hold: 30, tolerance: s.truthIsDetections ? 0.05 * Double(s.frameWidth) : 0.5)
        let thirds = ReframeMetrics.rule(named: "thirds", group: false)
        let methods = ReframeMethod.allCases.map { m -> ReframeFigures in
            let (windows, cuts) = frame(m, s)
            var f = ReframeFigures(method: m)
            f.cuts = cuts.count
            f.cutAt = cuts.sorted()
            f.windows = windows.map { [($0.cx * 10).rounded() / 10, ($0.cy * 10).rounded() / 10, ($0.width * 10).rounded() / 10] }
            for n in 0..<s.frames {
                guard let required = s.required[n], let faces = s.faces[n], !required.isEmpty || !faces.isEmpty else { continue }
                f.truthFrames += 1
                let whole = n < s.whole.count ? (s.whole[n] ?? required) : required
                if ReframeMetrics.holdsLargestSet(required, of: whole, windows[n]) { f.inside += 1 } else { f.missedFrames.append(n) }
                if ReframeMetrics.noneCut(faces, windows[n]) { f.uncut += 1 } else { f.cutFrames.append(n) }
                guard steady[n], !required.isEmpty else { continue }
                f.steadyFrames += 1
                // Judged on the faces the window frames (a row's run of its choice), as near as the frame allows.
                let framed = ReframeMetrics.framed(required, of: whole, windows[n])
                let fw = Double(s.frameWidth), fh = Double(s.frameHeight)
                if let rule = ReframeMetrics.rule(named: "auto", group: framed.count > 1),
                    ReframeMetrics.placed(framed, in: windows[n], rule: rule, frameWidth: fw, frameHeight: fh)
                {
                    f.placedAuto += 1
                }
                if let thirds, ReframeMetrics.placed(framed, in: windows[n], rule: thirds, frameWidth: fw, frameHeight: fh) { f.placedThirds += 1 }
            }
            // The jitter from the per-frame figure (a mean over steps): kept as sum and count for pooling.
            let j = ReframeMetrics.jitter(windows, cuts: cuts)
            let steps = (1..<max(1, s.frames - 1)).filter { !cuts.contains($0) && !cuts.contains($0 + 1) }.count
            f.jitterSum = j * Double(steps); f.jitterSteps = steps
            return f
        }
        return ReframeScenarioResult(
            name: s.name, frames: s.frames, width: s.frameWidth, height: s.frameHeight, truthIsDetections: s.truthIsDetections,
            analyses: s.analysisMs.count, analysisMeanMs: s.analysisMs.isEmpty ? 0 : s.analysisMs.reduce(0, +) / Double(s.analysisMs.count),
            suppliers: s.suppliers, sceneChanges: s.sceneChanges.sorted(), jumps: s.jumps, methods: methods)
    }

    /// `scene` with its boxes scaled by (sx, sy).
    static func scaled(_ scene: FramingScene, _ sx: Double, _ sy: Double) -> FramingScene {
        FramingScene(
            subject: scene.subject?.scaled(sx, sy), required: scene.required.map { $0.scaled(sx, sy) }, faces: scene.faces.map { $0.scaled(sx, sy) },
            eyes: scene.eyes?.scaled(sx, sy), look: scene.look, isGroup: scene.isGroup)
    }

    /// The video-thread cost per 1080p I420 frame (`videotestsrc` smpte): the scenario's analyses scaled to 1920x1080
    /// drive a `Reframer` (rule auto) while each frame's window is cropped and scaled by a `CropScaler`, as the stage
    /// does; `frames` frames (the scenario repeated), for 1080x1920 and 608x1080 outputs.
    static func reframeCost(_ s: ReframeScenario, frames: Int) throws(HostError) -> [ReframeCost] {
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline.parse(
                "videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! appsink name=s")
        } catch { throw HostError(.runtime, "bench reframe: \(error)") }
        guard let sink = pipeline.appSink(named: "s") else { throw HostError(.runtime, "bench reframe: no appsink") }
        sink.configure(maxBuffers: 2, drop: false)
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        var input: VideoFrame?
        let deadline = Date().addingTimeInterval(20)
        while input == nil && Date() < deadline {
            switch sink.pull(timeout: 100_000_000) {
            case .sample(let b, let caps, let segment):
                if let caps, let info = caps.videoInfo { input = VideoFrame(buffer: b, info: info, caps: caps, segment: segment, index: 0) }
            case .eos: break
            case .timeout, .stopped: continue
            }
        }
        guard let input else { throw HostError(.runtime, "bench reframe: videotestsrc made no 1080p frame") }
        let sx = 1920 / Double(s.frameWidth), sy = 1080 / Double(s.frameHeight)
        return try [(1080, 1920), (608, 1080)].map { (ow, oh) throws(HostError) -> ReframeCost in
            let scaler: CropScaler, centreScaler: CropScaler
            do {
                scaler = try CropScaler(input: input.info, width: ow, height: oh)
                centreScaler = try CropScaler(input: input.info, width: ow, height: oh)
            } catch { throw HostError(.runtime, "bench reframe: \(error)") }
            let centre = CropWindow.widest(aspect: Double(ow) / Double(oh), frameWidth: 1920, frameHeight: 1080)
            var r = Reframer(settings: ReframeSettings(aspect: Double(ow) / Double(oh), rule: .auto), frameWidth: 1920, frameHeight: 1080)
            var op: [Double] = [], sig: [Double] = [], render: [Double] = [], total: [Double] = [], fixed: [Double] = []
            var signature: [UInt8] = [], changes = 0
            var estimator = CameraMotionEstimator(), motion: [Double] = []
            var failure: Error?
            var last: (frame: VideoFrame, w: CropWindow)?
            for n in 0..<frames {
                let m = n % s.frames, shift = Double(n - m) / 30, t = Double(n) / 30
                var w = r.window
                let a = milliseconds {
                    if s.sceneChanges.contains(m) { r.sceneChanged(at: t) }
                    if let c = s.motions[m] { r.cameraMoved(CameraMotion(scale: c.scale, dx: c.dx * sx, dy: c.dy * sy), at: t) }
                    if let o = s.observations[m] { r.observe(scaled(o.scene, sx, sy), at: o.time + shift) }
                    w = r.advance(to: t)
                }
                let b = milliseconds {
                    let samples = input.planeSamples(columns: 16, rows: 9)
                    changes += SceneChange.between(signature, samples) ? 1 : 0
                    signature = samples
                }
                let d = milliseconds {
                    let thumb = input.planeThumbnail(width: ReframeStage.motionWidth, height: 90)
                    if thumb.count == ReframeStage.motionWidth * 90 { _ = estimator.update(GrayImage(width: ReframeStage.motionWidth, height: 90, pixels: thumb)) }
                }
                let c = milliseconds {
                    do {
                        last = (
                            try scaler.render(
                                input, x: Int(w.left.rounded()), y: Int(w.top.rounded()), width: Int(w.width.rounded()),
                                height: Int(w.height.rounded())), w
                        )
                    } catch { failure = error }
                }
                let e = milliseconds {
                    do {
                        _ = try centreScaler.render(
                            input, x: Int(centre.left.rounded()), y: Int(centre.top.rounded()), width: Int(centre.width.rounded()),
                            height: Int(centre.height.rounded()))
                    } catch { failure = error }
                }
                op.append(a); sig.append(b); motion.append(d); render.append(c); total.append(a + b + c + d); fixed.append(e)
            }
            if let failure { throw HostError(.runtime, "bench reframe: render failed: \(failure)") }
            func q(_ v: [Double], _ p: Double) -> Double {
                let s = v.sorted()
                return s.isEmpty ? 0 : s[min(s.count - 1, Int(Double(s.count) * p))]
            }
            return ReframeCost(
                output: "\(ow)x\(oh)", frames: frames, operatorMedianMs: q(op, 0.5), operatorP95Ms: q(op, 0.95), signatureMedianMs: q(sig, 0.5),
                motionMedianMs: q(motion, 0.5), motionP95Ms: q(motion, 0.95), renderMedianMs: q(render, 0.5), renderP95Ms: q(render, 0.95), totalMedianMs: q(total, 0.5), totalP95Ms: q(total, 0.95),
                centreMedianMs: q(fixed, 0.5), centreP95Ms: q(fixed, 0.95), converterBuilds: scaler.builds, renderCheck: last.map { check($0.frame, of: input, window: $0.w, scaler: scaler) } ?? -1)
        }
    }

    /// Mean absolute difference of plane 0 between `output` (where the frame landed: bars are not compared) and the
    /// rectangle of `input` the scaler read for `w`.
    static func check(_ output: VideoFrame, of input: VideoFrame, window w: CropWindow, scaler: CropScaler) -> Double {
        let l = scaler.layout(x: Int(w.left.rounded()), y: Int(w.top.rounded()), width: Int(w.width.rounded()), height: Int(w.height.rounded()))
        let r = l.source, d = l.destination
        let a = input.buffer.bytes(), b = output.buffer.bytes()
        let sa = input.info.stride(plane: 0), sb = output.info.stride(plane: 0)
        var sum = 0, n = 0
        for j in 0..<9 {
            for i in 0..<16 {
                let ox = (2 * i + 1) * output.info.width / 32, oy = (2 * j + 1) * output.info.height / 18
                guard ox >= d.x, ox < d.x + d.width, oy >= d.y, oy < d.y + d.height else { continue }
                let ix = r.x + (ox - d.x) * r.width / d.width, iy = r.y + (oy - d.y) * r.height / d.height
                guard iy * sa + ix < a.count, oy * sb + ox < b.count else { continue }
                sum += abs(Int(a[iy * sa + ix]) - Int(b[oy * sb + ox])); n += 1
            }
        }
        return n > 0 ? Double(sum) / Double(n) : -1
    }
}
