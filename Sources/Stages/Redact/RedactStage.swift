import Diagnostics
import Foundation
import FrameAnalysis
import GStreamerKit
import Synchronization

/// Covers every face (and/or person) on every frame: a detector (the cnn for faces, the face cascades when it is not
/// installed; HOG for people) looks at every `detect-every`-th frame on the video thread (`sync`, the default: that frame
/// is covered by its own detections) or at the newest frame it can on a thread of its own, an `ObjectTracker` carries each
/// face between its analyses (with the camera's motion, measured on every frame, and its own speed) and holds it for
/// `hold` seconds after it was last seen, and `RedactionPlan` grows each cover with the margin and its age. It never
/// fails open: until the first analysis, and whenever the newest analysis is older than `max-delay` (the detector
/// starved of CPU, or stuck), the whole frame is covered (`starved=frame`; `grow` keeps covering the tracks, growing),
/// and a `viewfinder/redact` message says so when it starts and ends. A scene change (a cut to another shot) is a
/// detector behind until an analysis of the new shot arrives.
public final class RedactStage: Stage, @unchecked Sendable {  // `detector` is set once in open(), then only read.
    private let name: String
    private let kinds: Set<ObjectTracker.Kind>
    private let analysisWidth: Int
    private let sync: Bool
    private let detectEvery: Int
    private struct Settings {
        var mode: RegionCover.Mode
        var plan: RedactionPlan
        var hold: Double
    }
    private let settings: Mutex<Settings>
    private struct State {
        var tracker: ObjectTracker?
        var reducer: VideoScaler?
        /// Scene changes and the camera's motion, from the frames.
        var motion = FrameMotion()
        /// The newest analysed frame's time taken into the tracker.
        var newest: Double?
        /// A scene change at this time: analyses of earlier frames say nothing of the new shot.
        var changeAt: Double?
        var behind = false
        var frames = 0, covered = 0, whole = 0, analyses = 0
    }
    private let state = Mutex(State())
    /// Detections of analysed frames not yet taken by the video thread: (frame time, boxes in input pixels).
    private let results = Mutex<[(time: Double, found: [(box: Box, kind: ObjectTracker.Kind)])]>([])
    /// The detector's RGB image from the small copy (made on the analysis thread).
    private let rgb = Mutex<VideoScaler?>(nil)
    private var detector: Detector?
    private var worker: AnalysisWorker<Job>?

    /// One frame for the detector: its small RGB copy and what it maps back to.
    struct Job: Sendable {
        var reduced: VideoFrame
        var time: Double
        var inputWidth: Int, inputHeight: Int
    }

    /// The engines for what is covered.
    struct Detector: Sendable {
        var faces: (any DetectionEngine)?
        var people: PeopleEngine?
    }

