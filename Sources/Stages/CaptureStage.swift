import FrameAnalysis
import Foundation
import GStreamerKit
import Overlay
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The auto-capture assistant: waits for a steady camera and a well-composed frame (compose's
/// `ViewfinderComposition` meta), then sends the best recent clean frame down its `snapshot` output,
/// with EXIF tags, a thumbnail and an entry in `DIR/records.json`. Also the manual shutter (SIGUSR1, `s`,
/// the `viewfinder-capture` custom event, `at=`, `interval=`) and the self-timer.
///
/// Threads: `process` runs on the group's worker; `busMessage` on the host's thread; files are renamed,
/// read back and indexed on the stage's own writer queue, so saving never blocks the video.
public final class CaptureStage: Stage {
    /// The custom event (upstream or downstream) that triggers a capture; optional field `timer` (int seconds).
    public static let eventName = "viewfinder-capture"
    /// Element messages posted on every state change and capture.
    public static let messageName = "viewfinder/capture"

    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "capture",
        blurb: "Auto-capture: steady camera + good composition (compose's meta) -> the best recent frame as a photo with EXIF, thumbnail and records.json; manual, event, timed and self-timer triggers",
        properties: CaptureSettings.specs,
        outputs: [
            OutputSpec("snapshot", "the chosen full-resolution (or cropped) clean frame, after its tags (datetime, description, application, orientation)"),
            OutputSpec("thumbnail", "the same frame for a thumbnail branch"),
            OutputSpec("full", "the uncropped frame when crop and keep-full are set"),
        ],
        formats: overlayFormats)

    /// compose's verdict read from a frame's meta: one analysis, of the frame whose pts is `analysisPts`.
    struct Composition: Sendable {
        var rule: String, score: Double, composed: Bool, advice: String
        /// The drawn (smoothed) subject box, in pixels of an `inputWidth` x `inputHeight` frame.
        var subject: Box?
        /// The subject as detected in the analysed frame (nil: the meta has only the drawn box).
        var measured: Box?
        /// The pts of the analysed frame (nil: unknown).
        var analysisPts: UInt64?
        /// The frame size the boxes are in (0: the frame's own).
        var inputWidth = 0, inputHeight = 0

        /// Where the subject is in the analysed frame's pixels, scaled to a `width` x `height` frame.
        func box(width: Int, height: Int) -> Box? {
            guard let b = measured ?? subject else { return nil }
            guard inputWidth > 0, inputHeight > 0, inputWidth != width || inputHeight != height else { return b }
            return b.scaled(Double(width) / Double(inputWidth), Double(height) / Double(inputHeight))
        }

        /// A box in frame pixels seen through a crop window: clipped to it and moved to its origin;
        /// nil when the subject is outside the window.
        static func map(_ b: Box, into w: (x: Int, y: Int, width: Int, height: Int)) -> Box? {
            let x0 = max(b.x, Double(w.x)), y0 = max(b.y, Double(w.y))
            let x1 = min(b.x + b.width, Double(w.x + w.width)), y1 = min(b.y + b.height, Double(w.y + w.height))
            guard x1 > x0, y1 > y0 else { return nil }
            return Box(x: x0 - Double(w.x), y: y0 - Double(w.y), width: x1 - x0, height: y1 - y0)
        }
    }

    private struct RingEntry {
        var frame: VideoFrame
        var time: UInt64
        var candidate: CaptureChoice.Candidate
        /// compose's analysis of this very frame (arrives with a later frame's meta when compose analyses
        /// on its own thread); nil until then, or when this frame was not analysed.
        var composition: Composition?
    }

    /// One capture on its way to disk.
    struct Pending: Sendable {
        var number: Int
        var pts: UInt64?
        var trigger: CaptureTrigger
        /// The photo's own analysis, its subject box in the photo's pixels (after the crop).
        var composition: Composition?
        var crop: (x: Int, y: Int, width: Int, height: Int)?
        var date: Date
        /// Outputs whose default branch writes a file for it ("snapshot", "thumbnail", "full").
        var expected: Set<String>
        /// Files reported complete by multifilesink, by output.
        var files: [String: String] = [:]
        /// False when the snapshot branch is the user's own: the record is made if a multifilesink reports it.
        var tracked: Bool
        /// Every expected file reported (a user's branch: its one file).
        var complete: Bool { !tracked || expected.isSubset(of: Set(files.keys)) }
    }

    private struct Runtime {
        var machine = CaptureStateMachine()
        var estimator = StabilityEstimator()
        var scaler: VideoScaler?
        var ring: [RingEntry] = []
        var ringBytes = 0
        var timer = SelfTimer()
        var schedule: ShotSchedule
        var events: [MessageStructure] = []
        var nextNumber: Int
        var pending: [Pending] = []
        var posted: (CapturePhase, String, CaptureReadiness)?
        var overlayKey: String?
        var overlay: OverlayComposition?
        var labelKey: String?
        var labelImage: BGRAImage?
        /// The self-timer digit drawn for "n|width|height" (drawn once per digit, not per frame).
        var countdownKey: String?
        var countdownImage: (image: BGRAImage, x: Int, y: Int)?
        /// Frames compose is analysing on its own thread (copies), until their result arrives.
        var awaiting: [RingEntry] = []
        /// The newest frame whose own analysis arrived, kept even after it left the ring.
        var analysed: RingEntry?
        /// The pts of the last frame taken as a photo.
        var lastTakenPts: UInt64?
        /// Whether a frame's buffer is held outside the ring (so the ring must not reuse its memory).
        func isAside(_ f: VideoFrame) -> Bool {
            awaiting.contains { $0.frame.buffer === f.buffer } || analysed.map { $0.frame.buffer === f.buffer } ?? false
        }
        var sawMeta = false
        var warnedNoMeta = false
        var context: StageContext?
        var frames = 0
    }

    /// The stage's name.
    public let name: String
    private let settings: Mutex<CaptureSettings>
    private let runtime: Mutex<Runtime>
    private let triggers: Triggers
    /// Default branches the planner asked for (outputs nothing linked).
    private let defaultOutputs = Mutex<Set<String>>([])
    /// The index once `open()` made it (nil before, or with `index=false`); touched only on `writer`.
    private var index: PhotoIndex? { openedIndex.withLock { $0 } }
    private let openedIndex = Mutex<PhotoIndex?>(nil)
    /// Photos saved (file complete) during this run.
    private let saved = Mutex(0)
    private let writer: DispatchQueue
    /// Messages the index had while opening (reconcile), posted once frames flow.
    public var openingWarnings: [String] { openedWarnings.withLock { $0 } }
    private let openedWarnings = Mutex<[String]>([])

    /// Creates the stage listening to the process-wide triggers.
    public convenience init(name: String, properties: PropertyValues) throws(StageError) {
        try self.init(name: name, properties: properties, triggers: .shared)
    }

    /// Creates the stage listening to `triggers` (tests pass their own). Only checks the directory (it or
    /// its nearest existing ancestor is a writable directory); `open()` creates it and opens the index.
    public init(name: String, properties p: PropertyValues, triggers: Triggers) throws(StageError) {
        self.name = name
        let s = CaptureSettings(p)
        let schedule = ShotSchedule(p, keys: CaptureSettings.schedule, triggers: triggers)
        settings = Mutex(s)
        self.triggers = triggers
        if let problem = PathCheck.creatableDirectory(s.directory) {
            throw StageError(.usage, "\(name): cannot use directory '\(Echo.value(s.directory))': \(problem)")
        }
        writer = DispatchQueue(label: "vf-\(name)-writer")
        // Read only: the default branches' multifilesink numbers start here, before the index is opened.
        var rt = Runtime(schedule: schedule, nextNumber: PhotoIndex.plannedNextNumber(directory: s.directory))
        rt.machine.delay = UInt64(s.delay * 1e9)
        rt.machine.cooldown = UInt64(s.cooldown * 1e9)
        rt.machine.maxShots = schedule.maxShots
        rt.machine.maxPending = s.maxPending
        rt.machine.autoCapture = s.auto
        rt.estimator.stableAfter = p[CaptureSettings.stableAfter]
        rt.estimator.unstableAfter = p[CaptureSettings.unstableAfter]
        rt.estimator.steadyPixels = p[CaptureSettings.steadyPixels]
        rt.estimator.resetPixels = p[CaptureSettings.resetPixels]
        _ = rt.machine.handle(.start)
        runtime = Mutex(rt)
    }

    /// Directory, `thumbs/` and the `.partial/` work area, created by `open()`.
    public var createsDirectories: [String] {
        let dir = settings.withLock { $0.directory }
        let partial = FilePaths.join(dir, ".partial")
        return [dir, FilePaths.join(dir, "thumbs"), partial, FilePaths.join(partial, "thumbs")]
    }

    /// Just before the pipelines start: creates the directory and its work area, opens and reconciles
    /// the index (its warnings are printed and later posted on the bus).
    public func open() throws(StageError) {
        let s = settings.withLock { $0 }
        let idx: PhotoIndex
        do { idx = try PhotoIndex(directory: s.directory) } catch { throw StageError(error.domain, "\(name): \(error.message)") }
        let warnings = s.index ? idx.warnings : []
        openedWarnings.withLock { $0 = warnings }
        for w in warnings { AppendFile.writeStandardError("WARNING from stage \(name): \(w)\n") }
        writer.sync { openedIndex.withLock { $0 = s.index ? idx : nil } }
    }

    // MARK: - Reading state (tests, apps)

    /// The current stage of the state machine.
    public var phase: CapturePhase { runtime.withLock { $0.machine.phase } }
    /// Why it is there.
    public var reason: String { runtime.withLock { $0.machine.reason } }
    /// Photos captured so far.
    public var shots: Int { runtime.withLock { $0.machine.shots } }
    /// Frames held in the ring now, and their bytes.
    public var ring: (frames: Int, bytes: Int) { runtime.withLock { ($0.ring.count, $0.ringBytes) } }
    /// Records in the index (read on the writer queue, so it includes every photo already saved).
    public var records: [PhotoRecord] { writer.sync { index?.records ?? [] } }

    // MARK: - Branches

    private func path(_ rel: String) -> String {
        let dir = settings.withLock { $0.directory }
        return FilePaths.join(dir, rel)
    }

    /// multifilesink names of the default branches.
    func sinkName(_ output: String) -> String { "\(name)_\(output)_files" }

    /// Default branches write into `DIR/.partial/` (files are moved into DIR once complete):
    /// snapshot `jpegenc ! jifmux ! multifilesink`, thumbnail `videoscale ! <=300 px ! jpegenc ! multifilesink`,
    /// full like snapshot with `_full` names. Numbers continue after the highest photo in DIR.
    public func defaultBranch(for output: String) -> String? {
        let s = settings.withLock { $0 }
        let (start, quality) = runtime.withLock { ($0.nextNumber, $0.schedule.quality) }
        let partial = FilePaths.join(s.directory, ".partial")
        let sink = { (pattern: String) in
            "multifilesink name=\(self.sinkName(output)) location=\(Pipeline.quoted(FilePaths.join(partial, pattern))) index=\(start) post-messages=true"
        }
        let branch: String
        switch output {
        case "snapshot":
            branch = "queue max-size-buffers=8 ! jpegenc quality=\(quality) ! jifmux ! " + sink("IMG_%05d.jpg")
        case "thumbnail":
            guard s.thumbnails else { return nil }
            branch = "queue max-size-buffers=8 ! videoscale ! video/x-raw,width=[1,300],height=[1,300],pixel-aspect-ratio=1/1 ! jpegenc quality=85 ! " + sink("thumbs/IMG_%05d.jpg")
        case "full":
            guard s.crop != nil && s.keepFull else { return nil }
            branch = "queue max-size-buffers=8 ! jpegenc quality=\(quality) ! jifmux ! " + sink("IMG_%05d_full.jpg")
        default: return nil
        }
        return branch
    }

    /// Outputs given the default branches: their photos are tracked file by file.
    public func outputsPlanned(_ plans: [String: OutputPlan]) {
        defaultOutputs.withLock { d in
            d = Set(plans.compactMap { if case .defaultBranch = $0.value { return $0.key } else { return nil } })
        }
    }

    // MARK: - Properties while playing

    /// Changes auto, delay, cooldown, max-shots, manual, interval, timer or overlay while playing.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        var known = try settings.withLock { (s: inout CaptureSettings) throws(StageError) in
            try s.update(property, value: value, stage: "capture")
        }
        if !known {
            known = try runtime.withLock { (rt: inout Runtime) throws(StageError) in
                try rt.schedule.update(property, value: value, keys: CaptureSettings.schedule, stage: "capture")
            }
        }
        guard known else { throw StageError(.usage, "capture: property '\(property)' cannot change while playing") }
        let s = settings.withLock { $0 }
        runtime.withLock { rt in
            rt.machine.autoCapture = s.auto
            rt.machine.delay = UInt64(s.delay * 1e9)
            rt.machine.cooldown = UInt64(s.cooldown * 1e9)
            rt.machine.maxShots = rt.schedule.maxShots
        }
    }

    /// Layout known: the stability scaler is rebuilt and the history forgotten.
    public func configure(_ info: VideoInfo) throws(StageError) {
        let w = settings.withLock { $0.analysisWidth }
        let aw = min(w, info.width), ah = max(16, Int((Double(info.height) * Double(aw) / Double(info.width)).rounded()))
        let scaler: VideoScaler
        do { scaler = try VideoScaler(input: info, width: aw, height: ah, gray: true) } catch { throw StageError(.library, "\(name): \(error.message)") }
        runtime.withLock { rt in
            rt.scaler = scaler
            rt.estimator.reset()
            rt.ring.removeAll(); rt.ringBytes = 0
            rt.awaiting.removeAll(); rt.analysed = nil
        }
    }

    /// A `viewfinder-capture` custom event (field `timer` optional) triggers like the shutter.
    public func customEvent(_ event: MessageStructure) {
        guard event.name == Self.eventName else { return }
        runtime.withLock { $0.events.append(event) }
    }

    // MARK: - Frames

    /// Stability, ring, triggers, state, capture, overlay.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        let time = frame.runningTime ?? frame.pts ?? UInt64(frame.index) * 33_333_333
        // The latest analysis drives the live decision; a photo only ever carries its own frame's analysis.
        let (comp, analysing, skipped) = Self.composition(of: frame)
        let own = comp.flatMap { c in c.analysisPts != nil && c.analysisPts == frame.pts ? c : nil }
        // Luma for stability and sharpness (GStreamer's converter straight to GRAY8, a few thousand pixels).
        let scaler = runtime.withLock { $0.scaler }
        var gray: GrayImage?
        if let scaler {
            do { gray = GrayImage(width: scaler.width, height: scaler.height, pixels: try scaler.rgb(of: frame)) } catch {
                throw StageError(.stream, "\(name): \(error.message)")
            }
        }
        // The ring's copy reuses the memory of the entry it is about to evict when nothing else holds it.
        let spare: Buffer? = s.ringMs > 0 ? runtime.withLock { rt in
            guard let first = rt.ring.first, rt.ring.count > 1 else { return nil }
            let horizon = UInt64(s.ringMs) * 1_000_000
            guard first.time &+ horizon < time, !rt.isAside(first.frame) else { return nil }
            rt.ringBytes -= first.frame.buffer.size
            return rt.ring.removeFirst().frame.buffer
        } : nil
        let copy = s.ringMs > 0 || analysing ? frame.copied(reusing: spare) : nil
        let fired = triggers.count
        let backlog = context.backlog(on: "snapshot")
        var posts: [MessageStructure] = []
        var capture: (CaptureTrigger, RingEntry, Int)?
        runtime.withLock { rt in
            rt.context = context
            rt.frames += 1
            if rt.machine.phase == .startingCamera {
                _ = rt.machine.handle(.firstFrame)
                for w in openingWarnings { posts.append(MessageStructure(Self.messageName, [("event", .string("warning")), ("text", .string(w))])) }
            }
            let step = gray.map { rt.estimator.update($0) }
            let candidate = CaptureChoice.Candidate(score: own?.score, sharpness: step?.sharpness ?? 0,
                                                    motion: Double(step?.magnitude ?? 0))
            if let skipped { rt.awaiting.removeAll { $0.frame.pts == skipped } }
            // An analysis that finished after its frame went by belongs to that frame: in the ring, and in
            // the frames kept aside for it (a slow analysis may end after the frame left the ring).
            if let c = comp, own == nil, let apts = c.analysisPts {
                if let i = rt.ring.lastIndex(where: { $0.frame.pts == apts }), rt.ring[i].composition == nil {
                    rt.ring[i].composition = c
                    rt.ring[i].candidate.score = c.score
                }
                if let i = rt.awaiting.firstIndex(where: { $0.frame.pts == apts }) {
                    var e = rt.awaiting.remove(at: i)
                    e.composition = c
                    e.candidate.score = c.score
                    rt.analysed = e
                }
                rt.awaiting.removeAll { ($0.frame.pts ?? 0) < apts }
            }
            if comp != nil { rt.sawMeta = true }
            if s.auto && !rt.sawMeta && !rt.warnedNoMeta && rt.frames == 90 {
                rt.warnedNoMeta = true
                posts.append(MessageStructure(Self.messageName, [("event", .string("warning")),
                    ("text", .string("no ViewfinderComposition meta on the frames: auto capture needs 'compose' before 'capture'"))]))
            }
            // Ring of clean copies: newest last, bounded by time and bytes.
            let current = RingEntry(frame: copy ?? frame, time: time, candidate: candidate, composition: own)
            if analysing, let copy {
                // compose analyses this frame on its thread: kept until its result arrives (or compose says
                // the job was replaced by a newer one before it ran). Bounded: compose runs one job and
                // holds one more, so more than four waiting means results were lost; the oldest goes.
                rt.awaiting.append(RingEntry(frame: copy, time: time, candidate: candidate, composition: nil))
                if rt.awaiting.count > 4 { rt.awaiting.removeFirst() }
            } else if let own, let copy {
                rt.analysed = RingEntry(frame: copy, time: time, candidate: candidate, composition: own)
            }
            if let copy, s.ringMs > 0 {
                rt.ring.append(current)
                rt.ringBytes += copy.buffer.size
                let horizon = UInt64(s.ringMs) * 1_000_000
                while rt.ring.count > 1, rt.ring[0].time &+ horizon < time || rt.ringBytes > s.ringBytes {
                    rt.ringBytes -= rt.ring.removeFirst().frame.buffer.size
                }
            }
            // Auto: the state machine decides from this frame's observation.
            // A verdict counts once: after a photo, auto waits for an analysis of a later frame (a slow
            // analysis must not make photos of moments nobody judged).
            let fresh = comp.map { c in rt.lastTakenPts.map { last in (c.analysisPts ?? UInt64.max) > last } ?? true } ?? false
            let obs = CaptureStateMachine.Observation(time: time, stable: step?.stable ?? false,
                                                      subject: comp?.subject != nil, composed: (comp?.composed ?? false) && fresh)
            // A branch of the user's own is not tracked file by file: its queue is the bound instead
            // (the appsrc blocks when full, and the video must never wait for a save).
            let busy = backlog >= s.maxPending
            if busy { rt.machine.autoCapture = false }
            var decision = rt.machine.handle(.observe(obs))
            rt.machine.autoCapture = s.auto
            // Other triggers: manual shutter, events, frame numbers, interval; the self-timer delays them.
            var asked: [(CaptureTrigger, Int?)] = []
            // Events first, then the schedule's manual, at and interval triggers.
            for e in rt.events { asked.append((.event, e.integer("timer").map { Int($0) })) }
            rt.events.removeAll()
            let due = rt.schedule.due(frame: frame.index, time: time, fired: fired)
            if due.first == .manual { asked.insert((.manual, nil), at: 0) }
            for kind in due where kind != .manual { asked.append((kind, nil)) }
            if busy && !asked.isEmpty {
                posts.append(MessageStructure(Self.messageName, [("event", .string("refused")), ("reason", .string("busy: \(backlog) photos queued on the snapshot output")),
                    ("readiness", .string(CaptureReadiness.busy.rawValue))]))
                asked.removeAll()
            }
            for (kind, timerOverride) in asked {
                let secs = timerOverride ?? s.timer
                if secs > 0 {
                    rt.timer.arm(at: time, seconds: secs)
                    posts.append(MessageStructure(Self.messageName, [("event", .string("timer")), ("trigger", .string(kind.rawValue)),
                        ("seconds", .int(Int32(secs))), ("fires-at", .uint64(rt.timer.deadline ?? 0))]))
                } else if case .none = decision {
                    decision = rt.machine.handle(.trigger(kind, time: time))
                } else {
                    posts.append(MessageStructure(Self.messageName, [("event", .string("refused")), ("trigger", .string(kind.rawValue)), ("reason", .string("already capturing"))]))
                }
            }
            if rt.timer.fires(at: time), case .none = decision {
                decision = rt.machine.handle(.trigger(.timer, time: time))
            }
            switch decision {
            case .none: break
            case .refused(let why):
                posts.append(MessageStructure(Self.messageName, [("event", .string("refused")), ("reason", .string(why)),
                    ("readiness", .string(rt.machine.readiness.rawValue))]))
            case .capture(let kind):
                // The best frame of the ring; for the self-timer, of the frames at its deadline only
                // (this one and the one before), so the photo is the moment the countdown promised.
                // Frames whose own analysis is known come first, so the photo's record tells its truth.
                var all = kind == .timer ? Array(rt.ring.suffix(2)) : rt.ring
                // The latest analysed frame, when it has left the ring: the frame the verdict was about.
                if kind != .timer, let a = rt.analysed, !all.contains(where: { $0.frame.pts == a.frame.pts }) { all.insert(a, at: 0) }
                // A new photo is of a later moment than the last one (a slow analysis must not make two of one frame).
                if let last = rt.lastTakenPts { all.removeAll { ($0.frame.pts ?? UInt64.max) <= last } }
                let analysed = all.filter { $0.composition != nil }
                let pool = analysed.isEmpty ? all : analysed
                let pick = pool.isEmpty ? current : pool[CaptureChoice.best(pool.map(\.candidate)) ?? (pool.count - 1)]
                capture = (kind, pick, rt.nextNumber)
                if let p = pick.frame.pts { rt.lastTakenPts = p }
                rt.nextNumber += 1
            }
        }
        if let (kind, pick, number) = capture {
            posts += take(kind, pick, number: number, settings: s, context: context)
        }
        // State changes and readiness on the bus.
        let (state, changed) = runtime.withLock { rt -> ((CapturePhase, String, CaptureReadiness, Int, Int, Int?), Bool) in
            let st = (rt.machine.phase, rt.machine.reason, rt.machine.readiness, rt.machine.shots, rt.machine.pending, rt.timer.remaining(at: time))
            if let p = rt.posted, p.0 == st.0, p.1 == st.1, p.2 == st.2 { return (st, false) }
            rt.posted = (st.0, st.1, st.2)
            return (st, true)
        }
        if changed {
            posts.append(MessageStructure(Self.messageName, [("event", .string("state")), ("state", .string(state.0.rawValue)),
                ("reason", .string(state.1)), ("readiness", .string(state.2.rawValue)), ("shots", .int(Int32(state.3))),
                ("pending", .int(Int32(state.4))), ("pts", .uint64(frame.pts ?? UInt64.max))]))
        }
        for m in posts { context.post(m) }
        if s.overlay { drawOverlay(on: frame, phase: state.0, reason: state.1, countdown: state.5) }
    }

    /// Reads compose's meta from the frame: the latest analysis, and whether this frame is being analysed.
    /// `skipped`: the pts of an earlier frame whose analysis compose dropped (a newer frame replaced it).
    static func composition(of frame: VideoFrame) -> (Composition?, analysing: Bool, skipped: UInt64?) {
        guard let text = frame.buffer.customMetaText(ComposeStage.metaName), let m = MessageStructure(parsing: text) else { return (nil, false, nil) }
        let analysing = m.bool("analysing") ?? false
        let skipped = m.integer("skipped-pts").map { UInt64(bitPattern: $0) }
        guard let score = m.double("score") else { return (nil, analysing, skipped) }
        var box: Box?
        if let w = m.double("width"), let h = m.double("height"), w > 0, h > 0, let x = m.double("x"), let y = m.double("y") {
            box = Box(x: x, y: y, width: w, height: h)
        }
        var measured: Box?
        if let w = m.double("measured-width"), let h = m.double("measured-height"), w > 0, h > 0,
           let x = m.double("measured-x"), let y = m.double("measured-y") {
            measured = Box(x: x, y: y, width: w, height: h)
        }
        let apts = m.integer("analysis-pts").map { UInt64(bitPattern: $0) }
        return (Composition(rule: m.string("rule") ?? "", score: score, composed: m.bool("well-composed") ?? false,
                           advice: m.string("advice") ?? "", subject: box, measured: measured,
                           analysisPts: apts == UInt64.max ? nil : apts,
                           inputWidth: m.integer("input-width").map { Int($0) } ?? 0, inputHeight: m.integer("input-height").map { Int($0) } ?? 0), analysing, skipped)
    }

    /// Crops, tags and pushes the chosen frame; registers the pending save. Returns messages to post.
    private func take(_ kind: CaptureTrigger, _ pick: RingEntry, number: Int, settings s: CaptureSettings, context: StageContext) -> [MessageStructure] {
        var photo = pick.frame
        var window: (x: Int, y: Int, width: Int, height: Int)?
        var full: VideoFrame?
        // Rule, score, advice and box all come from the analysis of this frame; the box in its pixels.
        var c = pick.composition
        let subject = c?.box(width: photo.info.width, height: photo.info.height)
        c?.subject = subject.flatMap { Composition.map($0, into: (0, 0, photo.info.width, photo.info.height)) }
        c?.measured = nil
        c?.inputWidth = 0; c?.inputHeight = 0
        if let aspect = s.crop {
            let w = CaptureChoice.crop(width: photo.info.width, height: photo.info.height, aspect: aspect,
                                       subject: subject, rule: c?.rule ?? "thirds")
            do {
                let aligned = photo.alignedCrop(x: w.x, y: w.y, width: w.width, height: w.height)
                window = aligned
                let cropped = try photo.cropped(x: w.x, y: w.y, width: w.width, height: w.height)
                if s.keepFull { full = photo }
                photo = cropped
                // The box as the cropped photo sees it (none when the subject is outside the crop).
                c?.subject = subject.flatMap { Composition.map($0, into: aligned) }
            } catch {
                return fail(capture: "crop failed: \(error.message)", time: pick.time)
            }
        }
        var desc = "Viewfinder photo \(number) (\(kind.rawValue))"
        if let c { desc += String(format: ": %@, score %.2f, %@", c.rule, c.score, c.advice) }
        let tags = ShotSender.tags(description: desc, orientation: s.orientation)
        // Register the save before anything is pushed: a fast branch may report its file before push() returns.
        let defaults = defaultOutputs.withLock { $0 }
        let tracked = defaults.contains("snapshot")
        var expected: Set<String> = tracked ? ["snapshot"] : []
        if s.thumbnails && defaults.contains("thumbnail") { expected.insert("thumbnail") }
        if full != nil && defaults.contains("full") { expected.insert("full") }
        let keep = s.index || tracked
        runtime.withLock { rt in
            _ = rt.machine.handle(.captured(time: pick.time))
            if keep {
                rt.pending.append(Pending(number: number, pts: photo.pts, trigger: kind, composition: c,
                                          crop: window, date: Date(), expected: expected, tracked: tracked))
                // Bounded: tracked saves are limited by max-pending; untracked leftovers by this.
                if rt.pending.count > 4 * s.maxPending { rt.pending.removeFirst(rt.pending.count - 4 * s.maxPending) }
            }
        }
        guard ShotSender.send(photo, tags: tags, on: "snapshot", context: context) else {
            let why = "the snapshot output is not running"
            runtime.withLock { rt in
                rt.pending.removeAll { $0.number == number }
                _ = rt.machine.handle(.saveFailed(why, time: pick.time))
            }
            return [MessageStructure(Self.messageName, [("event", .string("error")), ("reason", .string(why))])]
        }
        var missing: Set<String> = []
        if s.thumbnails, !context.push(photo, on: "thumbnail") { missing.insert("thumbnail") }
        if let full, !ShotSender.send(full, tags: tags, on: "full", context: context) { missing.insert("full") }
        let (phase, readiness, done) = runtime.withLock { rt -> (CapturePhase, CaptureReadiness, Pending?) in
            // A branch of the user's own: handed over counts as saved for the state machine.
            if !tracked { _ = rt.machine.handle(.saved) }
            var done: Pending?
            if !missing.isEmpty, let i = rt.pending.firstIndex(where: { $0.number == number }) {
                rt.pending[i].expected.subtract(missing)
                if rt.pending[i].tracked && rt.pending[i].complete { done = rt.pending.remove(at: i) }
            }
            return (rt.machine.phase, rt.machine.readiness, done)
        }
        if let done { writer.async { [self] in self.finish(done) } }
        return [MessageStructure(Self.messageName, [
            ("event", .string("capture")), ("number", .int(Int32(number))), ("trigger", .string(kind.rawValue)),
            ("pts", .uint64(photo.pts ?? UInt64.max)), ("frame", .uint64(UInt64(photo.index))),
            ("score", .double(c?.score ?? -1)), ("width", .int(Int32(photo.info.width))), ("height", .int(Int32(photo.info.height))),
            ("state", .string(phase.rawValue)), ("readiness", .string(readiness.rawValue)),
        ])]
    }

    private func fail(capture why: String, time: UInt64) -> [MessageStructure] {
        runtime.withLock { _ = $0.machine.handle(.captureFailed(why, time: time)) }
        return [MessageStructure(Self.messageName, [("event", .string("error")), ("reason", .string(why))])]
    }

    // MARK: - Files

    /// multifilesink reports each file it closed; the host reports a branch that failed.
    public func busMessage(_ message: BusMessage) {
        let m = message.structure, source = message.source
        guard m.name == "GstMultiFileSink", let file = m.string("filename") else { return }
        let ts = m.integer("timestamp").map { UInt64(bitPattern: $0) }
        let output = ["snapshot", "thumbnail", "full"].first { sinkName($0) == source }
        let done: Pending? = runtime.withLock { rt in
            // Our default sinks name their output; any other multifilesink is the user's snapshot branch.
            let kind = output ?? "snapshot"
            guard let i = rt.pending.firstIndex(where: { p in
                p.pts == ts && p.files[kind] == nil && (output != nil ? p.expected.contains(kind) : !p.tracked)
            }) else { return nil }
            rt.pending[i].files[kind] = file
            guard rt.pending[i].complete else { return nil }
            return rt.pending.remove(at: i)
        }
        if let done { writer.async { [self] in self.finish(done) } }
    }

    /// Moves the files of a complete capture into place, reads the photo back, indexes it.
    private func finish(_ p: Pending) {
        let s = settings.withLock { $0 }
        var final: [String: String] = [:]
        var problem: String?
        // Never replace a photo already in DIR (a restarted branch may count from an old number):
        // such a capture takes the next free number for all of its files.
        var renumber: Int?
        if p.tracked, let photo = p.files["snapshot"],
           FileManager.default.fileExists(atPath: (s.directory as NSString).appendingPathComponent((photo as NSString).lastPathComponent)) {
            renumber = PhotoIndex.highestNumber(in: s.directory) + 1
        }
        for (output, file) in p.files.sorted(by: { $0.key < $1.key }) {
            guard PhotoIndex.syncFile(file) else { problem = "cannot read back '\(file)'"; break }
            guard p.tracked else { final[output] = file; continue }
            var base = (file as NSString).lastPathComponent
            if let n = renumber { base = String(format: output == "full" ? "IMG_%05d_full.jpg" : "IMG_%05d.jpg", n) }
            let rel = output == "thumbnail" ? "thumbs/" + base : base
            let dest = (s.directory as NSString).appendingPathComponent(rel)
            if rename(file, dest) != 0 { problem = "cannot move '\(file)' to '\(dest)'"; break }
            final[output] = dest
        }
        if problem == nil {
            PhotoIndex.syncDirectory(s.directory)
            PhotoIndex.syncDirectory((s.directory as NSString).appendingPathComponent("thumbs"))
        }
        var record: PhotoRecord?
        if problem == nil, let photo = final["snapshot"] {
            // A branch of the user's own may write PNG (pngenc): its header gives the size, it has no EXIF.
            if let info = JPEGFile.read(photo) ?? JPEGFile.readPNG(photo), info.complete {
                let rel: (String) -> String = { path in
                    let dir = (s.directory as NSString).standardizingPath + "/"
                    let std = (path as NSString).standardizingPath
                    return std.hasPrefix(dir) ? String(std.dropFirst(dir.count)) : std
                }
                let c = p.composition
                record = PhotoRecord(
                    id: PhotoIndex.number(of: photo) ?? p.number, file: rel(photo), thumbnail: final["thumbnail"].map(rel),
                    full: final["full"].map(rel), time: PhotoIndex.timeText(p.date), pts: p.pts, width: info.width, height: info.height,
                    rule: c?.rule, score: c?.score, advice: c?.advice,
                    subject: c?.subject.map { PhotoRecord.Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
                    analysisPts: c?.analysisPts,
                    trigger: p.trigger.rawValue, crop: s.crop?.description ?? "none",
                    cropWindow: p.crop.map { PhotoRecord.Rect(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height)) },
                    exif: info.tags)
            } else {
                problem = "'\(photo)' is not a complete JPEG or PNG"
            }
        }
        if problem == nil, let record, let index {
            do { try index.add(record) } catch { problem = error.message }
        }
        let ctx: StageContext? = runtime.withLock { rt in
            if p.tracked {
                if let problem { _ = rt.machine.handle(.saveFailed(problem, time: p.pts ?? 0)) } else { _ = rt.machine.handle(.saved) }
            }
            return rt.context
        }
        if problem == nil, let f = final["snapshot"] {
            // Say what happened: one line per photo on stderr.
            let how = p.composition.map { String(format: ", %@ %.2f", $0.rule, $0.score) } ?? ""
            AppendFile.writeStandardError("saved \(f) (\(p.trigger.rawValue)\(how))\n")
            saved.withLock { $0 += 1 }
        }
        var fields: [(String, MessageStructure.Value)] = [("event", .string(problem == nil ? "saved" : "error")), ("number", .int(Int32(p.number)))]
        if let f = final["snapshot"] { fields.append(("file", .string(f))) }
        if let problem { fields.append(("reason", .string(problem))) }
        ctx?.post(MessageStructure(Self.messageName, fields))
    }

    /// A branch stopped with an error (full disk, unwritable directory): its pending photos are failed
    /// and their unfinished files removed; the stream goes on.
    public func outputFailed(_ output: String, reason text: String) {
        let failed: [Pending] = runtime.withLock { rt in
            let f = rt.pending.filter { $0.expected.contains(output) || (output == "snapshot") }
            rt.pending.removeAll { $0.expected.contains(output) || (output == "snapshot") }
            for p in f where p.tracked { _ = rt.machine.handle(.saveFailed("\(output) branch: \(text)", time: p.pts ?? 0)) }
            if f.isEmpty { _ = rt.machine.handle(.saveFailed("\(output) branch: \(text)", time: 0)) }
            return f
        }
        let dir = settings.withLock { $0.directory }
        writer.async {
            let partial = (dir as NSString).appendingPathComponent(".partial")
            for p in failed {
                for rel in [String(format: "IMG_%05d.jpg", p.number), String(format: "IMG_%05d_full.jpg", p.number), String(format: "thumbs/IMG_%05d.jpg", p.number)] {
                    try? FileManager.default.removeItem(atPath: (partial as NSString).appendingPathComponent(rel))
                }
            }
        }
    }

    /// After the pipelines stopped: wait for the files in hand to be indexed.
    public func close() { writer.sync {} }

    /// Photos saved during this run.
    public var savedPhotos: Int { saved.withLock { $0 } }

    /// "capture0: 3 photos saved in out/photos", for the end-of-run summary.
    public func summary() -> String? {
        let n = savedPhotos, dir = settings.withLock { $0.directory }
        return "\(name): \(n) photo\(n == 1 ? "" : "s") saved in \(dir)"
    }

    // MARK: - Overlay

    /// The state line takes the next free text row at the bottom of the frame (after compose's advice
    /// when compose ran first in the group), the countdown the centre.
    private func drawOverlay(on frame: VideoFrame, phase: CapturePhase, reason: String, countdown: Int?) {
        let w = frame.info.width, h = frame.info.height
        let label = phase.label(reason: reason)
        let key = "\(w)x\(h)|\(label)|\(phase.rawValue)"
        let image: BGRAImage = runtime.withLock { rt in
            if let i = rt.labelImage, rt.labelKey == key { return i }
            let i = Self.labelImage(label, width: w, height: h, phase: phase)
            rt.labelImage = i; rt.labelKey = key; rt.overlay = nil
            return i
        }
        let margin = Self.margin(height: h)
        let y = frame.reserveTextRow(height: image.height, edge: .bottom, gap: margin, x: margin, width: image.width)
        let big = countdown.flatMap { n -> (image: BGRAImage, x: Int, y: Int)? in
            guard n > 0 else { return nil }
            let digitKey = "\(n)|\(w)|\(h)"
            return runtime.withLock { rt in
                if let d = rt.countdownImage, rt.countdownKey == digitKey { return d }
                let d = Self.countdownImage(n, width: w, height: h)
                rt.countdownImage = d; rt.countdownKey = digitKey
                return d
            }
        }
        if let big { frame.noteText(x: big.x, y: big.y, width: big.image.width, height: big.image.height) }
        let fullKey = "\(key)|\(y)|\(countdown.map(String.init) ?? "-")"
        let comp: OverlayComposition = runtime.withLock { rt in
            if let o = rt.overlay, rt.overlayKey == fullKey { return o }
            var layers = [OverlayComposition.Layer(pixels: image.pixels, width: image.width, height: image.height, stride: image.stride, x: margin, y: y)]
            if let big {
                layers.append(.init(pixels: big.image.pixels, width: big.image.width, height: big.image.height, stride: big.image.stride, x: big.x, y: big.y))
            }
            let o = OverlayComposition(layers: layers)
            rt.overlay = o; rt.overlayKey = fullKey
            return o
        }
        frame.addOverlay(comp)
    }

    static func margin(height h: Int) -> Int { max(4, h / 60) }

    /// The state line for people ("looking for a subject", "ready · well composed; cooling down"), small,
    /// on a backdrop, at most the frame's width.
    static func labelImage(_ label: String, width w: Int, height h: Int, phase: CapturePhase) -> BGRAImage {
        let font = max(10, Double(h) / 40)
        let size = Canvas(width: 1, height: 1).measureText(label, fontSize: font, backdrop: true)
        let lw = max(1, min(w - margin(height: h), Int(size.width.rounded(.up)) + 1)), lh = min(h, Int(size.height.rounded(.up)) + 1)
        let colour: RGBAColor = phase == .readyToCapture || phase == .capturingPhoto ? RGBAColor(red: 0.4, green: 1, blue: 0.4, alpha: 1)
            : phase == .error ? RGBAColor(red: 1, green: 0.4, blue: 0.4, alpha: 1) : RGBAColor(red: 1, green: 1, blue: 1, alpha: 1)
        let c = Canvas(width: lw, height: lh)
        c.drawText(label, x: 0, y: 0, fontSize: font, color: colour, backdrop: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.55))
        return c.image()
    }

    /// The self-timer's big digit, centred.
    static func countdownImage(_ n: Int, width w: Int, height h: Int) -> (image: BGRAImage, x: Int, y: Int) {
        let big = Double(h) / 3
        let text = "\(n)"
        let sz = Canvas(width: 1, height: 1).measureText(text, fontSize: big, backdrop: true)
        let cw = min(w, Int(sz.width.rounded(.up)) + 1), ch = min(h, Int(sz.height.rounded(.up)) + 1)
        let cc = Canvas(width: cw, height: ch)
        cc.drawText(text, x: 0, y: 0, fontSize: big, color: RGBAColor(red: 1, green: 1, blue: 1, alpha: 1),
                    backdrop: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.45))
        return (cc.image(), max(0, (w - cw) / 2), max(0, (h - ch) / 2))
    }
}
