import Diagnostics
import Foundation
import FrameAnalysis
import GStreamerKit
import Overlay
import Synchronization

/// A photographer's eye on a live stream: finds the subject, judges the composition against a rule,
/// and draws what to do next. Analysis runs on its own thread on a small copy of the latest frame
/// (analyse small, draw big) so it never stalls the video; every frame carries the latest result as
/// a `ViewfinderComposition` custom meta, each analysed frame is posted as a `viewfinder/composition`
/// element message and, with `metadata-location`, written as one JSON line.
public final class ComposeStage: Stage, @unchecked Sendable {  // `worker` is set once in init, then only read.
    /// The custom meta name other stages and applications read (`CompositionMeta`).
    public static let metaName = CompositionMeta.name
    /// The element message name (`CompositionMessage`).
    public static let messageName = CompositionMessage.structureName

    /// Descriptor. Computed, not stored: the `rule` choices are the rules registered in `RuleRegistry`
    /// at the time it is read, so a rule registered at run time can be named in a description.
    public static var descriptor: StageDescriptor {
        StageDescriptor(
            kind: "compose",
            blurb: "Finds the subject, judges the composition (thirds, center, golden, horizon, edges, exposure) and draws guidance",
            properties: [
                engine.spec, rule.spec, overlay.spec, grid.spec, analysisWidth.spec, analysisFPS.spec, warmup.spec, minFace.spec,
                textScale.spec, verify.spec, profiles.spec, rotations.spec, cnnThreads.spec, sync.spec, metadataLocation.spec,
            ],
            formats: overlayFormats)
    }

    /// `engine=`: how the subject is found.
    public enum Engine: String, PropertyChoice {
        /// The CNN when its library is installed, then the face cascades, then people (HOG), then the
        /// upper-body cascade, then saliency.
        case auto
        /// Face cascades only.
        case faces
        /// YuNet, the CNN face detector (libfacedetection, installed by launch/setup) only.
        case cnn
        /// The upper- and full-body cascades only.
        case bodies
        /// OpenCV's HOG people detector only (whole persons, from behind or far away).
        case people
        /// The saliency map only.
        case saliency
        /// A `facedetect` element before the stage.
        case upstream
    }

    /// A word of `grid=`: `points` (the rule's target points), `auto` (the rule's own lines), then every
    /// `GridLine` name in `GridLine.allCases` order (kept equal by `ComposeStageTests`).
    public enum GridMark: String, PropertyChoice, Hashable {
        case points, auto
        case thirds, golden, crosshair, center, diagonals
        case spiralTopLeft = "spiral-tl"
        case spiralTopRight = "spiral-tr"
        case spiralBottomLeft = "spiral-bl"
        case spiralBottomRight = "spiral-br"
        case none
    }

    /// `rule=`: a rule name. Not a `PropertyChoice` enum: the choices are `auto` plus whatever
    /// `RuleRegistry` holds when the descriptor is read (rules can be registered at run time), so the value
    /// is a name checked against the registry.
    public struct RuleName: PropertyRepresentable, Equatable {
        /// The name as written (`thirds`, `auto`).
        public let name: String
        /// A name `RuleRegistry` knows; nil otherwise.
        public init?(_ name: String) {
            guard RuleRegistry.rule(named: name) != nil else { return nil }
            self.name = name
        }
        public init?(propertyValue v: PropertyValue) {
            guard case .choice(let c) = v else { return nil }
            self.init(c)
        }
        public var propertyValue: PropertyValue { .choice(name) }
        /// `auto`.
        public static let auto = RuleName(unchecked: "auto")
        private init(unchecked name: String) { self.name = name }
    }

