import Foundation
import FrameAnalysis
import GStreamerKit
import Overlay
import Synchronization
import Timing

/// The auto-capture assistant: waits for a steady camera and a well-composed frame (compose's
/// `ViewfinderComposition` meta), then sends the best recent clean frame down its `snapshot` output,
/// with EXIF tags, a thumbnail and an entry in `DIR/records.json`. Also the manual shutter (SIGUSR1, `s`,
/// the `viewfinder-capture` custom event, `at=`, `interval=`) and the self-timer.
///
/// Its parts: `CaptureSettings` (properties), `CaptureShutter` (state machine, triggers, self-timer,
/// with the `ShotSchedule` it shares with `snapshot`), `FrameRing` (the frames to pick from),
/// `PhotoSaver` (files, index) and `CaptureOverlay` (the preview's text).
///
/// Threads and locks: `process`, `configure` and `customEvent` run on the group's worker; `update` on any
/// thread; `busMessage`, `outputFailed` and `close` on the host's thread. `settings` and `runtime` are
/// separate mutexes, never held together; the saver and the overlay have their own (see them). Files are
/// renamed, read back and indexed on the saver's writer queue, so saving never blocks the video.
public final class CaptureStage: Stage {
    /// The custom event (upstream or downstream) that triggers a capture; optional field `timer` (int seconds).
    public static let eventName = "viewfinder-capture"

