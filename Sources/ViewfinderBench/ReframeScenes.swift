import Foundation
import FrameAnalysis
import GStreamerKit
import Host
import Stages

/// `bench reframe`'s scenarios: frames at 30 fps made from real material, each with its truth and with what compose's
/// real analysis delivered to the operator, when.
extension Bench {
    /// One analysis handed to the methods: the scene (as `ReframeStage.scene` builds it), arriving with frame
    /// `arrives`, of the frame at `time` seconds.
    public struct ReframeObservation: Sendable {
        public var scene: FramingScene
        public var time: Double
    }

    /// One scenario's frames.
    public struct ReframeScenario: Sendable {
        public var name: String
        public var frameWidth: Int, frameHeight: Int
        public var frames: Int
        /// The faces that must be wholly inside, per frame (input pixels); nil: no truth for that frame.
        public var required: [[Box]?]
        /// Every truth face visible in the frame (clipped to it), none of which may be cut; nil as `required`.
        public var faces: [[Box]?]
        /// Every truth face wholly in the frame (and no bigger than the widest window): a window holding as many of
        /// them as `required` holds frames a largest set (which set is the framing's choice); nil as `required`.
        public var whole: [[Box]?] = []
        /// The analyses arriving at each frame (by frame index).
        public var observations: [Int: ReframeObservation]
        /// Frames the stage's scene-change test (`SceneChange.between`, 16x9 luma samples) fires on.
        public var sceneChanges: Set<Int>
        /// The camera's motion into each frame as the stage measures it (`CameraMotionEstimator` on a `motionWidth`-wide
        /// luma thumbnail, in input pixels); nil where it has none (the first frame, a cut, too little texture).
        public var motions: [Int: CameraMotion] = [:]
        /// Whether the truth is the analysis itself (vtest: no labels).
        public var truthIsDetections: Bool
        /// Frames at which the virtual camera jumps (the scripted cut).
        public var jumps: [Int]
        /// ms per analysis, and which engine supplied the subject (by count).
        public var analysisMs: [Double]
        public var suppliers: [String: Int]
    }

    /// compose's analysis as the live stage runs it: the `engine=auto` chain (`ComposeEngines.make`), `AutoRule`, the
    /// subject smoother and the fallbacks in turn (`fallbacks=staggered`, its default `fallback-every`), on a copy
    /// `analysisWidth` wide, on the live schedule: due every 3rd frame of 30 (compose's default `analysis-fps` 10), taken
    /// when the analysis thread is free, its result arriving with the first frame after it finished (its measured time
    /// at 30 fps; at least the next frame); the first frame and each scene change analysed at once with the smoother
    /// started afresh, arriving with themselves (reframe's `cut-analysis`).
    struct ReframeAnalysis {
        static let period = 3
        static let analysisWidth = 640
        let analyzer: CompositionAnalyzer
        var smoother = GuidanceSmoother()
        var rotation: FallbackRotation
        var ms: [Double] = []
        var suppliers: [String: Int] = [:]
        /// When (in frames) the analysis thread is free again.
        var busyUntil = 0.0

        init(inputWidth: Int) throws(HostError) {
            let minFace = ComposeEngines.analysedMinFace(24, analysisWidth: Self.analysisWidth, inputWidth: inputWidth)
            do {
                analyzer = CompositionAnalyzer(
                    engines: try ComposeEngines.make(.auto, minFace: minFace, faces: .init(), stage: "bench"), engine: "auto", rule: AutoRule())
            } catch { throw HostError(.runtime, "bench reframe: \(error)") }
            rotation = FallbackRotation(interval: Double(Self.period) / 30, every: ComposeStage.fallbackEvery.defaultValue)
        }

        /// Whether frame `n` is analysed: at once when `forced`, else when due and the thread is free.
        func due(_ n: Int, forced: Bool) -> Bool { forced || n % Self.period == 0 && Double(n) >= busyUntil }

        /// The frame the latest analysis (of frame `n`) arrives with; marks the thread busy until it finished.
        mutating func arrival(of n: Int, forced: Bool) -> Int {
            guard !forced else { return n }
            let frames = (ms.last ?? 0) * 30 / 1000
            busyUntil = Double(n) + frames
            return n + max(1, Int(frames.rounded(.up)))
        }

        /// Records the analysis of frame `n` (forced: at once, the smoother started afresh) in `s`; a forced one takes
        /// its frame's slot from an older analysis arriving then.
        mutating func analyse(
            _ image: RGBImage, frame n: Int, forced: Bool, width: Int, height: Int, into s: inout ReframeScenario
        ) -> FramingScene {
            if forced { smoother = GuidanceSmoother() }
            let scene = self.scene(image, frame: n, width: width, height: height)
            let at = arrival(of: n, forced: forced)
            if forced || s.observations[at] == nil { s.observations[at] = ReframeObservation(scene: scene, time: Double(n) / 30) }
            return scene
        }