    /// Creates the stage from validated properties (nothing loaded: `open()` does).
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        self.name = name
        kinds = p[Self.what].kinds
        analysisWidth = p[Self.analysisWidth] & ~1
        sync = p[Self.sync]
        detectEvery = p[Self.detectEvery]
        settings = Mutex(
            Settings(
                mode: p[Self.mode].cover,
                plan: RedactionPlan(margin: p[Self.margin], maxDelay: p[Self.maxDelay], starved: p[Self.starved].plan),
                hold: p[Self.hold]))
    }

    /// Loads the detectors and starts the analysis thread. Faces: the cnn, else the face cascades (said once on
    /// stderr); neither is an error naming the stage.
    public func open() throws(StageError) {
        guard detector == nil else { return }
        var d = Detector()
        if kinds.contains(.face) {
            do {
                d.faces = try CNNFaceEngine(threads: 1, minFace: 0)
            } catch {
                Log.stages.say(.notice, "\(name): no cnn engine (\(error)); using the face cascades")
                do { d.faces = try FaceEngine(minFace: 24, verify: false, rotations: false, profiles: true) } catch {
                    throw StageError(.usage, "\(name): no face detector: \(error)")
                }
            }
        }
        if kinds.contains(.person) { d.people = PeopleEngine() }
        detector = d
        let detector = d
        if !sync { worker = AnalysisWorker(name: "vf-\(name)-detect") { [weak self] job in self?.detect(job, with: detector) } }
    }

    /// Changes mode, margin, hold, max-delay or starved; effective on the next frame.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        let bad = StageError(.usage, "\(name): property '\(property)' cannot change while playing")
        var s = settings.withLock { $0 }
        switch property {
        case Self.mode.name: s.mode = try Self.mode.value(value, orThrow: bad).cover
        case Self.margin.name: s.plan.margin = try Self.margin.value(value, orThrow: bad)
        case Self.hold.name: s.hold = try Self.hold.value(value, orThrow: bad)
        case Self.maxDelay.name: s.plan.maxDelay = try Self.maxDelay.value(value, orThrow: bad)
        case Self.starved.name: s.plan.starved = try Self.starved.value(value, orThrow: bad).plan
        default: throw bad
        }
        settings.withLock { $0 = s }
    }

    /// New layout: a new small copy for the detector, a new tracker (nothing known of the new picture).
    public func configure(_ info: VideoInfo) throws(StageError) {
        do {
            let (reducer, scaler) = try VideoScaler.analysisCopy(of: info, width: analysisWidth)
            rgb.withLock { $0 = scaler }
            let hold = settings.withLock { $0.hold }
            state.withLock { st in
                st.reducer = reducer
                st.tracker = ObjectTracker(frameWidth: info.width, frameHeight: info.height, hold: hold)
                st.motion.reset(); st.newest = nil; st.changeAt = nil
            }
            results.withLock { $0.removeAll() }
        } catch {
            throw StageError(.library, "\(name): \(error)")
        }
    }

    /// Waits (in real time, at most 10 s) until the detector has analysed what it was given; the next frame takes it.
    func awaitAnalyses() { worker?.drain() }
    /// Seconds the detector waits before each analysis: a test's starved analysis thread.
    let stall = Mutex(0.0)

    /// On the analysis thread: the detections of one frame, in input pixels.
    private func detect(_ job: Job, with d: Detector) {
        let wait = stall.withLock { $0 }
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        let image: RGBImage
        do {
            // A job queued before a caps change is of the old layout: skipped.
            guard let scaled = try rgb.withLock({ sc throws(GStreamerError) -> RGBImage? in
                guard let sc, sc.input == job.reduced.info else { return nil }
                return RGBImage(width: sc.width, height: sc.height, pixels: try sc.rgb(of: job.reduced))
            }) else { return }
            image = scaled
        } catch {
            Log.stages.say(.warning, "\(name): the detector's copy failed: \(error)")
            return
        }
        let sx = Double(job.inputWidth) / Double(image.width), sy = Double(job.inputHeight) / Double(image.height)
        var found: [(box: Box, kind: ObjectTracker.Kind)] = []
        if let f = d.faces { found += f.detect(in: image).map { ($0.box.scaled(sx, sy), .face) } }
        if let p = d.people { found += p.detect(in: image).map { ($0.box.scaled(sx, sy), .person) } }
        results.withLock { $0.append((job.time, found)) }
    }

    /// Takes the detector's results, moves the tracks with the camera, offers this frame to the detector and covers
    /// what the plan says on every plane.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let time = frame.pts.map { Double($0) / 1e9 } ?? Double(frame.index) / 30
        let info = frame.info
        let sample = FrameMotion.sample(frame)
        let s = settings.withLock { $0 }
        // sync: this frame's own detections before it is covered (every detect-every frames, and always the first).
        if sync, let detector, state.withLock({ $0.frames % detectEvery == 0 || $0.newest == nil }),
            let reducer = state.withLock({ $0.reducer })
        {
            do {
                detect(Job(reduced: try reducer.reduced(frame), time: time, inputWidth: info.width, inputHeight: info.height), with: detector)
            } catch {
                throw StageError(.stream, "\(name): \(error)")
            }
        }
        let done = results.withLock { r in
            defer { r.removeAll() }
            return r
        }
        let (cover, behind, startedOrEnded, reducer) = state.withLock { st -> (RedactionPlan.Cover, Bool, Bool, VideoScaler?) in
            guard var tracker = st.tracker else { return (.frame, true, false, nil) }
            tracker.hold = s.hold
            let (_, cut, camera) = st.motion.take(sample)
            if cut { tracker.sceneChanged(); st.changeAt = time; st.newest = nil }
            if let camera { tracker.cameraMoved(camera, at: time) }
            for r in done.sorted(by: { $0.time < $1.time }) where r.time >= (st.changeAt ?? -.infinity) {
                tracker.detected(r.found.filter { kinds.contains($0.kind) }, at: r.time)
                st.newest = max(st.newest ?? r.time, r.time)
                st.analyses += 1
            }
            let last = tracker.tracks
            // Synced, the detector cannot fall behind (the video waits for it): fresh once it has looked at this shot,
            // however far apart its frames are (detect-every 30 is a second).
            let newest = sync ? st.newest.map { _ in time } : st.newest
            let (cover, behind) = s.plan.cover(
                tracker.tracks(at: time), last: last, at: time, newestAnalysis: newest, width: Double(info.width), height: Double(info.height))
            let changed = behind != st.behind && st.frames > 0
            st.behind = behind
            st.tracker = tracker
            st.frames += 1
            if case .frame = cover { st.whole += 1 } else if case .boxes(let b) = cover, !b.isEmpty { st.covered += 1 }
            return (cover, behind, changed, st.reducer)
        }
        if let reducer, let worker {
            do {
                worker.submit(Job(reduced: try reducer.reduced(frame), time: time, inputWidth: info.width, inputHeight: info.height))
            } catch {
                throw StageError(.stream, "\(name): \(error)")
            }
        }
        if startedOrEnded { context.post(RedactMessage(behind: behind, time: time).structure) }
        let boxes: [Box]
        switch cover {
        case .frame: boxes = [Box(x: 0, y: 0, width: Double(info.width), height: Double(info.height))]
        case .boxes(let b): boxes = b
        }
        guard !boxes.isEmpty else { return }
        try Self.cover(frame, boxes: boxes, mode: s.mode, stage: name)
    }

    /// Covers `boxes` (input pixels) in every colour component of `frame` (`VideoInfo.colourComponents`: luma and chroma
    /// at their subsampling, planar, semi-planar or packed; R, G and B of the RGB formats; alpha left as it is).
    static func cover(_ frame: VideoFrame, boxes: [Box], mode: RegionCover.Mode, stage: String) throws(StageError) {
        let info = frame.info
        let components = info.colourComponents
        guard !components.isEmpty else { throw StageError(.stream, "\(stage): cannot cover \(info.format): not 8 bits a sample") }
        for plane in Set(components.map(\.plane)).sorted() {
            let mine = components.filter { $0.plane == plane }
            let mapped = frame.withMutablePlane(plane) { (px: inout MutableSpan<UInt8>, stride: Int) in
                for c in mine {
                    let hs = c.horizontalSub, vs = c.verticalSub
                    let pw = (info.width + (1 << hs) - 1) >> hs, ph = (info.height + (1 << vs) - 1) >> vs
                    for b in boxes {
                        // Outwards to whole samples of this component.
                        let x0 = Int(b.x) >> hs, y0 = Int(b.y) >> vs
                        let x1 = (Int((b.x + b.width).rounded(.up)) + (1 << hs) - 1) >> hs
                        let y1 = (Int((b.y + b.height).rounded(.up)) + (1 << vs) - 1) >> vs
                        let r = RegionCover.Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                        RegionCover.cover(
                            &px, width: pw, height: ph, stride: stride, pixelStride: c.pixelStride, offset: c.offset, region: r, mode: mode,
                            fill: c.black)
                    }
                }
            }
            guard mapped else { throw StageError(.stream, "\(stage): could not map the frame for writing") }
        }
    }

    /// Ends the analysis thread.
    public func finish(context: StageContext) { worker?.stop() }

    /// "redact0: 300 frames, 41 analyses; 280 with covers, 12 covered whole (detector behind)".
    public func summary() -> String? {
        let (frames, analyses, covered, whole) = state.withLock { ($0.frames, $0.analyses, $0.covered, $0.whole) }
        guard frames > 0 else { return nil }
        return "\(name): \(frames) frames, \(analyses) analyses; \(covered) with covers, \(whole) covered whole (detector behind)"
    }
}

/// `viewfinder/redact`: the detector fell behind (the whole frame is covered from now) or caught up.
public struct RedactMessage: Sendable, Equatable {
    /// The structure's name.
    public static let structureName = "viewfinder/redact"
    /// Whether the detector is behind from this frame on.
    public var behind: Bool
    /// The frame's stream time (s).
    public var time: Double

    /// The message's structure.
    public var structure: MessageStructure { MessageStructure(Self.structureName, [("behind", .bool(behind)), ("time", .double(time))]) }
}
