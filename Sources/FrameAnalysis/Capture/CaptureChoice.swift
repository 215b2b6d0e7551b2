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

    /// Rule target points inside a crop (normalised): thirds and golden use their points; portrait and lines the
    /// upper third line (left third, middle, right third: portrait's eyes, lines' subject sit there); everything
    /// else the centre.
    public static func targets(rule: String) -> [Point2D] {
        switch rule {
        case "thirds": ThirdsRule.targets.points
        case "golden": GoldenRule.targets.points
        case "portrait", "lines": [1.0 / 3, 0.5, 2.0 / 3].map { Point2D(x: $0, y: 1.0 / 3) }
        default: [Point2D(x: 0.5, y: 0.5)]
        }
    }

    /// Room the crop keeps around the subject box, in units of `s = min(box width, box height)` (a face's
    /// size for a face, the face height for a row of faces): `top` above (hair and headroom: a face box
    /// stops at the forehead, hair takes ~0.3 of it, the rest is air), `side` left and right, `bottom`
    /// below (the chin and a bit of neck).
    public static let headroom = (top: 0.5, side: 0.25, bottom: 0.25)

    /// The largest window of `aspect` inside `width` x `height`, placed so the subject's centre lands as
    /// near as possible to one of the rule's target points of the window, then kept inside the frame.
    /// Without a subject the window is centred. Returns integer pixels (x, y, w, h).
    ///
    /// The rule never cuts the subject: on each axis the window origin is first limited to the range
    /// where the window holds the subject box plus `headroom` (for a group, every face of it with room
    /// above); when that padded box is larger than the window, to the range holding the bare box; when
    /// even that is larger, the window is centred on the box. Then it is kept inside the frame. Each
    /// target is tried with these limits and the one landing nearest its point wins.
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
        let unit = max(0, min(s.width, s.height))
        let padX = (s.x - headroom.side * unit, s.x + s.width + headroom.side * unit)
        let padY = (s.y - headroom.top * unit, s.y + s.height + headroom.bottom * unit)
        var best: (x: Double, y: Double, err: Double) = ((W - Double(iw)) / 2, (H - Double(ih)) / 2, .infinity)
        for t in targets(rule: rule) {
            // Window origin that puts the subject centre on target t, held around the subject, inside the frame.
            let x = place(cx - t.x * Double(iw), length: Double(iw), frame: W, padded: padX, bare: (s.x, s.x + s.width))
            let y = place(cy - t.y * Double(ih), length: Double(ih), frame: H, padded: padY, bare: (s.y, s.y + s.height))
            let ex = (cx - x) / Double(iw) - t.x, ey = (cy - y) / Double(ih) - t.y
            let err = (ex * ex + ey * ey).squareRoot()
            if err < best.err - 1e-9 { best = (x, y, err) }
        }
        return (Int(best.x.rounded()), Int(best.y.rounded()), iw, ih)
    }

    /// One axis of `crop`: the wanted origin limited so a window of `length` holds `padded` (else
    /// `bare`, else is centred on `bare`), then kept inside `0...frame`.
    static func place(
        _ wanted: Double, length: Double, frame: Double, padded: (Double, Double), bare: (Double, Double)
    ) -> Double {
        var o = wanted
        if padded.1 - padded.0 <= length {
            o = min(max(o, padded.1 - length), padded.0)
        } else if bare.1 - bare.0 <= length {
            o = min(max(o, bare.1 - length), bare.0)
        } else {
            o = (bare.0 + bare.1) / 2 - length / 2
        }
        return min(max(0, o), frame - length)
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