        /// The scene of one analysed frame, in a `width` x `height` input's pixels.
        mutating func scene(_ image: RGBImage, frame n: Int, width: Int, height: Int) -> FramingScene {
            var g: Guidance?
            let pts = UInt64(n) * 1_000_000_000 / 30
            ms.append(milliseconds { g = analyzer.analyze(image, pts: pts, smoother: &smoother, rotation: &rotation) })
            guard let g else { return .empty }
            suppliers[g.engine ?? "none", default: 0] += 1
            return ReframeStage.scene(CompositionMeta.Analysis(g, inputWidth: width, inputHeight: height), width: width, height: height)
        }
    }

    /// The virtual camera's script over a `pw` x `ph` photo (16:9 viewports centred near the labelled faces), as
    /// (centre x, centre y, width) in photo pixels per frame: hold, a slow pan with a zoom in, hold, a jump to the other
    /// side (the cut), hold, a slow zoom out, hold. Fractions of the run: 0-0.2 hold, 0.2-0.35 pan, 0.35-0.6 hold,
    /// jump at 0.6, 0.6-0.85 hold, 0.85-0.92 zoom, 0.92-1 hold.
    static func cameraPath(photoWidth pw: Double, photoHeight ph: Double, faces: [Box], frames: Int) -> [(cx: Double, cy: Double, w: Double)] {
        let wmax = min(pw, ph * 16 / 9)
        let u = ReframeMetrics.union(faces) ?? Box(x: 0, y: 0, width: pw, height: ph)
        let base = (x: u.center.x, y: u.center.y)
        func clamp(_ c: (Double, Double, Double)) -> (cx: Double, cy: Double, w: Double) {
            let w = min(c.2, wmax), h = w * 9 / 16
            return (min(max(c.0, w / 2), pw - w / 2), min(max(c.1, h / 2), ph - h / 2), w)
        }
        let a = clamp((base.x, base.y, 0.85 * wmax))
        let b = clamp((base.x - 0.12 * wmax, base.y + 0.03 * wmax, 0.7 * wmax))
        let c = clamp((base.x + 0.15 * wmax, base.y, 0.8 * wmax))
        let d = clamp((pw / 2, base.y, wmax))
        func mix(_ p: (cx: Double, cy: Double, w: Double), _ q: (cx: Double, cy: Double, w: Double), _ t: Double) -> (cx: Double, cy: Double, w: Double) {
            let s = t * t * (3 - 2 * t)
            return (p.cx + (q.cx - p.cx) * s, p.cy + (q.cy - p.cy) * s, p.w + (q.w - p.w) * s)
        }
        return (0..<frames).map { n in
            let f = Double(n) / Double(max(1, frames))
            switch f {
            case ..<0.2: return a
            case ..<0.35: return mix(a, b, (f - 0.2) / 0.15)
            case ..<0.6: return b
            case ..<0.85: return c
            case ..<0.92: return mix(c, d, (f - 0.85) / 0.07)
            default: return d
            }
        }
    }