    /// `engine`: subject detection.
    public static let engine = Property<Engine>(
        "engine",
        "Subject detection: auto (cnn when installed, then faces, people, upper bodies, saliency), faces (cascades), "
            + "cnn (YuNet, installed by launch/setup), people (OpenCV's HOG people detector: whole persons, backs too), "
            + "bodies (upper/full-body cascades), saliency, upstream (a facedetect element before the stage)",
        default: .auto)
    /// `rule`: the composition rule. Computed for the same reason as `descriptor`.
    public static var rule: Property<RuleName> {
        Property(
            "rule", "Composition rule; auto picks the one the subject is closest to satisfying", .choice(RuleRegistry.names),
            default: .auto,
            mutability: .playing)
    }
    /// `overlay`: draw the guidance.
    public static let overlay = Property<Bool>(
        "overlay", "Draw the guidance (false: analyse and publish only)", .bool, default: true, mutability: .playing)
    /// `grid`: the rule marks and grid lines drawn.
    public static let grid = Property<PropertyFlags<GridMark>>(
        "grid", "Rule marks: points (the rule's target points), auto (the rule's full lines), none, or grid lines joined by '+'",
        default: [.points], mutability: .playing)
    /// `analysis-width`: width the analysis runs at.
    public static let analysisWidth = Property<Int>(
        "analysis-width", "Width in pixels the analysis runs at (height keeps the aspect)", .int(64...1920), default: 320)
    /// `analysis-fps`: analyses per second of stream time.
    public static let analysisFPS = Property<Double>(
        "analysis-fps", "Analyses per second of stream time; the latest result is drawn on every frame", .double(0.1...120),
        default: 10, mutability: .playing)
    /// `warmup`: seconds before the first analysis.
    public static let warmup = Property<Double>("warmup", "Seconds of stream time before the first analysis", .double(0...3600), default: 1)
    /// `min-face`: smallest face looked for, in input pixels.
    public static let minFace = Property<Int>(
        "min-face", "Smallest face to look for, in input pixels (the search floor is 24 px at analysis-width)", .int(8...4096), default: 24)
    /// `text-scale`: size of the advice and score text.
    public static let textScale = Property<Double>(
        "text-scale", "Size of the advice and score text (1 = 36 px at 1080p)", .double(0.25...4), default: 1, mutability: .playing)
    /// `verify`: second-stage check of face hits.
    public static let verify = Property<Bool>(
        "verify", "Second-stage check of face hits (eyes, a second cascade, skin) against false faces", .bool, default: true)
    /// `profiles`: also look for faces in profile.
    public static let profiles = Property<Bool>("profiles", "Also look for faces in profile (both sides)", .bool, default: true)
    /// `rotations`: also look for tilted faces.
    public static let rotations = Property<Bool>(
        "rotations", "Also look for faces tilted about 20 degrees in-plane (two more passes)", .bool, default: false)
    /// `cnn-threads`: OpenMP threads of the cnn engine.
    public static let cnnThreads = Property<Int>(
        "cnn-threads", "Threads the cnn engine's network uses per analysis (OpenMP; 1 leaves the other cores to the video)",
        .int(1...16), default: 1)
    /// `sync`: analyse on the video thread.
    public static let sync = Property<Bool>(
        "sync", "Analyse on the video thread so no due frame is skipped (offline files, benchmarks); the stream waits", .bool,
        default: false)
    /// `metadata-location`: the JSON-lines file.
    public static let metadataLocation = Property<String>(
        "metadata-location", "File to append one JSON line per analysed frame to (empty: none)", .string, default: "")

    /// One analysis request: a small copy of a frame and where it came from.
    /// The copy (nearest-neighbour RGB at the analysis size) is made on the video thread before anything
    /// is drawn, so the frame itself is never held by the analysis thread: drawing then writes in place
    /// (no full-frame copy-on-write) and the analysis still sees clean pixels. At most two jobs are held.
    struct Job: Sendable {
        var reduced: VideoFrame?; var format: String; var pts: UInt64?; var index: Int; var inputWidth: Int; var inputHeight: Int
    }

    // Lock order: settings, then state, then results; `analysis` is taken alone (analysis thread,
    // configure), never together with the others. The analysis thread takes settings and results
    // one after the other, never nested.
    private struct Settings { var overlay: Bool; var grid: [GridMark]; var fps: Double; var textScale: Double; var rule: String }
    private struct State {
        var firstPTS: UInt64?
        var lastSubmitted: UInt64?
        var drawn: (GuidanceDrawing, Int, Int)?
        var composition: OverlayComposition?
        var gridKey: ([GridLine], [GuideSegment], Int, Int)?
        var grid: OverlayComposition?
        var context: StageContext?
        /// The score block's box for `drawn`.
        var scoreBlock: (x: Int, y: Int, width: Int, height: Int)?
        /// The advice line drawn for (advice, width, height, text scale), and its overlay at a row y.
        var advice: (key: AdviceKey, sprite: AdviceSprite?)?
        var adviceOverlay: (key: AdviceKey, y: Int, composition: OverlayComposition)?
    }
    struct AdviceKey: Equatable { var advice: String; var width: Int; var height: Int; var textScale: Double }
    typealias AdviceSprite = (image: BGRAImage, x: Int, gap: Int)
    /// Owned by the analysis thread (and `configure`): never taken by `process`, so a slow analysis
    /// cannot hold up a frame.
    private struct Analysis {
        var analyzer: CompositionAnalyzer
        /// Packs the reduced copy into the RGB analysis image (same size: no resampling).
        var scaler: VideoScaler?
        var smoother = GuidanceSmoother()
        var minFace = 24
    }
    /// Published results: held only long enough to copy a value in or out.
    private struct Results {
        var latest: Guidance?
        var latestInput: (width: Int, height: Int) = (0, 0)
        var analysed = 0
        var failure: String?
        /// The overlay for `latest`, drawn by the analysis thread.
        struct Prepared {
            var drawing: GuidanceDrawing; var width: Int; var height: Int; var textScale: Double; var composition: OverlayComposition
            var advice: AdviceSprite?
        }
        var prepared: Prepared?
    }

