/// Choosing the best recent frame and the crop of a capture.
public enum CaptureChoice {
    /// One candidate frame of the ring.
    public struct Candidate: Sendable, Equatable {
        /// Composition score 0...1 (compose's meta), nil when the frame was not analysed.
        public var score: Double?
        /// Variance of the Laplacian of the frame's small luma.
        public var sharpness: Double
        /// Camera motion into this frame, pixels of the small luma (max of |dx|, |dy|).
        public var motion: Double
        /// Creates a candidate.
        public init(score: Double?, sharpness: Double, motion: Double) {
            self.score = score; self.sharpness = sharpness; self.motion = motion
        }
    }

    /// Weights of the best-frame formula.
    public static let weights = (score: 0.5, sharpness: 0.3, steadiness: 0.2)

    /// quality = 0.5 * score + 0.3 * sharpness / max sharpness in the ring + 0.2 / (1 + motion).
    /// A frame without a score counts 0 for that term. Ties go to the newest frame.
    public static func quality(_ c: Candidate, maxSharpness: Double) -> Double {
        let s = maxSharpness > 0 ? c.sharpness / maxSharpness : 0
        return weights.score * (c.score ?? 0) + weights.sharpness * s + weights.steadiness / (1 + max(0, c.motion))
    }

    /// Index of the best candidate (nil for an empty ring).
    public static func best(_ ring: [Candidate]) -> Int? {
        guard !ring.isEmpty else { return nil }
        let maxSharp = ring.map(\.sharpness).max() ?? 0
        var best = 0, bestQ = -Double.infinity
        for (i, c) in ring.enumerated() {
            let q = quality(c, maxSharpness: maxSharp)
            if q >= bestQ { best = i; bestQ = q }
        }
        return best
    }

    /// A crop aspect (`3:4` is portrait: 3 wide, 4 high).
    public struct Aspect: Sendable, Equatable, CustomStringConvertible {
        /// Width part.
        public var w: Int
        /// Height part.
        public var h: Int
        /// Parses "none" (nil) or "W:H".
        public static func parse(_ s: String) -> Aspect?? {
            if s == "none" { return .some(nil) }
            let parts = s.split(separator: ":")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
            return .some(Aspect(w: w, h: h))
        }
        /// "3:4".
        public var description: String { "\(w):\(h)" }
    }

    /// Rule target points inside a crop (normalised): thirds and golden use their points, everything
    /// else the centre.
    public static func targets(rule: String) -> [Point2D] {
        switch rule {
        case "thirds": ThirdsRule.targets.points
        case "golden": GoldenRule.targets.points
        default: [Point2D(x: 0.5, y: 0.5)]
        }
    }

    /// The largest window of `aspect` inside `width` x `height`, placed so the subject's centre lands as
    /// near as possible to one of the rule's target points of the window, then kept inside the frame.
    /// Without a subject the window is centred. Returns integer pixels (x, y, w, h).
    public static func crop(width: Int, height: Int, aspect: Aspect, subject: Box?, rule: String) -> (
        x: Int, y: Int, width: Int, height: Int
    ) {
        let W = Double(width), H = Double(height)
        let a = Double(aspect.w) / Double(aspect.h)
        var cw = W, ch = W / a
        if ch > H { ch = H; cw = H * a }
        let iw = min(width, Int(cw.rounded())), ih = min(height, Int(ch.rounded()))
        guard let s = subject else { return ((width - iw) / 2, (height - ih) / 2, iw, ih) }
        let cx = s.x + s.width / 2, cy = s.y + s.height / 2
        var best: (x: Double, y: Double, err: Double) = ((W - Double(iw)) / 2, (H - Double(ih)) / 2, .infinity)
        for t in targets(rule: rule) {
            // Window origin that puts the subject centre on target t, clamped inside the frame.
            let x = min(max(0, cx - t.x * Double(iw)), W - Double(iw))
            let y = min(max(0, cy - t.y * Double(ih)), H - Double(ih))
            let ex = (cx - x) / Double(iw) - t.x, ey = (cy - y) / Double(ih) - t.y
            let err = (ex * ex + ey * ey).squareRoot()
            if err < best.err - 1e-9 { best = (x, y, err) }
        }
        return (Int(best.x.rounded()), Int(best.y.rounded()), iw, ih)
    }
}

/// The self-timer: armed at a stream time, counts whole seconds down, fires once.
public struct SelfTimer: Sendable, Equatable {
    /// When it fires (ns), nil when not armed.
    public private(set) var deadline: UInt64?
    /// Creates a disarmed timer.
    public init() {}
    /// Arms it `seconds` after `time` (re-arming restarts the count).
    public mutating func arm(at time: UInt64, seconds: Int) { deadline = time &+ UInt64(seconds) * 1_000_000_000 }
    /// Disarms it.
    public mutating func cancel() { deadline = nil }
    /// Whole seconds left to show (3, 2, 1), nil when disarmed.
    public func remaining(at time: UInt64) -> Int? {
        guard let d = deadline else { return nil }
        if time &+ Self.slack >= d { return 0 }
        return Int((d - time + 999_999_999) / 1_000_000_000)
    }
    /// Timestamps of frames at rational rates are rounded down (30 fps: 33_333_333 ns), so frame 120
    /// sits 40 ns before 4 s: a frame within this slack of the deadline counts as on time.
    public static let slack: UInt64 = 1_000_000

    /// True once, for the first frame at or after the deadline, less the slack (which disarms it).
    public mutating func fires(at time: UInt64) -> Bool {
        guard let d = deadline, time &+ Self.slack >= d else { return false }
        deadline = nil
        return true
    }
}
