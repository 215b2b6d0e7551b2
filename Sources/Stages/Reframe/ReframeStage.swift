import FrameAnalysis
import GStreamerKit
import Synchronization

/// A vertical (or square, or any shape) output that frames the subject the way a camera operator would: the
/// subject placed by a rule with headroom and look room, whole groups kept in, no face cut by an edge, a dead zone,
/// a critically damped pan with speed limits, cuts for jumps and scene changes, and a steady default when nobody
/// is there (`Reframer`). The only stage whose output size differs from its input (`ResizingStage`): the window is
/// cropped and scaled by GStreamer's video converter (`CropScaler`).
///
/// The subject comes from compose's `ViewfinderComposition` meta when a compose runs before it (the meta's boxes are
/// rewritten into the output's pixels on the way out, so a capture after it reads them right), or from a compose of
/// its own that draws nothing (`analysis=own`, or `auto` on frames without the meta).
public final class ReframeStage: ResizingStage, @unchecked Sendable {  // `own` is set once in open(), then only read.
    private let name: String
    private let fixedSize: (width: Int, height: Int)?
    private let aspectRatio: Double
    private let mode: Analysis
    private let cutAnalysis: Bool
    /// The own analysis, made in `open()` (loading engines is work, not validation: `--dry-run` and planning skip it).
    private var own: ComposeStage?
    private let ownProperties: PropertyValues?
    // Lock order: settings, then state; never nested the other way.
    private let settings: Mutex<ReframeSettings>
    private struct State {
        var reframer: Reframer?
        var scaler: CropScaler?
        var lastAnalysis: UInt64?
        /// Scene changes and the camera's motion, from the frames.
        var motion = FrameMotion()
        var window: CropWindow?
        var frames = 0
        var analyses = 0
        /// A compose before the stage marked a frame (analysis=auto then leaves the subject to it).
        var upstreamSeen = false
    }
    private let state = Mutex(State())