    /// Bilinear sample of `photo` at (x, y) (pixel centres at +0.5), edges clamped.
    @inline(__always) static func sample(_ photo: RGBImage, _ x: Double, _ y: Double, _ ch: Int) -> Double {
        let fx = min(max(x - 0.5, 0), Double(photo.width - 1)), fy = min(max(y - 0.5, 0), Double(photo.height - 1))
        let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, photo.width - 1), y1 = min(y0 + 1, photo.height - 1)
        let ax = fx - Double(x0), ay = fy - Double(y0)
        func p(_ x: Int, _ y: Int) -> Double { Double(photo.pixels[(y * photo.width + x) * 3 + ch]) }
        return (p(x0, y0) * (1 - ax) + p(x1, y0) * ax) * (1 - ay) + (p(x0, y1) * (1 - ax) + p(x1, y1) * ax) * ay
    }

    /// A `width` x `height` luma thumbnail (BT.601 limited range, as I420's plane 0) of a frame whose `luma(x, y)` gives
    /// 256 x (66 R + 129 G + 25 B) / 256 at a point in frame pixels: each pixel the mean of 3x3 points over its cell.
    static func thumbnail(width: Int, height: Int, cellWidth: Double, cellHeight: Double, luma: (Double, Double) -> Double) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        for j in 0..<height {
            for i in 0..<width {
                var v = 0.0
                for sy in 0..<3 {
                    for sx in 0..<3 { v += luma((Double(i) + (Double(sx) + 0.5) / 3) * cellWidth, (Double(j) + (Double(sy) + 0.5) / 3) * cellHeight) }
                }
                out[j * width + i] = UInt8(min(255, max(0, (v / 9 / 256 + 16).rounded())))
            }
        }
        return out
    }

    /// A scenario from a labelled photo: a 1280x720 virtual camera moving over it along `cameraPath`.
    static func photoScenario(name: String, photo: RGBImage, labels: [Box], frames: Int) throws(HostError) -> ReframeScenario {
        let fw = 1280, fh = 720
        let path = cameraPath(photoWidth: Double(photo.width), photoHeight: Double(photo.height), faces: labels, frames: frames)
        let widest = CropWindow.widest(aspect: 9.0 / 16, frameWidth: Double(fw), frameHeight: Double(fh))
        var analysis = try ReframeAnalysis(inputWidth: fw)
        var s = ReframeScenario(
            name: name, frameWidth: fw, frameHeight: fh, frames: frames, required: [], faces: [], observations: [:], sceneChanges: [],
            truthIsDetections: false, jumps: [], analysisMs: [], suppliers: [:])
        var previous: [UInt8] = []
        var estimator = CameraMotionEstimator()
        for (n, cam) in path.enumerated() {
            let scale = Double(fw) / cam.w, left = cam.cx - cam.w / 2, top = cam.cy - cam.w * 9 / 32
            // The stage's motion thumbnail: the frame's luma area-averaged to 160 wide.
            let tw = ReframeStage.motionWidth, th = tw * fh / fw, cell = Double(fw) / Double(tw)
            let thumb = thumbnail(width: tw, height: th, cellWidth: cell, cellHeight: cell) { x, y in
                let px = left + x / scale, py = top + y / scale
                return 66 * sample(photo, px, py, 0) + 129 * sample(photo, px, py, 1) + 25 * sample(photo, px, py, 2)
            }
            if n > 0, abs(cam.cx - path[n - 1].cx) * scale > 40 { s.jumps.append(n) }
            // Truth: the labels through the camera; a face at least half in the frame counts (clipped to it).
            var visible: [Box] = [], whole: [Box] = []
            for l in labels {
                let b = Box(x: (l.x - left) * scale, y: (l.y - top) * scale, width: l.width * scale, height: l.height * scale)
                let x0 = max(0, b.x), y0 = max(0, b.y), x1 = min(Double(fw), b.x + b.width), y1 = min(Double(fh), b.y + b.height)
                guard x1 > x0, y1 > y0 else { continue }
                let clipped = Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                if clipped.area >= 0.5 * b.area { visible.append(clipped) }
                if clipped.area >= b.area - 0.5 { whole.append(b) }
            }
            // A face larger than the widest window (an extreme close-up) cannot be kept whole nor left uncut: it is
            // neither required nor counted as cut.
            func fits(_ b: Box) -> Bool { b.width <= widest.width && b.height <= widest.height }
            s.faces.append(visible.filter(fits))
            s.required.append(ReframeMetrics.required(whole.filter(fits), width: widest.width, height: widest.height))
            s.whole.append(whole.filter(fits))
            // The stage's scene-change signature: 16x9 luma samples at cell centres (BT.601 limited range, as I420).
            var samples = [UInt8]()
            samples.reserveCapacity(144)
            for r in 0..<9 {
                let y = Double((2 * r + 1) * fh / 18) + 0.5
                for c in 0..<16 {
                    let x = Double((2 * c + 1) * fw / 32) + 0.5
                    let px = left + x / scale, py = top + y / scale
                    let luma = (66 * sample(photo, px, py, 0) + 129 * sample(photo, px, py, 1) + 25 * sample(photo, px, py, 2)) / 256 + 16
                    samples.append(UInt8(min(255, max(0, luma.rounded()))))
                }
            }
            if SceneChange.between(previous, samples) { s.sceneChanges.insert(n); estimator.reset() }
            previous = samples
            if let m = estimator.update(GrayImage(width: tw, height: th, pixels: thumb)) { s.motions[n] = m.scaled(by: cell) }
            let forced = n == 0 || s.sceneChanges.contains(n)
            guard analysis.due(n, forced: forced) else { continue }
            // The analysis copy: the 1280x720 frame at 640x360, each pixel the mean of its 2x2 frame pixels (bilinear).
            let aw = ReframeAnalysis.analysisWidth, ah = aw * fh / fw
            var pixels = [UInt8](repeating: 0, count: aw * ah * 3)
            let k = Double(fw) / Double(aw)
            for j in 0..<ah {
                for i in 0..<aw {
                    for ch in 0..<3 {
                        var v = 0.0
                        for (dx, dy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                            v += sample(photo, left + (Double(i) + dx) * k / scale, top + (Double(j) + dy) * k / scale, ch)
                        }
                        pixels[(j * aw + i) * 3 + ch] = UInt8(min(255, (v / 4).rounded()))
                    }
                }
            }
            _ = analysis.analyse(RGBImage(width: aw, height: ah, pixels: pixels), frame: n, forced: forced, width: fw, height: fh, into: &s)
        }
        s.analysisMs = analysis.ms; s.suppliers = analysis.suppliers
        return s
    }

    /// A scenario from a real video decoded by GStreamer (each decoded frame taken as one frame at 30 fps): no labels, so
    /// the truth of every analysed frame is what its own analysis found (the scene's required boxes and faces).
    static func videoScenario(path: String, frames: Int) throws(HostError) -> ReframeScenario {
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline.parse(
                "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! video/x-raw,format=RGB ! appsink name=s")
        } catch { throw HostError(.runtime, "bench reframe: \(error)") }
        guard let sink = pipeline.appSink(named: "s") else { throw HostError(.runtime, "bench reframe: no appsink") }
        sink.configure(maxBuffers: 4, drop: false)
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        var s = ReframeScenario(
            name: URL(fileURLWithPath: path).lastPathComponent, frameWidth: 0, frameHeight: 0, frames: 0, required: [], faces: [],
            observations: [:], sceneChanges: [], truthIsDetections: true, jumps: [], analysisMs: [], suppliers: [:])
        var analysis: ReframeAnalysis?
        var previous: [UInt8] = []
        var estimator = CameraMotionEstimator()
        let deadline = Date().addingTimeInterval(600)
        loop: while s.frames < frames && Date() < deadline {
            switch sink.pull(timeout: 100_000_000) {
            case .sample(let buffer, let caps, _):
                guard let info = caps?.videoInfo else { continue }
                let w = info.width, h = info.height, stride = info.stride(plane: 0), bytes = buffer.bytes()
                guard bytes.count >= stride * h else { continue }
                if analysis == nil { analysis = try ReframeAnalysis(inputWidth: w); s.frameWidth = w; s.frameHeight = h }
                let n = s.frames
                s.frames += 1
                var samples = [UInt8]()
                for r in 0..<9 {
                    let y = (2 * r + 1) * h / 18
                    for c in 0..<16 {
                        let o = y * stride + (2 * c + 1) * w / 32 * 3
                        let luma = (66 * Int(bytes[o]) + 129 * Int(bytes[o + 1]) + 25 * Int(bytes[o + 2]) + 128) / 256 + 16
                        samples.append(UInt8(min(255, luma)))
                    }
                }
                if SceneChange.between(previous, samples) { s.sceneChanges.insert(n); estimator.reset() }
                previous = samples
                // The stage's motion thumbnail: luma area-averaged to 160 wide.
                let tw = ReframeStage.motionWidth, th = max(2, (h * tw + w / 2) / w)
                let thumb = thumbnail(width: tw, height: th, cellWidth: Double(w) / Double(tw), cellHeight: Double(h) / Double(th)) { x, y in
                    let o = min(h - 1, Int(y)) * stride + min(w - 1, Int(x)) * 3
                    return 66 * Double(bytes[o]) + 129 * Double(bytes[o + 1]) + 25 * Double(bytes[o + 2])
                }
                if let m = estimator.update(GrayImage(width: tw, height: th, pixels: thumb)) { s.motions[n] = m.scaled(by: Double(w) / Double(tw)) }
                let forced = n == 0 || s.sceneChanges.contains(n)
                guard var a = analysis, a.due(n, forced: forced) else {
                    s.required.append(nil); s.faces.append(nil); s.whole.append(nil)
                    continue
                }
                var pixels = [UInt8]()
                pixels.reserveCapacity(w * h * 3)
                for y in 0..<h { pixels += bytes[(y * stride)..<(y * stride + w * 3)] }
                let aw = ReframeAnalysis.analysisWidth, ah = max(2, aw * h / w)
                let scene = a.analyse(
                    RGBImage(width: w, height: h, pixels: pixels).areaResized(width: aw, height: ah), frame: n, forced: forced, width: w,
                    height: h, into: &s)
                analysis = a
                // The truth: the analysis's faces, the required ones the most that fit the widest window (as for photos).
                let widest = CropWindow.widest(aspect: 9.0 / 16, frameWidth: Double(w), frameHeight: Double(h))
                let faces = scene.subject == nil ? [] : scene.faces.filter { $0.width <= widest.width && $0.height <= widest.height }
                var unique: [Box] = []
                for f in faces where !unique.contains(where: { $0.iou(f) > 0.5 }) { unique.append(f) }
                s.required.append(ReframeMetrics.required(unique, width: widest.width, height: widest.height))
                s.faces.append(unique)
                s.whole.append(unique)
            case .eos: break loop
            case .timeout, .stopped: continue
            }
        }
        s.analysisMs = analysis?.ms ?? []; s.suppliers = analysis?.suppliers ?? [:]
        guard s.frames > 0 else { throw HostError(.runtime, "bench reframe: no frame decoded from \(path)") }
        return s
    }
}