    /// Its extra outputs (in `inspect`'s order).
    public enum Output: String, StageOutputName {
        /// The chosen photo.
        case snapshot
        /// The same frame for a thumbnail branch.
        case thumbnail
        /// The uncropped frame (crop and keep-full).
        case full
    }

    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "capture",
        blurb:
            "Auto-capture: steady camera + good composition (compose's meta) -> the best recent frame as a photo with EXIF, thumbnail and records.json; manual, event, timed and self-timer triggers",
        properties: CaptureSettings.specs,
        outputs: [
            OutputSpec(
                Output.snapshot,
                "the chosen full-resolution (or cropped) clean frame, after its tags (datetime, description, application, orientation)"),
            OutputSpec(Output.thumbnail, "the same frame for a thumbnail branch"),
            OutputSpec(Output.full, "the uncropped frame when crop and keep-full are set"),
        ],
        formats: overlayFormats)

    /// The stage's name.
    public let name: String
    private let settings: Mutex<CaptureSettings>
    private let runtime: Mutex<CaptureRuntime>
    private let triggers: Triggers
    private let saver: PhotoSaver
    private let overlay = CaptureOverlay()
    /// Messages the index had while opening (reconcile), posted once frames flow.
    public var openingWarnings: [String] { saver.openingWarnings }

    /// Creates the stage listening to the process-wide triggers.
    public convenience init(name: String, properties: PropertyValues) throws(StageError) {
        try self.init(name: name, properties: properties, triggers: .shared)
    }

    /// Creates the stage listening to `triggers` (tests pass their own). Only checks the directory (it or
    /// its nearest existing ancestor is a writable directory); `open()` creates it and opens the index.
    public init(name: String, properties p: PropertyValues, triggers: Triggers) throws(StageError) {
        self.name = name
        let s = CaptureSettings(p)
        settings = Mutex(s)
        self.triggers = triggers
        if let problem = PathCheck.creatableDirectory(s.directory) {
            throw StageError(.usage, "\(name): cannot use directory '\(Echo.value(s.directory))': \(problem)")
        }
        saver = PhotoSaver(
            stage: name, directory: s.directory, index: s.index, cropName: s.crop?.description ?? "none", maxPending: s.maxPending)
        // Read only: the default branches' multifilesink numbers start here, before the index is opened.
        let rt = CaptureRuntime(
            shutter: CaptureShutter(schedule: ShotSchedule(p, keys: CaptureSettings.schedule, triggers: triggers), settings: s),
            nextNumber: PhotoIndex.plannedNextNumber(directory: s.directory), estimator: CaptureSettings.estimator(p))
        runtime = Mutex(rt)
        saver.onReport { [weak self] report in self?.settle(report) }
    }

    /// Directory, `thumbs/` and the `.partial/` work area, created by `open()`.
    public var createsDirectories: [String] { saver.createsDirectories }

    /// Just before the pipelines start: creates the directory and its work area, opens and reconciles
    /// the index (its warnings are printed and later posted on the bus).
    public func open() throws(StageError) { try saver.open() }

    // MARK: - Reading state (tests, apps)

    /// The current stage of the state machine.
    public var phase: CapturePhase { runtime.withLock { $0.shutter.machine.phase } }
    /// Why it is there.
    public var reason: String { runtime.withLock { $0.shutter.machine.reason } }
    /// Photos captured so far.
    public var shots: Int { runtime.withLock { $0.shutter.machine.shots } }
    /// Frames held in the ring now, and their bytes.
    public var ring: (frames: Int, bytes: Int) { runtime.withLock { ($0.ring.entries.count, $0.ring.bytes) } }
    /// Records in the index (read on the writer queue, so it includes every photo already saved).
    public var records: [PhotoRecord] { saver.records }

    // MARK: - Branches

    /// The default branch of `output` (see `PhotoSaver.defaultBranch`); numbers continue after the highest photo in DIR.
    public func defaultBranch(for output: String) -> String? {
        let s = settings.withLock { $0 }
        let (start, quality) = runtime.withLock { ($0.nextNumber, $0.shutter.schedule.quality) }
        return saver.defaultBranch(
            for: output, firstNumber: start, quality: quality, thumbnails: s.thumbnails, full: s.crop != nil && s.keepFull)
    }

    /// Outputs given the default branches: their photos are tracked file by file.
    public func outputsPlanned(_ plans: [String: OutputPlan]) { saver.outputsPlanned(plans) }

    /// Changes auto, delay, cooldown, max-shots, manual, interval, timer or overlay while playing.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        var known = try settings.withLock { (s: inout CaptureSettings) throws(StageError) in
            try s.update(property, value: value, stage: "capture")
        }
        if !known {
            known = try runtime.withLock { (rt: inout CaptureRuntime) throws(StageError) in
                try rt.shutter.schedule.update(property, value: value, keys: CaptureSettings.schedule, stage: "capture")
            }
        }
        guard known else { throw StageError(.usage, "capture: property '\(property)' cannot change while playing") }
        let s = settings.withLock { $0 }
        runtime.withLock { $0.shutter.apply(s) }
    }

    /// Layout known: the stability scaler is rebuilt and the history forgotten.
    public func configure(_ info: VideoInfo) throws(StageError) {
        let w = settings.withLock { $0.analysisWidth }
        let aw = min(w, info.width), ah = max(16, Int((Double(info.height) * Double(aw) / Double(info.width)).rounded()))
        let scaler: VideoScaler
        do { scaler = try VideoScaler(input: info, width: aw, height: ah, gray: true) } catch {
            throw StageError(.library, "\(name): \(error.message)")
        }
        runtime.withLock { rt in
            rt.scaler = scaler
            rt.estimator.reset()
            rt.ring.reset()
        }
    }

    /// A `viewfinder-capture` custom event (field `timer` optional) triggers like the shutter.
    public func customEvent(_ event: MessageStructure) {
        guard event.name == Self.eventName else { return }
        runtime.withLock { $0.shutter.events.append(event) }
    }

    // MARK: - Frames

    /// Stability, ring, triggers, state, capture, overlay.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        let time = frame.runningTime ?? frame.pts ?? UInt64(frame.index) * 33_333_333
        // The latest analysis drives the live decision; a photo only ever carries its own frame's analysis.
        let (comp, analysing, skipped) = FrameComposition.read(from: frame)
        let own = comp.flatMap { c in c.analysisPts != nil && c.analysisPts == frame.pts ? c : nil }
        // Luma for stability and sharpness (GStreamer's converter straight to GRAY8, a few thousand pixels).
        var gray: GrayImage?
        if let scaler = runtime.withLock({ $0.scaler }) {
            do { gray = GrayImage(width: scaler.width, height: scaler.height, pixels: try scaler.rgb(of: frame)) } catch {
                throw StageError(.stream, "\(name): \(error.message)")
            }
        }
        // The ring's copy reuses the memory of the entry it is about to evict when nothing else holds it.
        let spare = runtime.withLock { $0.ring.spare(at: time, keepMs: s.ringMs) }
        let copy = s.ringMs > 0 || analysing ? frame.copied(reusing: spare) : nil
        let fired = triggers.count
        let backlog = context.backlog(on: Output.snapshot)
        var posts: [CaptureMessage] = []
        let capture = runtime.withLock { rt in
            rt.context = context
            return rt.observe(
                frame, time: time, comp: comp, own: own, analysing: analysing, skipped: skipped, gray: gray, copy: copy,
                fired: fired, backlog: backlog, settings: s, openingWarnings: openingWarnings, messages: &posts)
        }
        if let (kind, pick, number) = capture { posts += take(kind, pick, number: number, settings: s, context: context) }
        // State changes and readiness on the bus.
        let state = runtime.withLock { $0.shutter.state(at: time, pts: frame.pts) }
        if let changed = state.changed { posts.append(changed) }
        for m in posts { context.post(m.structure) }
        if s.overlay { overlay.draw(on: frame, phase: state.phase, reason: state.reason, countdown: state.countdown) }
    }

    /// Crops, tags and pushes the chosen frame; registers the pending save. Returns messages to post.
    private func take(_ kind: CaptureTrigger, _ pick: FrameRing.Entry, number: Int, settings s: CaptureSettings, context: StageContext)
        -> [CaptureMessage]
    {
        let framed: FramedPhoto
        do { framed = try FramedPhoto(pick, crop: s.crop, keepFull: s.keepFull) } catch {
            runtime.withLock { _ = $0.shutter.machine.handle(.captureFailed(error.message, time: pick.time)) }
            return [CaptureMessage(.error(number: nil, file: nil, reason: error.message))]
        }
        let photo = framed.photo
        // One date for the EXIF and the record: when the host's clock says the photo was taken.
        let taken = context.clock.wallNow
        let tags = ShotSender.tags(description: framed.description(number: number, trigger: kind), orientation: s.orientation, date: taken)
        // Register the save before anything is pushed: a fast branch may report its file before push() returns.
        runtime.withLock { _ = $0.shutter.machine.handle(.captured(time: pick.time)) }
        let tracked = saver.register(
            number: number, pts: photo.pts, trigger: kind, composition: framed.composition,
            crop: framed.window, full: framed.full != nil, thumbnails: s.thumbnails, date: taken)
        guard ShotSender.send(photo, tags: tags, on: Output.snapshot, context: context) else {
            let why = "the snapshot output is not running"
            saver.cancel(number)
            runtime.withLock { _ = $0.shutter.machine.handle(.saveFailed(why, time: pick.time)) }
            return [CaptureMessage(.error(number: nil, file: nil, reason: why))]
        }
        var missing: Set<Output> = []
        if s.thumbnails, !context.push(photo, on: Output.thumbnail) { missing.insert(.thumbnail) }
        if let full = framed.full, !ShotSender.send(full, tags: tags, on: Output.full, context: context) { missing.insert(.full) }
        // A branch of the user's own: handed over counts as saved for the state machine.
        let (phase, readiness) = runtime.withLock { rt in
            if !tracked { _ = rt.shutter.machine.handle(.saved) }
            return (rt.shutter.machine.phase, rt.shutter.machine.readiness)
        }
        saver.dropOutputs(missing, of: number)
        return [
            CaptureMessage(
                .capture(
                    number: number, trigger: kind, pts: photo.pts ?? UInt64.max, frame: UInt64(photo.index),
                    score: framed.composition?.score ?? -1, width: photo.info.width, height: photo.info.height,
                    state: phase, readiness: readiness))
        ]
    }

    // MARK: - Files

    /// multifilesink reports each file it closed (the saver files the photo).
    public func busMessage(_ message: BusMessage) { saver.busMessage(message) }

    /// A branch stopped with an error (full disk, unwritable directory): its pending photos are failed
    /// and their unfinished files removed; the stream goes on.
    public func outputFailed(_ output: String, reason text: String) { saver.outputFailed(output, reason: text) }

    /// What the saver did: the state machine hears of it, the bus too.
    private func settle(_ report: PhotoSaver.Report) {
        let ctx: StageContext? = runtime.withLock { rt in
            for e in report.events { _ = rt.shutter.machine.handle(e) }
            return rt.context
        }
        if let m = report.message { ctx?.post(m.structure) }
    }

    /// After the pipelines stopped: wait for the files in hand to be indexed.
    public func close() { saver.close() }

    /// Photos saved during this run.
    public var savedPhotos: Int { saver.savedPhotos }

    /// "capture0: 3 photos saved in out/photos", for the end-of-run summary.
    public func summary() -> String? {
        let n = savedPhotos, dir = settings.withLock { $0.directory }
        return "\(name): \(n) photo\(n == 1 ? "" : "s") saved in \(dir)"
    }
}

extension CaptureStage: StageMetrics {
    /// `viewfinder_photos_total`: photos saved (file complete) during this run.
    public var metricSamples: [MetricSample] { [.photos(savedPhotos)] }
}