    /// Creates the stage: checks the shape; loads the own analysis's engine unless `analysis=upstream`.
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        self.name = name
        let w = p[Self.width], h = p[Self.height]
        guard let ratio = Self.ratio(p[Self.aspect]) else {
            throw StageError(.usage, "\(name): bad aspect '\(Echo.value(p[Self.aspect]))': expected W:H such as 9:16 or 1:1")
        }
        if w > 0 && h > 0 {
            if p.assigned.contains(Self.aspect.name), abs(Double(w) / Double(h) / ratio - 1) > 0.01 {
                throw StageError(
                    .usage, "\(name): width=\(w) height=\(h) is not aspect=\(p[Self.aspect]): give two of the three")
            }
            fixedSize = (w & ~1, h & ~1)
            aspectRatio = Double(w) / Double(h)
        } else {
            fixedSize = nil
            aspectRatio = ratio
        }
        if let f = fixedSize, f.width < 16 || f.height < 16 {
            throw StageError(.usage, "\(name): output \(w)x\(h) is too small: at least 16x16")
        }
        var s = ReframeSettings(aspect: aspectRatio, rule: p[Self.rule].framing)
        s.subjectSize = p[Self.subjectSize]; s.maxZoom = p[Self.maxZoom]; s.deadZone = p[Self.deadZone]; s.maxPan = p[Self.maxPan]
        s.pad = p[Self.pad]
        settings = Mutex(s)
        mode = p[Self.analysis]
        cutAnalysis = p[Self.cutAnalysis] && mode != .upstream
        requested = (w, h)
        ownProperties =
            mode == .upstream
            ? nil
            : try PropertyValues(
                specs: ComposeStage.descriptor.properties,
                assignments: [("overlay", "false"), ("engine", p[Self.engine].rawValue), ("warmup", "0")], stage: name)
    }

    /// Loads the own analysis's engines (unless `analysis=upstream`); a missing model ends the run naming the stage.
    public func open() throws(StageError) {
        guard own == nil, let ownProperties else { return }
        own = try ComposeStage(name: name, properties: ownProperties)
    }
    private let requested: (width: Int, height: Int)

    /// The output size for an input layout: width and height when both are set; one of them and the aspect; or the
    /// input's height and the aspect. Even numbers.
    public func outputSize(for input: VideoInfo) -> (width: Int, height: Int) {
        if let fixedSize { return fixedSize }
        let (w, h) = requested
        func even(_ v: Double) -> Int { max(16, Int(v.rounded()) & ~1) }
        if w > 0 { return (even(Double(w)), even(Double(w) / aspectRatio)) }
        let height = h > 0 ? h : input.height
        return (even(Double(height) * aspectRatio), even(Double(height)))
    }

    /// Changes rule, subject-size, max-zoom, dead-zone, max-pan or pad; effective on the next frame.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        let bad = StageError(.usage, "\(name): property '\(property)' cannot change while playing")
        var s = settings.withLock { $0 }
        switch property {
        case Self.rule.name: s.rule = try Self.rule.value(value, orThrow: bad).framing
        case Self.subjectSize.name: s.subjectSize = try Self.subjectSize.value(value, orThrow: bad)
        case Self.maxZoom.name: s.maxZoom = try Self.maxZoom.value(value, orThrow: bad)
        case Self.deadZone.name: s.deadZone = try Self.deadZone.value(value, orThrow: bad)
        case Self.maxPan.name: s.maxPan = try Self.maxPan.value(value, orThrow: bad)
        case Self.pad.name: s.pad = try Self.pad.value(value, orThrow: bad)
        default: throw bad
        }
        settings.withLock { $0 = s }
    }

    /// New input layout: a new scaler and a new operator (starting on the default window).
    public func configure(_ info: VideoInfo) throws(StageError) {
        try own?.configure(info)
        let size = outputSize(for: info)
        let s = settings.withLock { $0 }
        do {
            let scaler = try CropScaler(input: info, width: size.width, height: size.height)
            state.withLock { st in
                st.scaler = scaler
                st.reframer = Reframer(settings: s, frameWidth: info.width, frameHeight: info.height)
                st.lastAnalysis = nil; st.motion.reset()
            }
        } catch {
            throw StageError(.library, "\(name): \(error)")
        }
    }

    /// The window of the newest frame (input pixels); nil before the first.
    public var window: CropWindow? { state.withLock { $0.window } }
    /// Cuts made so far.
    public var cuts: Int { state.withLock { $0.reframer?.cuts ?? 0 } }

    /// Runs the analysis when it is its own, takes a new verdict, watches for a scene change and moves the window. On
    /// the first frame and a scene change (`cut-analysis`), the own analysis looks at this very frame, so the cut lands
    /// on the new shot's subject, not on the old one's place.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        // auto: a compose before the stage marks every frame once its warm-up is over; until one does, our own runs.
        let fromUpstream = frame.buffer.hasCompose
        if fromUpstream && mode == .auto { state.withLock { $0.upstreamSeen = true } }
        let sample = FrameMotion.sample(frame)
        let (first, changed, camera) = state.withLock { $0.motion.take(sample) }
        var now: CompositionMeta.Analysis?
        if let own, cutAnalysis, first || changed {
            now = try own.analyseNow(frame)
        } else if let own, mode == .own || !fromUpstream && !state.withLock({ $0.upstreamSeen }) {
            try own.process(frame, context: context)
        }
        let meta = now ?? CompositionMeta(frame: frame)?.analysis
        let time = frame.pts.map { Double($0) / 1e9 } ?? Double(frame.index) / 30
        let s = settings.withLock { $0 }
        state.withLock { st in
            guard var r = st.reframer else { return }
            r.settings = s
            if changed { r.sceneChanged(at: time) }
            if let camera { r.cameraMoved(camera, at: time) }
            if let a = meta, let pts = a.analysisPts ?? frame.pts, pts != st.lastAnalysis {
                st.lastAnalysis = pts
                st.analyses += 1
                r.observe(Self.scene(a, width: Int(r.frameWidth), height: Int(r.frameHeight)), at: Double(pts) / 1e9)
            }
            st.window = r.advance(to: time)
            st.reframer = r
            st.frames += 1
        }
    }

    /// The window cropped and scaled to the output; compose's meta rewritten into the output's pixels.
    public func render(_ input: VideoFrame, output: VideoInfo, context: StageContext) throws(StageError) -> VideoFrame {
        let (scaler, window) = state.withLock { ($0.scaler, $0.window) }
        guard let scaler else { throw StageError(.stream, "\(name): a frame before its caps") }
        let w = window ?? CropWindow.widest(aspect: aspectRatio, frameWidth: Double(input.info.width), frameHeight: Double(input.info.height))
        let out: VideoFrame
        do {
            out = try scaler.render(
                input, x: Int(w.left.rounded()), y: Int(w.top.rounded()), width: Int(w.width.rounded()), height: Int(w.height.rounded()))
        } catch {
            throw StageError(.library, "\(name): \(error)")
        }
        if var meta = CompositionMeta(frame: input) {
            meta.analysis = meta.analysis.map { Self.mapped($0, window: w, input: input.info, output: output) }
            meta.attach(to: out)
        }
        return out
    }

    /// The verdict's boxes in the output's pixels (`input-width`/`input-height` become the output's size).
    static func mapped(_ a: CompositionMeta.Analysis, window w: CropWindow, input: VideoInfo, output: VideoInfo) -> CompositionMeta.Analysis {
        let iw = a.inputWidth > 0 ? Double(a.inputWidth) : Double(input.width), ih = a.inputHeight > 0 ? Double(a.inputHeight) : Double(input.height)
        let toInput = (x: Double(input.width) / iw, y: Double(input.height) / ih)
        let sx = Double(output.width) / w.width, sy = Double(output.height) / w.height
        func map(_ b: Box) -> Box {
            Box(x: (b.x * toInput.x - w.left) * sx, y: (b.y * toInput.y - w.top) * sy, width: b.width * toInput.x * sx, height: b.height * toInput.y * sy)
        }
        func map(_ p: Point2D) -> Point2D { Point2D(x: (p.x * toInput.x - w.left) * sx, y: (p.y * toInput.y - w.top) * sy) }
        var m = a
        m.subject = a.subject.map(map); m.measured = a.measured.map(map)
        m.eyes = a.eyes.map { Detection.Eyes(left: map($0.left), right: map($0.right)) }
        m.faces = a.faces.map(map); m.members = a.members.map(map); m.lead = a.lead.map(map)
        m.inputWidth = output.width; m.inputHeight = output.height
        return m
    }

    /// The scene of a verdict, in a `width` x `height` input's pixels (public for `bench reframe`, which feeds the
    /// operator the same scenes).
    public static func scene(_ a: CompositionMeta.Analysis, width: Int, height: Int) -> FramingScene {
        let sx = a.inputWidth > 0 ? Double(width) / Double(a.inputWidth) : 1, sy = a.inputHeight > 0 ? Double(height) / Double(a.inputHeight) : 1
        guard let subject = (a.measured ?? a.subject)?.scaled(sx, sy) else { return .empty }
        let members = a.members.map { $0.scaled(sx, sy) }
        let faces = a.faces.map { $0.scaled(sx, sy) }
        let group = members.count > 1
        var scene = FramingScene(
            subject: subject, required: group ? members : [subject], faces: faces + (group ? members : [subject]),
            eyes: group ? nil : a.eyes?.scaled(sx, sy), look: group ? nil : a.look, isGroup: group,
            lead: a.lead.map { Point2D(x: $0.x * sx, y: $0.y * sy) })
        scene.salient = !group && a.kind == .salient
        return scene
    }

    /// Width of the luma thumbnail the camera's motion is measured on (its height keeps the frame's shape).
    public static let motionWidth = FrameMotion.width

    /// Finishes the own analysis.
    public func finish(context: StageContext) { own?.finish(context: context) }

    /// "reframe0: 9:16 1080x1920, 3 cuts, 41 analyses over 300 frames".
    public func summary() -> String? {
        let (frames, analyses, cuts) = state.withLock { ($0.frames, $0.analyses, $0.reframer?.cuts ?? 0) }
        guard frames > 0 else { return nil }
        return "\(name): \(cuts) cut\(cuts == 1 ? "" : "s"), \(analyses) analyses over \(frames) frames"
    }
}

/// A scene change between two frames' plane samples: the mean absolute difference over a threshold (public for
/// `bench reframe`).
public enum SceneChange {
    /// Mean absolute difference (0...255) at which the picture counts as a new scene.
    public static let threshold = 40.0

    /// Whether `b` (this frame's samples) is a new scene after `a` (the previous frame's).
    public static func between(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        var sum = 0
        for i in a.indices { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(a.count) > threshold
    }
}

extension Buffer {
    /// Whether a compose before this stage marked the frame (a verdict, or analysing).
    fileprivate var hasCompose: Bool { customMetaText(CompositionMeta.name) != nil }
}
