/// A request for a clip: the moment (`time`, ns on the stream's clock; nil: the newest frame), what asked for it and
/// the photo it belongs to.
public struct ClipTrigger: Sendable, Equatable, Codable {
    /// A photo a clip belongs to: the capture stage and its photo number.
    public struct Photo: Sendable, Equatable, Codable {
        public var stage: String
        public var id: Int
        public init(stage: String, id: Int) { self.stage = stage; self.id = id }
    }
    /// `photo` (a capture stage's photo: `capture` says which trigger took it), `api`, `mqtt`, `signal`, `key`,
    /// `composition`.
    public var kind: String
    /// The capture trigger of a photo (`auto`, `manual`, `timer`...).
    public var capture: String?
    /// The moment (ns); nil until the cutter dates it (the newest frame when it arrived).
    public var pts: UInt64?
    /// The photo.
    public var photo: Photo?

    public init(kind: String, capture: String? = nil, pts: UInt64? = nil, photo: Photo? = nil) {
        self.kind = kind; self.capture = capture; self.pts = pts; self.photo = photo
    }
}

/// The clip being written.
public struct OpenClip: Sendable, Equatable {
    public var id: Int
    /// The first frame's decoding time, its presentation time, and the time the clip ends before (ns).
    public var start: UInt64
    public var startShown: UInt64
    public var end: UInt64
    /// The last frame written (presentation time, ns).
    public var lastShown: UInt64
    /// Frames written.
    public var frames: Int
    public var bytes: Int
    /// Every trigger it covers, in order.
    public var triggers: [ClipTrigger]
    /// What the user should know (a short pre-roll, a start at the first keyframe).
    public var notes: [String]
}

/// What a trigger did.
public enum ClipAnswer: Sendable, Equatable {
    /// A clip was begun.
    case opened(OpenClip)
    /// The open clip now also covers it.
    case extended(OpenClip)
    /// It waits: for the first keyframe, or for the open clip to end (it does not overlap it).
    case waiting(String)
}

/// The clip recorder's logic, without GStreamer: a ring of the last seconds of the encoded stream (`ClipRing`), the
/// clip being written, and the triggers waiting. Each call returns what to do (`Step`s) in order; its owner runs them
/// (a writer pipeline) under the same lock. Times are the stream's (ns).
///
/// A trigger at `t` asks for `pre` seconds before and `post` after: the clip starts at the newest keyframe at or
/// before `t - pre` (never later: at most one key interval earlier) and ends before the first frame at or after
/// `t + post`. A trigger whose pre-roll reaches into the open clip (`t - pre <= end`) extends it instead (up to
/// `maxLength` seconds in all); a later one waits until the open clip ends and then starts its own. A trigger whose
/// pre-roll starts after the newest frame (it came before its frame left the encoder) waits for the stream to get there.
public struct ClipCutter<Payload: Sendable>: Sendable {
    /// What the owner does, in order.
    public enum Step: Sendable {
        /// Begin a clip: open its file and write these frames (the pre-roll, keyframe first).
        case begin(OpenClip, [ClipUnit<Payload>])
        /// Write a frame into the open clip.
        case write(ClipUnit<Payload>)
        /// The clip is complete: finish its file.
        case finish(OpenClip)
    }

    public let pre: Double
    public let post: Double
    public let maxLength: Double
    public private(set) var ring: ClipRing<Payload>
    public private(set) var open: OpenClip?
    /// Triggers not yet begun, oldest first (bounded: `pendingLimit`).
    public private(set) var pending: [ClipTrigger] = []
    /// Triggers dropped because `pendingLimit` were already waiting.
    public private(set) var refused = 0
    /// The next clip's number.
    public private(set) var nextID: Int
    public static var pendingLimit: Int { 16 }

    /// `slack`: seconds the ring keeps beyond `pre`, for triggers that arrive after their moment (a photo's message
    /// comes once its frame went through the stages and the encoder).
    public init(pre: Double, post: Double, maxLength: Double, maxBytes: Int, slack: Double = 2, firstID: Int = 1) {
        self.pre = pre; self.post = post; self.maxLength = max(maxLength, pre + post)
        ring = ClipRing(keep: pre + slack, maxBytes: maxBytes)
        nextID = firstID
    }

    private func ns(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }

    /// A frame arrived (decoding order).
    public mutating func add(_ unit: ClipUnit<Payload>) -> [Step] {
        var steps: [Step] = []
        // The stream's time went back (a source started again): what the ring holds and the open clip belong to the
        // old timeline; the clip ends, the ring starts over, waiting triggers (dated on the old timeline) are dropped.
        if let newest = ring.newest, unit.time + 1_000_000_000 < newest {
            if var clip = open {
                clip.notes.append("the stream's time went back: the clip ends there")
                steps.append(.finish(clip))
                open = nil
            }
            refused += pending.count
            pending.removeAll()
            ring.removeAll()
        }
        if var clip = open {
            if unit.capsGeneration != ring.units.last?.capsGeneration, !ring.units.isEmpty {
                clip.notes.append("the stream's caps changed: the clip ends there")
                steps.append(.finish(clip))
                open = nil
            } else if unit.time >= clip.end {
                steps.append(.finish(clip))
                open = nil
            } else {
                clip.frames += 1; clip.bytes += unit.bytes; clip.lastShown = max(clip.lastShown, unit.shown)
                open = clip
                steps.append(.write(unit))
            }
        }
        ring.append(unit)
        steps += beginPending()
        return steps
    }