    private let name: String
    private let settings: Mutex<Settings>
    private let state = Mutex(State())
    private let results = Mutex(Results())
    /// `facedetect` results by buffer timestamp (engine=upstream), the newest 128.
    private let upstream = Mutex<[UInt64: [Box]]>([:])
    private let analysis: Mutex<Analysis>
    /// The converter making the analysis copy: used by `process` (video thread) and `configure` only.
    private let reducer = Mutex<VideoScaler?>(nil)
    private let engineChoice: Engine
    private let faceOptions: ComposeEngines.FaceOptions
    /// The marks of every rule registered when the stage was made (and of its own rule), by name.
    private let ruleMarks: [String: RuleMarks]
    private let minFace: Int
    private let analysisWidth: Int
    private let warmupNs: UInt64
    private let synchronous: Bool
    private let json: JSONLineWriter?
    private var worker: AnalysisWorker<Job>!

    /// Creates the stage; opens `metadata-location` for appending.
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        self.name = name
        let ruleChoice = p[Self.rule].name
        guard let rule = RuleRegistry.rule(named: ruleChoice) else {
            throw StageError(.usage, "\(name): unknown rule '\(ruleChoice)'")
        }
        settings = Mutex(
            Settings(
                overlay: p[Self.overlay], grid: p[Self.grid].flags, fps: p[Self.analysisFPS], textScale: p[Self.textScale], rule: rule.name)
        )
        analysisWidth = p[Self.analysisWidth]
        warmupNs = UInt64(p[Self.warmup] * 1e9)
        synchronous = p[Self.sync]
        engineChoice = p[Self.engine]
        ruleMarks = Dictionary((RuleRegistry.all + [rule]).map { ($0.name, $0.marks) }, uniquingKeysWith: { first, _ in first })
        faceOptions = ComposeEngines.FaceOptions(
            verify: p[Self.verify], profiles: p[Self.profiles], rotations: p[Self.rotations], cnnThreads: p[Self.cnnThreads])
        minFace = p[Self.minFace]
        // Loaded now so a missing cascade is a start-up error; rebuilt in `configure` for the input size.
        analysis = Mutex(
            Analysis(
                analyzer: CompositionAnalyzer(
                    engines: try ComposeEngines.make(engineChoice, minFace: 24, faces: faceOptions, stage: name),
                    engine: engineChoice.rawValue, rule: rule)))
        let loc = p[Self.metadataLocation]
        json = loc.isEmpty ? nil : try JSONLineWriter(path: loc, stage: name)
        worker = AnalysisWorker(name: "vf-\(name)-analysis") { [weak self] job in self?.analyse(job) }
    }

    deinit { worker.stop() }

    /// The latest analysis (tests and the capture stage read it).
    public var latest: Guidance? { results.withLock { $0.latest } }
    /// How many frames were analysed so far.
    public var analysedFrames: Int { results.withLock { $0.analysed } }

    /// Changes overlay, grid, analysis-fps, text-scale or rule while playing (a new rule restarts the smoothing).
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        if property == Self.rule.name {
            // The analyser's rule is the analysis thread's (taken alone, never with settings); the name
            // drawn before the next verdict is a setting. The smoother starts again for the new rule.
            let cannotChange = StageError(.usage, "\(name): bad value '\(value)' for property 'rule'")
            guard let rule = RuleRegistry.rule(named: try Self.rule.value(value, orThrow: cannotChange).name) else { throw cannotChange }
            analysis.withLock {
                $0.analyzer.rule = rule; $0.smoother = GuidanceSmoother()
            }
            settings.withLock { $0.rule = rule.name }
            return
        }
        try settings.withLock { (s: inout Settings) throws(StageError) in
            let cannotChange = StageError(.usage, "\(name): property '\(property)' cannot change while playing")
            switch property {
            case Self.overlay.name: s.overlay = try Self.overlay.value(value, orThrow: cannotChange)
            case Self.grid.name: s.grid = try Self.grid.value(value, orThrow: cannotChange).flags
            case Self.analysisFPS.name: s.fps = try Self.analysisFPS.value(value, orThrow: cannotChange)
            case Self.textScale.name: s.textScale = try Self.textScale.value(value, orThrow: cannotChange)
            default: throw cannotChange
            }
        }
    }

    /// New frame layout: a new scaler for the analysis copy.
    public func configure(_ info: VideoInfo) throws(StageError) {
        let w = min(analysisWidth, info.width)
        let h = max(2, Int((Double(w) * Double(info.height) / Double(info.width)).rounded()))
        do {
            // Nearest-neighbour RGB at the analysis size, on the video thread (~1 ms per analysed 1080p frame;
            // linear resampling costs ~4 ms there, and a copy in the input's 4:2:0 format ~5 ms); the
            // analysis thread only packs it into the analysis image.
            let reducer = try VideoScaler(reducing: info, width: w, height: h)
            let scaler = try VideoScaler(input: reducer.output, width: w, height: h)
            self.reducer.withLock { $0 = reducer }
            analysis.withLock { $0.scaler = scaler }
            state.withLock {
                $0.drawn = nil; $0.composition = nil; $0.gridKey = nil
            }
        } catch {
            throw StageError(.library, "\(name): \(error)")
        }
        // min-face is given in input pixels: the face engines search from that size at analysis scale (the
        // cascades from 24 px at least: `make` floors it for them, not for the cnn).
        let analysed = ComposeEngines.analysedMinFace(minFace, analysisWidth: w, inputWidth: info.width)
        if max(24, analysed) != analysis.withLock({ $0.minFace }), engineChoice == .faces || engineChoice == .auto {
            let engines = try ComposeEngines.make(engineChoice, minFace: analysed, faces: faceOptions, stage: name)
            analysis.withLock {
                $0.analyzer.engines = engines; $0.minFace = max(24, analysed)
            }
        }
        // The cnn (loaded once per process) just takes the new floor.
        analysis.withLock {
            $0.analyzer.engines = $0.analyzer.engines.map { e -> any DetectionEngine in
                guard var c = e as? CNNFaceEngine else { return e }
                c.minFace = analysed
                return c
            }
        }
    }

    /// Submits the frame for analysis when due, attaches the latest result, queues the drawing.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        var job: Job? = state.withLock { (st: inout State) -> Job? in
            st.context = context
            guard let pts = frame.pts ?? frame.duration.map({ $0 * UInt64(frame.index) }) else { return nil }
            if st.firstPTS == nil { st.firstPTS = pts }
            guard pts >= st.firstPTS! + warmupNs else { return nil }
            let period = UInt64(1e9 / s.fps)
            if let last = st.lastSubmitted, pts < last + period - min(period / 10, 2_000_000) { return nil }
            st.lastSubmitted = pts
            return Job(
                reduced: nil, format: frame.info.format, pts: frame.pts, index: frame.index,
                inputWidth: frame.info.width, inputHeight: frame.info.height)
        }
        // The analysis copy, made here (clean pixels, before any drawing) with GStreamer's converter.
        if job != nil {
            do {
                job?.reduced = try reducer.withLock { r throws(GStreamerError) -> VideoFrame? in try r?.reduced(frame) }
            } catch {
                throw StageError(.library, "\(name): \(error)")
            }
            if job?.reduced == nil { job = nil }
        }
        var skipped: UInt64?
        if let job {
            if synchronous { analyse(job) } else { skipped = worker.submit(job)?.pts }
        }
        if let failure = results.withLock({ r -> String? in
            defer { r.failure = nil }; return r.failure
        }) {
            throw StageError(.stream, "\(name): \(failure)")
        }

        let (latest, input) = results.withLock { ($0.latest, $0.latestInput) }
        // `analysing`: this frame went to the analysis thread; its result comes with a later frame's meta
        // (`analysis-pts` = this frame's pts), so a stage after us can keep the frame until then.
        // `skipped-pts`: an earlier frame's job this one replaced before it ran (it will have no result).
        let analysing = job != nil && !synchronous && frame.pts != nil
        let meta = CompositionMeta(
            analysis: latest.map { CompositionMeta.Analysis($0, inputWidth: input.width, inputHeight: input.height) },
            analysing: analysing, skippedPts: skipped)
        meta.attach(to: frame)
        guard s.overlay else { return }
        let drawing = Self.drawing(latest, grid: s.grid, rule: s.rule, marks: ruleMarks)
        let w = frame.info.width, h = frame.info.height
        // Two cached layers: the grid (changes with size or lines only) and the guidance sprites.
        let (grid, guidance): (OverlayComposition?, OverlayComposition) = state.withLock { st in
            if st.gridKey.map({ $0 != (drawing.grid, drawing.guides, w, h) }) ?? true {
                st.gridKey = (drawing.grid, drawing.guides, w, h)
                st.grid =
                    drawing.grid.isEmpty && drawing.guides.isEmpty
                    ? nil
                    : {
                        let img = GridRenderer.render(GuidanceRenderer.gridStyle(drawing.grid, guides: drawing.guides), width: w, height: h)
                        return OverlayComposition(bgra: img.pixels, width: img.width, height: img.height, stride: img.stride)
                    }()
            }
            if let c = st.composition, let d = st.drawn, d.0 == drawing, d.1 == w, d.2 == h { return (st.grid, c) }
            // Normally the analysis thread has drawn it already; draw here only when it has not.
            let prepared = results.withLock { r -> OverlayComposition? in
                guard let p = r.prepared, p.drawing == drawing, p.width == w, p.height == h, p.textScale == s.textScale else { return nil }
                return p.composition
            }
            let c = prepared ?? Self.guidanceComposition(drawing, width: w, height: h, textScale: s.textScale)
            st.drawn = (drawing, w, h)
            st.composition = c
            st.scoreBlock = nil
            return (st.grid, c)
        }
        if let grid { frame.addOverlay(grid) }
        frame.addOverlay(guidance)
        placeText(drawing, on: frame, textScale: s.textScale)
    }

    /// The frame is the layout owner of the group's text: the score block takes the top row and the
    /// advice a bottom row, so a later stage's text (capture's state line) stacks beside them instead
    /// of over them. The advice is its own overlay, placed at the row the frame gives it.
    private func placeText(_ drawing: GuidanceDrawing, on frame: VideoFrame, textScale: Double) {
        let w = frame.info.width, h = frame.info.height
        let key = AdviceKey(advice: drawing.advice, width: w, height: h, textScale: textScale)
        let (block, sprite) = state.withLock { st -> ((x: Int, y: Int, width: Int, height: Int), AdviceSprite?) in
            if st.scoreBlock == nil { st.scoreBlock = GuidanceRenderer.scoreBlock(drawing, width: w, height: h, textScale: textScale) }
            if st.advice == nil || st.advice!.key != key {
                let prepared = results.withLock { r -> AdviceSprite?? in
                    guard let p = r.prepared, p.drawing.advice == drawing.advice, p.width == w, p.height == h, p.textScale == textScale
                    else { return nil }
                    return .some(p.advice)
                }
                st.advice = (key, prepared ?? GuidanceRenderer.adviceSprite(drawing.advice, width: w, height: h, textScale: textScale))
            }
            return (st.scoreBlock!, st.advice!.sprite)
        }
        _ = frame.reserveTextRow(height: block.height, edge: .top, gap: block.y, x: block.x, width: block.width)
        guard let sprite else { return }
        let y = frame.reserveTextRow(height: sprite.image.height, edge: .bottom, gap: sprite.gap, x: sprite.x, width: sprite.image.width)
        let overlay = state.withLock { st -> OverlayComposition in
            if let o = st.adviceOverlay, o.key == key, o.y == y { return o.composition }
            let c = OverlayComposition(
                bgra: sprite.image.pixels, width: sprite.image.width, height: sprite.image.height,
                stride: sprite.image.stride, x: sprite.x, y: y)
            st.adviceOverlay = (key, y, c)
            return c
        }
        frame.addOverlay(overlay)
    }

    /// Waits for the last analysis so its message and JSON line are out before end-of-stream.
    public func finish(context: StageContext) {
        worker.drain()
        json?.flush()
    }

    /// Keeps `facedetect` results for `engine=upstream`.
    public func busMessage(_ message: BusMessage) {
        guard engineChoice == .upstream, let m = FacedetectMessage.parse(message.structure.text) else { return }
        upstream.withLock { u in
            u[m.timestamp] = m.faces
            if u.count > 128, let oldest = u.keys.min() { u[oldest] = nil }
        }
    }

    /// The upstream faces for a frame, in analysed pixels; waits (bounded) for the bus to deliver them.
    private func upstreamFaces(_ job: Job, analysedWidth: Int, analysedHeight: Int) -> [Detection] {
        guard let pts = job.pts else { return [] }
        let deadline = Date().addingTimeInterval(0.25)
        var faces: [Box]?
        repeat {
            faces = upstream.withLock { $0[pts] }
            if faces == nil { Thread.sleep(forTimeInterval: 0.005) }
        } while faces == nil && Date() < deadline
        let sx = Double(analysedWidth) / Double(job.inputWidth), sy = Double(analysedHeight) / Double(job.inputHeight)
        return (faces ?? []).map { Detection(box: $0.scaled(sx, sy), confidence: 1, kind: .face) }
    }

    // MARK: analysis thread

    private func analyse(_ job: Job) {
        // The RGB analysis image, made here, off the video thread, from the small copy.
        let image: RGBImage
        do {
            guard let reduced = job.reduced,
                let scaled = try analysis.withLock({ a throws(GStreamerError) -> RGBImage? in
                    // A job queued before a caps change is of the old layout: skip it.
                    guard let sc = a.scaler, sc.input == reduced.info else { return nil }
                    return RGBImage(width: sc.width, height: sc.height, pixels: try sc.rgb(of: reduced))
                })
            else { return }
            image = scaled
        } catch {
            results.withLock { $0.failure = "\(error)" }
            return
        }
        let fromUpstream = engineChoice == .upstream ? upstreamFaces(job, analysedWidth: image.width, analysedHeight: image.height) : nil
        let g = analysis.withLock { a in
            if let fromUpstream { a.analyzer.engines = [FixedDetections(detections: fromUpstream)] }
            return a.analyzer.analyze(image, pts: job.pts, smoother: &a.smoother)
        }
        // Draw the new guidance here, off the video thread, for the frame size it will be shown at.
        let s = settings.withLock { $0 }
        var prepared: Results.Prepared?
        if s.overlay {
            let drawing = Self.drawing(g, grid: s.grid, rule: s.rule, marks: ruleMarks)
            let comp = Self.guidanceComposition(drawing, width: job.inputWidth, height: job.inputHeight, textScale: s.textScale)
            comp.prepare(for: job.format)
            let advice = GuidanceRenderer.adviceSprite(
                drawing.advice, width: job.inputWidth, height: job.inputHeight, textScale: s.textScale)
            prepared = .init(
                drawing: drawing, width: job.inputWidth, height: job.inputHeight, textScale: s.textScale, composition: comp, advice: advice)
        }
        results.withLock { r in
            r.latest = g
            r.latestInput = (job.inputWidth, job.inputHeight)
            r.analysed += 1
            r.prepared = prepared
        }
        let context = state.withLock { $0.context }
        context?.post(CompositionMessage(g, frame: job.index, inputWidth: job.inputWidth, inputHeight: job.inputHeight).structure)
        json?.write(Self.jsonObject(g, job: job))
    }

    /// The guidance sprites as one overlay (cairo/pango drawing, cut to content).
    static func guidanceComposition(_ drawing: GuidanceDrawing, width w: Int, height h: Int, textScale: Double) -> OverlayComposition {
        let layers = GuidanceRenderer.sprites(drawing, width: w, height: h, textScale: textScale, advice: false).map {
            OverlayComposition.Layer(
                pixels: $0.image.pixels, width: $0.image.width, height: $0.image.height, stride: $0.image.stride, x: $0.x, y: $0.y)
        }
        return OverlayComposition(layers: layers)
    }

    // MARK: publishing

    static func inputBox(_ g: Guidance, _ w: Int, _ h: Int) -> Box? { g.subjectBox(width: w, height: h) }

    static func jsonObject(_ g: Guidance, job: Job) -> [String: Any] {
        let sx = Double(job.inputWidth) / Double(g.frameWidth), sy = Double(job.inputHeight) / Double(g.frameHeight)
        func box(_ b: Box) -> [String: Any] {
            [
                "x": (b.x * 100).rounded() / 100, "y": (b.y * 100).rounded() / 100, "width": (b.width * 100).rounded() / 100,
                "height": (b.height * 100).rounded() / 100,
            ]
        }
        var o: [String: Any] = [
            "pts": g.pts.map { NSNumber(value: $0) } ?? NSNull(), "frame": job.index, "rule": g.rule,
            "score": (g.score * 1000).rounded() / 1000,
            "well_composed": g.wellComposed, "locked": g.locked, "advice": g.advice, "engine": g.engine ?? NSNull(),
            "analysis_ms": (g.totalMs * 1000).rounded() / 1000, "width": job.inputWidth, "height": job.inputHeight,
        ]
        o["subject"] = inputBox(g, job.inputWidth, job.inputHeight).map(box) ?? NSNull()
        // The subject as detected in this frame (before smoothing across frames): what a photo records.
        o["measured"] = g.measuredNormalized.map { box($0.scaled(Double(job.inputWidth), Double(job.inputHeight))) } ?? NSNull()
        // Exposure figures when the rule measured them (rule=exposure, or auto with a subject): see ExposureFigures.
        if let e = g.exposure {
            o["exposure"] = [
                "subject_luma": (e.subjectLuma * 10).rounded() / 10, "background_luma": (e.backgroundLuma * 10).rounded() / 10,
                "clipped": (e.clipped * 1000).rounded() / 1000, "stops": (e.stops * 100).rounded() / 100,
            ]
        }
        // What the subject is (face, group, upper-body, ...); for a group, its members (as detected in this frame).
        o["subject_kind"] = g.subject.map { $0.kind.rawValue } ?? NSNull()
        o["group"] = (g.subject?.members ?? []).map { box($0.scaled(sx, sy)) }
        o["faces"] = g.detections.filter { $0.kind == .face || $0.kind == .profileFace }.map { d -> [String: Any] in
            var b = box(d.box.scaled(sx, sy)); b["confidence"] = (d.confidence * 1000).rounded() / 1000
            // Eye centres in input pixels (engine=cnn), the image's left eye first.
            if let e = d.eyes?.scaled(sx, sy) {
                b["eyes"] = [e.left, e.right].map { [($0.x * 100).rounded() / 100, ($0.y * 100).rounded() / 100] }
            }
            return b
        }
        return o
    }

    /// What to draw for the latest guidance: the rule's marks come from `marks` (by the name of the rule
    /// that judged the frame, or of the stage's own rule before any verdict), so any registered rule is
    /// drawn without this stage knowing it.
    static func drawing(_ g: Guidance?, grid: [GridMark], rule: String, marks: [String: RuleMarks]) -> GuidanceDrawing {
        let ruleMarks = marks[g?.rule ?? rule] ?? .none
        let gridLines: [GridLine], guides: [GuideSegment]
        if grid == [.auto] {
            gridLines = []
            guides = ruleMarks.lines.map { GuideSegment(x0: $0.from.x, y0: $0.from.y, x1: $0.to.x, y1: $0.to.y) }
        } else {
            gridLines = grid.compactMap { GridLine(rawValue: $0.rawValue) }.filter { $0 != .none }
            guides = []
        }
        let points = grid.contains(.points) ? ruleMarks.points.map { ($0.x, $0.y) } : []
        guard let g else {
            return GuidanceDrawing(
                subject: nil, target: nil, advice: "", rule: rule, score: 0, wellComposed: false, locked: false,
                grid: gridLines, points: points, guides: guides)
        }
        let s = g.subjectNormalized
        return GuidanceDrawing(
            subject: s.map { ($0.x, $0.y, $0.width, $0.height) }, target: g.target.map { ($0.x, $0.y) },
            advice: g.advice, rule: g.rule, score: (g.score * 100).rounded() / 100,
            wellComposed: g.wellComposed, locked: g.locked, grid: gridLines, points: points, guides: guides)
    }
}

