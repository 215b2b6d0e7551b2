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
///
/// Its parts (`Compose/`): `ComposeProperties` (descriptor and property keys), `ComposeState` (the values
/// behind each lock, the analysis `Job`), `ComposeEngines` (what `engine=` builds), `ComposeAnalysis` (the
/// analysis thread), `ComposeDrawing` (guidance and text rows), `ComposeMetadata` (the JSON-lines schema)
/// and `JSONLineWriter` (the `metadata-location` file); `CompositionMeta` is the schema of its custom meta.
public final class ComposeStage: Stage, @unchecked Sendable {  // `worker` is set once in init, then only read.
    /// The custom meta name other stages and applications read (`CompositionMeta`).
    public static let metaName = CompositionMeta.name

    // Lock order: settings, then state, then results; `analysis` is taken alone (analysis thread,
    // configure), never together with the others. The analysis thread takes settings and results
    // one after the other, never nested. The locks and what the analysis thread reads are internal, not
    // private: `ComposeAnalysis` and `ComposeDrawing` are this class's own code in files of their own.
    private let name: String
    let settings: Mutex<Settings>
    let state = Mutex(State())
    let results = Mutex(Results())
    /// `facedetect` results by buffer timestamp (engine=upstream), the newest 128.
    let upstream = Mutex<[UInt64: [Box]]>([:])
    let analysis: Mutex<Analysis>
    /// The converter making the analysis copy: used by `process` (video thread) and `configure` only.
    private let reducer = Mutex<VideoScaler?>(nil)
    let engineChoice: Engine
    private let faceOptions: ComposeEngines.FaceOptions
    /// The marks of every rule registered when the stage was made (and of its own rule), by name.
    let ruleMarks: [String: RuleMarks]
    private let minFace: Int
    private let analysisWidth: Int
    private let warmupNs: UInt64
    private let synchronous: Bool
    let json: JSONLineWriter?
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
                    engine: engineChoice.rawValue, rule: rule),
                rotation: p[Self.fallbacks] == .staggered ? FallbackRotation(every: p[Self.fallbackEvery]) : nil))
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
        do {
            // The small copy on the video thread; the analysis thread only packs it into the analysis image.
            let (reducer, scaler) = try VideoScaler.analysisCopy(of: info, width: analysisWidth)
            self.reducer.withLock { $0 = reducer }
            analysis.withLock {
                $0.scaler = scaler; $0.tracker = ObjectTracker(frameWidth: scaler.width, frameHeight: scaler.height)
            }
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

    /// Analyses `frame` now, on the calling (video) thread, whatever the schedule, with the smoother started afresh (a
    /// new shot: nothing of the last one carries over), publishes the result as the latest (the next frames' meta
    /// carries it) and returns it; nil when the frame could not be analysed (before its caps). `reframe` calls it on a
    /// scene change and on its first frame. The stream waits one analysis, and the analysis thread's job under way.
    public func analyseNow(_ frame: VideoFrame) throws(StageError) -> CompositionMeta.Analysis? {
        guard let job = try job(for: frame) else { return nil }
        state.withLock { st in
            if st.firstPTS == nil { st.firstPTS = frame.pts }
            if let pts = frame.pts { st.lastSubmitted = pts; st.newestPTS = pts }
        }
        let before = results.withLock { $0.analysed }
        analysis.withLock { $0.smoother = GuidanceSmoother() }
        analyse(job)
        return results.withLock { r in
            guard r.analysed > before, let g = r.latest, g.pts == frame.pts else { return nil }
            return CompositionMeta.Analysis(g, inputWidth: r.latestInput.width, inputHeight: r.latestInput.height)
        }
    }

    /// The analysis job for `frame`: its small copy, made here (clean pixels, before any drawing) with GStreamer's
    /// converter; nil before the caps (no converter yet).
    private func job(for frame: VideoFrame) throws(StageError) -> Job? {
        let reduced: VideoFrame?
        do {
            reduced = try reducer.withLock { r throws(GStreamerError) -> VideoFrame? in try r?.reduced(frame) }
        } catch {
            throw StageError(.library, "\(name): \(error)")
        }
        guard let reduced else { return nil }
        return Job(
            reduced: reduced, format: frame.info.format, pts: frame.pts, index: frame.index, inputWidth: frame.info.width,
            inputHeight: frame.info.height)
    }

    /// Submits the frame for analysis when due, attaches the latest result, queues the drawing.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        let due = state.withLock { (st: inout State) -> Bool in
            st.context = context
            guard let pts = frame.pts ?? frame.duration.map({ $0 * UInt64(frame.index) }) else { return false }
            if st.firstPTS == nil { st.firstPTS = pts }
            st.newestPTS = pts
            guard pts >= st.firstPTS! + warmupNs else { return false }
            let period = UInt64(1e9 / s.fps)
            if let last = st.lastSubmitted, pts < last + period - min(period / 10, 2_000_000) { return false }
            st.lastSubmitted = pts
            return true
        }
        let job = due ? try job(for: frame) : nil
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
}

extension ComposeStage {
    /// Opens `metadata-location` (the stage's only file), just before the pipelines start.
    public func open() throws(StageError) { try json?.open() }
}
