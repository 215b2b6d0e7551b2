/// Keeps guidance steady across analysed frames: smooths the subject box, holds advice until a new one
/// is stable, and reports "locked" once the frame has stayed well composed for a while.
///
/// - Box: exponentially weighted moving average per coordinate (x, y, width, height),
///   `s_t = α·b_t + (1 - α)·s_(t-1)` with `α = 0.4`: at 10 analyses per second a step change is 87 %
///   absorbed after 4 analyses (0.4 s), and one-frame jitter is cut to 40 %. The average restarts from
///   the raw box when the subject is lost, the frame size changes, or the new box overlaps the smoothed
///   one with IoU < 0.1 (a different subject: no slow glide across the frame).
/// - Advice hysteresis: advice is identified by its key (`RuleResult.adviceKey`, no numbers). A result
///   with the shown key refreshes the text and target at once (so "rotate 3.5 degrees" updates its
///   number). A different key replaces the shown advice only once it has been the raw advice for
///   `stableCount` (3) analyses in a row, or at once when the score differs by more than `scoreJump`
///   (0.2) from the score at which the shown advice was adopted. While the old advice is held, its target
///   is kept and the direction is recomputed from the smoothed box to that target. Advice is held only
///   within one rule: when the rule changes (`rule=auto` picked another placement rule) the new rule's
///   advice is shown at once, so `rule` and `advice` of one result always belong together.
/// - Lock: `locked` is true once every analysis has been well composed for `lockDuration` (1 s) of
///   stream time, measured on `pts`, from the first well-composed analysis of the streak. Any analysis
///   that is not well composed, lacks a pts, or goes back in time restarts the streak.
public struct GuidanceSmoother: Sendable {
    /// EWMA weight of the newest box.
    public var alpha: Double
    /// IoU below which the average restarts from the new box.
    public var resetIoU: Double
    /// Consecutive analyses a new advice key needs before it is shown.
    public var stableCount: Int
    /// Score change that lets a new advice through at once.
    public var scoreJump: Double
    /// Well-composed stream time before `locked`, nanoseconds.
    public var lockDuration: UInt64

    private var box: Box?
    private var boxFrame: (Int, Int) = (0, 0)
    private var shown: (advice: String, key: String, target: Point2D?, score: Double, rule: String)?
    private var pending: (key: String, count: Int)?
    private var streakStart: UInt64?
    private var lastPts: UInt64?

    /// Creates a smoother with the documented defaults (α 0.4, reset IoU 0.1, 3 analyses, 0.2, 1 s).
    public init(
        alpha: Double = 0.4, resetIoU: Double = 0.1, stableCount: Int = 3, scoreJump: Double = 0.2,
        lockDuration: UInt64 = 1_000_000_000
    ) {
        self.alpha = alpha; self.resetIoU = resetIoU; self.stableCount = max(1, stableCount)
        self.scoreJump = scoreJump; self.lockDuration = lockDuration
    }

    /// Forgets everything (new stream, new settings).
    public mutating func reset() {
        box = nil; shown = nil; pending = nil; streakStart = nil; lastPts = nil
    }

    /// One EWMA step for the subject box of a `frameWidth` x `frameHeight` frame; nil forgets the box.
    public mutating func smooth(_ raw: Box?, frameWidth: Int, frameHeight: Int) -> Box? {
        guard let b = raw else { box = nil; return nil }
        if let s = box, boxFrame == (frameWidth, frameHeight), s.iou(b) >= resetIoU {
            let a = alpha
            box = Box(
                x: a * b.x + (1 - a) * s.x, y: a * b.y + (1 - a) * s.y,
                width: a * b.width + (1 - a) * s.width, height: a * b.height + (1 - a) * s.height)
        } else {
            box = b
        }
        boxFrame = (frameWidth, frameHeight)
        return box
    }

    /// Applies advice hysteresis and the lock to an analysis whose subject box is already smoothed.
    public mutating func stabilize(_ g: Guidance) -> Guidance {
        var out = g
        // Advice hysteresis.
        if let s = shown, s.key != g.adviceKey {
            let count = pending?.key == g.adviceKey ? pending!.count + 1 : 1
            if count >= stableCount || abs(g.score - s.score) > scoreJump || s.rule != g.rule {
                shown = (g.advice, g.adviceKey, g.target, g.score, g.rule)
                pending = nil
            } else {
                pending = (g.adviceKey, count)
                out.advice = s.advice; out.adviceKey = s.key; out.target = s.target
                if let t = s.target, let c = g.subjectNormalized.map({ Point2D(x: $0.x + $0.width / 2, y: $0.y + $0.height / 2) }) {
                    out.direction = Vector2D(from: c, to: t)
                } else {
                    out.direction = .zero
                }
            }
        } else {
            shown = (g.advice, g.adviceKey, g.target, shown?.score ?? g.score, g.rule)
            pending = nil
        }
        // Lock.
        if g.wellComposed, let pts = g.pts, lastPts.map({ pts >= $0 }) ?? true {
            if streakStart == nil { streakStart = pts }
            out.locked = pts - streakStart! >= lockDuration
        } else {
            streakStart = g.wellComposed ? g.pts : nil
            out.locked = false
        }
        lastPts = g.pts
        return out
    }

    /// Smooths a raw analysis: EWMA on its subject box (direction recomputed towards its target), then
    /// `stabilize`. Use this when the rule was evaluated on the raw box; `CompositionAnalyzer` instead
    /// smooths before evaluating the rule.
    public mutating func update(_ g: Guidance) -> Guidance {
        var out = g
        if let s = g.subject {
            out.subject?.box = smooth(s.box, frameWidth: g.frameWidth, frameHeight: g.frameHeight) ?? s.box
            if let t = g.target, let n = out.subjectNormalized {
                out.direction = Vector2D(from: Point2D(x: n.x + n.width / 2, y: n.y + n.height / 2), to: t)
            }
        } else {
            _ = smooth(nil, frameWidth: g.frameWidth, frameHeight: g.frameHeight)
        }
        return stabilize(out)
    }
}