/// Appends JSON objects, one per line, to a file, a FIFO or a pipe (`/dev/stdout | jq`).
///
/// `init` only checks the path; `open()` (from the stage's `open`, just before start) opens it with
/// O_APPEND, so nothing seeks and a non-seekable file works. A failed write (a full disk, a closed pipe)
/// drops that line and is reported once (`Log.stages`) naming the stage; the stream goes on.
final class JSONLineWriter: @unchecked Sendable {
    let path: String
    let stage: String
    private var file: AppendFile?
    private let lock = NSLock()
    /// Lines that could not be written.
    private(set) var failedLines = 0

    init(path: String, stage: String) throws(StageError) {
        self.path = path
        self.stage = stage
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue {
                throw StageError(.usage, "\(stage): metadata-location '\(Echo.value(path))' is a directory: expected a file")
            }
            if !fm.isWritableFile(atPath: path) {
                throw StageError(.usage, "\(stage): metadata-location '\(Echo.value(path))' is not writable")
            }
        } else if let problem = PathCheck.writableFile(path) {
            throw StageError(.usage, "\(stage): cannot write metadata-location '\(Echo.value(path))': \(problem)")
        }
    }

    /// Opens (creating a missing file) for appending. A FIFO without a reader is waited for, as a shell's `>>` does.
    func open() throws(StageError) {
        lock.lock(); defer { lock.unlock() }
        if file != nil { return }
        do {
            file = try AppendFile(path: path) {
                Log.stages.say(.notice, "\(self.stage): waiting for a reader on metadata-location '\(self.path)'")
            }
        } catch {
            throw StageError(.resource, "\(stage): cannot open metadata-location '\(path)': \(error.message)")
        }
    }

    func write(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        lock.lock(); defer { lock.unlock() }
        guard let file, let problem = file.write(Array(data) + [0x0A]) else { return }
        failedLines += 1
        if failedLines == 1 {
            Log.stages.say(
                .warning,
                "WARNING from stage \(stage): cannot write metadata-location '\(path)': \(problem); metadata lines are dropped, the stream goes on"
            )
        }
    }

    func flush() { lock.lock(); defer { lock.unlock() }; file?.synchronize() }
}

