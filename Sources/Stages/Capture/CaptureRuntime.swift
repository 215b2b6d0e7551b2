import FrameAnalysis
import GStreamerKit

/// `capture`'s state while the stream runs: the shutter (state machine, triggers), the stability
/// estimator and its scaler, the frame ring, the next photo number; and `observe`, which feeds one
/// frame through them and says which frame to take as a photo, if any.
///
/// A value with no lock of its own: the stage keeps it in its `runtime` mutex; `observe` runs from
/// `process` on the group's worker, the rest under that lock from any thread.
struct CaptureRuntime {
    /// A photo to take: what triggered it, the frame chosen, its number.
    typealias Shot = (trigger: CaptureTrigger, pick: FrameRing.Entry, number: Int)

    var shutter: CaptureShutter
    var estimator = StabilityEstimator()
    var scaler: VideoScaler?
    var ring = FrameRing()
    /// The number the next photo takes (the default branches' multifilesinks count from it too).
    var nextNumber: Int
    /// The context of the latest frame: where the saver's outcomes are posted.
    var context: StageContext?
    private var sawMeta = false
    private var warnedNoMeta = false
    private var frames = 0

    /// The runtime of a stage whose first photo is numbered `nextNumber`.
    init(shutter: CaptureShutter, nextNumber: Int, estimator: StabilityEstimator = StabilityEstimator()) {
        self.shutter = shutter; self.nextNumber = nextNumber; self.estimator = estimator
    }

    /// Feeds one frame: its running `time`, compose's latest analysis `comp` (`own` when it is of this
    /// very frame), whether compose is `analysing` it, the pts of a frame whose analysis was `skipped`,
    /// its luma `gray`, its clean `copy`. Warnings, refusals and the self-timer go to `messages`.
    mutating func observe(
        _ frame: VideoFrame, time: UInt64, comp: FrameComposition?, own: FrameComposition?, analysing: Bool,
        skipped: UInt64?, gray: GrayImage?, copy: VideoFrame?, fired: Int, backlog: Int,
        settings s: CaptureSettings, openingWarnings: [String], messages: inout [CaptureMessage]
    ) -> Shot? {
        frames += 1
        if shutter.machine.phase == .startingCamera {
            _ = shutter.machine.handle(.firstFrame)
            messages += openingWarnings.map { CaptureMessage(.warning($0)) }
        }
        let step = gray.map { estimator.update($0) }
        let candidate = CaptureChoice.Candidate(score: own?.score, sharpness: step?.sharpness ?? 0, motion: Double(step?.magnitude ?? 0))
        if let skipped { ring.forget(skipped: skipped) }
        if let c = comp, own == nil, let apts = c.analysisPts { ring.attach(c, toFrameAt: apts) }
        if comp != nil { sawMeta = true }
        if s.auto && !sawMeta && !warnedNoMeta && frames == 90 {
            warnedNoMeta = true
            messages.append(
                CaptureMessage(.warning("no ViewfinderComposition meta on the frames: auto capture needs 'compose' before 'capture'")))
        }
        let current = FrameRing.Entry(frame: copy ?? frame, time: time, candidate: candidate, composition: own)
        ring.add(current, copy: copy, analysing: analysing, keepMs: s.ringMs, budget: s.ringBytes)
        // A verdict counts once: after a photo, auto waits for an analysis of a later frame (a slow
        // analysis must not make photos of moments nobody judged).
        let fresh = comp.map { c in ring.lastTakenPts.map { last in (c.analysisPts ?? UInt64.max) > last } ?? true } ?? false
        let obs = CaptureStateMachine.Observation(
            time: time, stable: step?.stable ?? false,
            subject: comp?.subject != nil, composed: (comp?.composed ?? false) && fresh)
        guard
            let kind = shutter.decide(obs, frame: frame.index, time: time, fired: fired, backlog: backlog, settings: s, messages: &messages)
        else { return nil }
        defer { nextNumber += 1 }
        return (kind, ring.pick(for: kind, current: current), nextNumber)
    }
}