    /// A trigger: extends the open clip, begins one, or waits. `trigger.pts` nil is dated to the newest frame.
    public mutating func trigger(_ t: ClipTrigger) -> (ClipAnswer, [Step]) {
        var t = t
        if t.pts == nil { t.pts = ring.newest }
        if var clip = open, let at = t.pts, at.subtractingClamped(ns(pre)) <= clip.end {
            clip.end = min(max(clip.end, at + ns(post)), clip.start + ns(maxLength))
            clip.triggers.append(t)
            open = clip
            return (.extended(clip), [])
        }
        guard pending.count < Self.pendingLimit else {
            refused += 1
            return (.waiting("refused: \(Self.pendingLimit) triggers already wait"), [])
        }
        pending.append(t)
        let steps = beginPending()
        // Begun: open now, or finished at once when its whole clip was in the ring already.
        for case .begin(let clip, _) in steps where clip.triggers.contains(t) {
            return (.opened(clip), steps)
        }
        var why = "waiting for the stream to reach its pre-roll"
        if ring.units.isEmpty {
            why = "waiting for the first keyframe"
        } else if let clip = open {
            why = "waiting for clip \(clip.id) to end"
        }
        return (.waiting(why), steps)
    }

    /// The stream ended: the open clip ends with its last frame.
    public mutating func endOfStream() -> [Step] {
        defer { open = nil; pending.removeAll() }
        guard var clip = open else { return [] }
        // (The clip's end is the first time it leaves out: a stream ending within a frame or two of it is not short.)
        if clip.end > (ring.newest ?? 0) + 100_000_000 { clip.notes.append("the stream ended before the clip's end") }
        return [.finish(clip)]
    }

    /// Begins the oldest waiting trigger when nothing is open, the ring has a keyframe and the stream reached the
    /// trigger's pre-roll; a trigger whose whole clip lies in the ring already is finished at once.
    private mutating func beginPending() -> [Step] {
        var steps: [Step] = []
        while open == nil, var t = pending.first, let newest = ring.newest {
            var notes: [String] = []
            if t.pts == nil {
                t.pts = ring.units.first?.time
                notes.append("triggered before any keyframe: the clip starts at the first keyframe")
            }
            let at = t.pts ?? 0
            let wanted = at.subtractingClamped(ns(pre))
            // Its pre-roll starts after the newest frame (a photo's message can come before its frame left the
            // encoder): it waits for the stream to get there, or the clip would start that much too early.
            guard wanted <= newest else { break }
            pending.removeFirst()
            guard let index = ring.start(reachingBackTo: wanted) else { break }
            let first = ring.units[index]
            // Short when the ring holds less than `pre` before the moment (`wanted` is clamped at 0: a stream that
            // began less than `pre` ago at time 0 has its first keyframe at `wanted`, yet is short).
            let kept = at.subtractingClamped(first.time)
            if kept < ns(pre), pre > 0, notes.isEmpty {
                let had = Double(kept) / 1e9
                notes.append(
                    first.time > at
                        ? "triggered before any keyframe: the clip starts at the first keyframe"
                        : "pre-roll short: \(Self.text(had)) s of \(Self.text(pre)) s were kept")
            }
            var clip = OpenClip(
                id: nextID, start: first.time, startShown: first.shown, end: min(at + ns(post), first.time + ns(maxLength)),
                lastShown: first.shown, frames: 0, bytes: 0, triggers: [t], notes: notes)
            nextID += 1
            // Triggers waiting behind it whose pre-roll reaches into it ride along (those that came before any keyframe
            // too: they are dated to the first, as `t` is).
            while var next = pending.first {
                if next.pts == nil { next.pts = ring.units.first?.time }
                guard let p = next.pts, p.subtractingClamped(ns(pre)) <= clip.end else { break }
                clip.end = min(max(clip.end, p + ns(post)), clip.start + ns(maxLength))
                pending.removeFirst()
                clip.triggers.append(next)
            }
            var units: [ClipUnit<Payload>] = []
            var done = false
            for u in ring.units(from: index) {
                if u.time >= clip.end { done = true; break }
                units.append(u)
                clip.frames += 1; clip.bytes += u.bytes; clip.lastShown = max(clip.lastShown, u.shown)
            }
            steps.append(.begin(clip, units))
            if done { steps.append(.finish(clip)) } else { open = clip }
        }
        return steps
    }

    static func text(_ seconds: Double) -> String { String(Double((seconds * 10).rounded()) / 10) }
}

extension UInt64 {
    /// `self - other`, 0 when that would be negative.
    func subtractingClamped(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