extension ComposeStage {
    /// Opens `metadata-location` (the stage's only file), just before the pipelines start.
    public func open() throws(StageError) { try json?.open() }

    /// Metadata lines that could not be written (a full disk, a closed pipe).
    public var failedMetadataLines: Int { json?.failedLines ?? 0 }
}

/// Builds the detection engines `engine=` can use, from Debian's opencv-data cascades.
enum ComposeEngines {
    /// `minFace` is in analysed pixels; OpenCV's frontal cascade cannot go below its 24 px window.
    struct FaceOptions: Sendable { var verify = true, profiles = true, rotations = false, cnnThreads = 1 }

    /// Whether `engine=auto`'s fallback (no cnn library) was reported (`Log.stages`): once per process.
    private static let fallbackReported = Mutex(false)

    /// The engines for `engine`. `engine=cnn` without its library is a usage error (exit 2 before anything
    /// runs) naming the file and `launch/setup`; `engine=auto` then goes on with the cascades and says so
    /// once (`Log.stages`: the CLI's stderr).
    static func make(_ engine: ComposeStage.Engine, minFace: Int, faces o: FaceOptions, stage: String) throws(StageError)
        -> [any DetectionEngine]
    {
        func cnn() throws(CNNFaceEngine.LoadError) -> CNNFaceEngine { try CNNFaceEngine(threads: o.cnnThreads, minFace: minFace) }
        var first: [any DetectionEngine] = []
        switch engine {
        case .cnn:
            do { return [try cnn()] } catch { throw StageError(.usage, "\(stage): engine=cnn: \(error)") }
        case .auto:
            do { first = [try cnn()] } catch {
                let report = fallbackReported.withLock { r in
                    defer { r = true }
                    return !r
                }
                if report {
                    Log.stages.say(.notice, "\(stage): engine=auto: no cnn engine (\(error)); using the face cascades")
                }
            }
        default: break
        }
        do {
            func face() throws -> FaceEngine {
                try FaceEngine(minFace: max(24, minFace), verify: o.verify, rotations: o.rotations, profiles: o.profiles)
            }
            switch engine {
            case .faces: return [try face()]
            case .bodies: return [try BodyEngine()]
            case .people: return [PeopleEngine()]
            case .saliency: return [SaliencyEngine()]
            case .upstream: return [FixedDetections(detections: [])]
            case .cnn: return first
            // People (HOG) before the cascades: on vtest it finds the walkers the full-body cascade finds, with
            // fewer false boxes (figures in PeopleEngineTests), so the full-body cascade is left out; the
            // upper-body cascade stays behind it for people too close for HOG's whole-body window (head and
            // shoulders filling the frame), and runs only when HOG finds no one.
            case .auto: return first + [try face(), PeopleEngine(), try BodyEngine(fullBody: false), SaliencyEngine()]
            }
        } catch {
            throw StageError(.resource, "\(stage): cannot load the \(engine.rawValue) engine: \(error) (install opencv-data)")
        }
    }

    /// The input's `min-face` in analysed pixels.
    static func analysedMinFace(_ minFace: Int, analysisWidth: Int, inputWidth: Int) -> Int {
        Int((Double(minFace) * Double(analysisWidth) / Double(max(1, inputWidth))).rounded())
    }
}
