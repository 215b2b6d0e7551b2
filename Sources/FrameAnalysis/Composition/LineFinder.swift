import Foundation

/// The dominant straight line segments of a luma image, for `LinesRule`: a Hough transform over thinned
/// Sobel edges.
///
/// 1. The luma is box-averaged to at most `maxWidth` (320) px wide (`HorizonRule.reduced`).
/// 2. Sobel gradients `gx`, `gy`; edge pixels have L1 magnitude `|gx| + |gy| >= max(40, 2 · mean)` (as the
///    horizon's finder) and are a local maximum along their gradient (direction quantised to 45°: edges one
///    pixel thick, so a line's votes count its length in pixels). Pixels within `margin` (3 %) of any side
///    (letterbox bars, black rows at the top of opencv-doc's left*.jpg: the frame's own edge leads nowhere)
///    and inside the `ignoring` box grown by 2 px (the subject's own
///    outline is not a line leading to it) do not vote; a line's gap where it crosses that box is bridged
///    (step 4), so a line running past the subject is not cut into two that each seem to end at it.
/// 3. Hough accumulator over the normal angle `θ ∈ [0°, 180°)` in 1° steps and `ρ = x·cos θ + y·sin θ`
///    (1 px bins, x and y from the image centre); each edge pixel votes only for angles within `window`
///    (10°) of its own gradient direction (about a tenth of the full vote, and no votes across textures).
/// 4. Up to `maxLines` (6) times: the strongest cell; its inliers (|ρ - ρ*| <= 1.5 px, gradient within
///    `window`) sorted along the line; the longest run without a gap over `max(4 px, 3 % of the diagonal)`
///    is the segment, refitted through its pixels by total least squares (their principal axis). A run
///    shorter than `minLength` (10 % of the diagonal) is no line. Then the inliers' votes are taken back and
///    the cells within ±5° and ±8 px of the peak cleared (non-maximum suppression in (ρ, θ), across the
///    0°/180° seam where ρ changes sign), and the next peak is read. Stops when the strongest cell has
///    fewer votes than `minLength` needs.
///
/// Coordinates are normalised to the reduced image (pixel centres: `(x + 0.5) / w`), which is the whole
/// frame. Its cost is `LinesRule`'s (measured there).
public struct LineFinder: Sendable {
    /// A straight segment found in the image.
    public struct Segment: Sendable, Equatable {
        /// One end, normalised to the frame.
        public var from: Point2D
        /// The other end, normalised.
        public var to: Point2D
        /// Direction in degrees, 0 ..< 180, counter-clockwise as seen (y up): 0 horizontal, 45 rising to
        /// the right, 90 vertical, 135 falling to the right.
        public var angle: Double
        /// Length as a share of the frame's diagonal (in pixels, so the frame's aspect counts).
        public var length: Double
        /// Edge pixels on the segment.
        public var votes: Int
    }

    /// Largest width analysed (larger luma is box-averaged first).
    public var maxWidth: Int
    /// Most segments returned.
    public var maxLines: Int
    /// Shortest segment, as a share of the frame diagonal.
    public var minLength: Double
    /// Degrees either side of a pixel's gradient direction it votes for.
    public var window: Double
    /// Share of the width (height) ignored at the left and right (top and bottom) sides.
    public var margin: Double

    /// Creates a finder with the documented defaults (320 px, 6 lines, 10 %, 10°, 3 %).
    public init(maxWidth: Int = 320, maxLines: Int = 6, minLength: Double = 0.1, window: Double = 10, margin: Double = 0.03) {
        self.maxWidth = maxWidth; self.maxLines = maxLines; self.minLength = minLength; self.window = window
        self.margin = margin
    }

    /// Edge pixels: position from the image centre and gradient angle in [0, π).
    struct Edges {
        var x: [Double] = [], y: [Double] = [], theta: [Double] = []
    }

    /// The segments of `luma`, strongest first; edge pixels inside `ignoring` (normalised) do not vote.
    public func segments(in luma: GrayImage, ignoring: Box? = nil) -> [Segment] {
        let g = HorizonRule.reduced(luma, maxWidth: maxWidth)
        let w = g.width, h = g.height
        guard w >= 8, h >= 8 else { return [] }
        let skip = Self.pixels(ignoring, width: w, height: h)
        let e = edges(g, skip: skip)
        let diag = Double(w * w + h * h).squareRoot()
        let step = Double.pi / 180, nt = 180
        let rmax = Int(diag / 2) + 2, nr = 2 * rmax + 1
        let cosT = (0..<nt).map { cos(Double($0) * step) }, sinT = (0..<nt).map { sin(Double($0) * step) }
        let reach = Int(window)
        var acc = [Int32](repeating: 0, count: nt * nr)
        func vote(_ k: Int, _ sign: Int32) {
            let c = Int((e.theta[k] / step).rounded())
            for d in -reach...reach {
                let i = ((c + d) % nt + nt) % nt
                let r = Int((e.x[k] * cosT[i] + e.y[k] * sinT[i]).rounded()) + rmax
                acc[i * nr + r] += sign
            }
        }
        for k in 0..<e.x.count { vote(k, 1) }

        let minVotes = Int32(minLength * diag)
        let maxGap = max(4, 0.03 * diag)
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        var out: [Segment] = []
        var tries = 0
        while out.count < maxLines && tries < 4 * maxLines {
            tries += 1
            var best = 0, votes: Int32 = -1
            for i in 0..<acc.count where acc[i] > votes { votes = acc[i]; best = i }
            guard votes >= minVotes else { break }
            let ti = best / nr, rho = Double(best % nr - rmax)
            let theta = Double(ti) * step
            // Inliers near the line with a compatible gradient.
            var inliers: [(t: Double, k: Int)] = []
            for k in 0..<e.x.count {
                let r = e.x[k] * cosT[ti] + e.y[k] * sinT[ti]
                guard abs(r - rho) <= 1.5 else { continue }
                var dt = abs(e.theta[k] - theta)
                dt = min(dt, Double.pi - dt)
                guard dt <= window * step else { continue }
                inliers.append((-e.x[k] * sinT[ti] + e.y[k] * cosT[ti], k))
            }
            inliers.sort { $0.t < $1.t }
            let bridge = skip.flatMap { Self.crossing(theta: theta, rho: rho, box: $0, cx: cx, cy: cy) }
            if let run = Self.longestRun(inliers.map(\.t), maxGap: maxGap, bridge: bridge),
                inliers[run].count >= 2,
                let s = Self.fit(inliers[run].map { (e.x[$0.k] + cx, e.y[$0.k] + cy) }, width: w, height: h, diag: diag),
                s.length >= minLength
            {
                out.append(s)
            }
            for (_, k) in inliers { vote(k, -1) }
            // Non-maximum suppression around the peak, across the 0°/180° seam (where ρ flips sign).
            for d in -5...5 {
                var i = ti + d, r0 = best % nr - rmax
                if i < 0 { i += nt; r0 = -r0 } else if i >= nt { i -= nt; r0 = -r0 }
                for r in max(-rmax, r0 - 8)...min(rmax, r0 + 8) { acc[i * nr + r + rmax] = 0 }
            }
        }
        return out.sorted { $0.votes > $1.votes }
    }

    /// A normalised box in pixels of a `width` x `height` image, grown by 2 px: (x0, y0, x1, y1), inclusive.
    static func pixels(_ b: Box?, width w: Int, height h: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        guard let b else { return nil }
        return (
            Int((b.x * Double(w)).rounded(.down)) - 2, Int((b.y * Double(h)).rounded(.down)) - 2,
            Int((b.x + b.width) * Double(w)) + 2, Int((b.y + b.height) * Double(h)) + 2
        )
    }

    /// The range of `t` (position along the line, as in `segments`) over which the line (θ, ρ) crosses
    /// `box` (pixels; ρ and t from the centre (cx, cy)); nil when it misses the box.
    static func crossing(theta: Double, rho: Double, box: (x0: Int, y0: Int, x1: Int, y1: Int), cx: Double, cy: Double)
        -> ClosedRange<Double>?
    {
        // p(t) = ρ·(cos θ, sin θ) + t·(-sin θ, cos θ); clip t to both slabs of the box.
        let px = rho * cos(theta), py = rho * sin(theta), dx = -sin(theta), dy = cos(theta)
        var lo = -Double.infinity, hi = Double.infinity
        for (p, d, a, b) in [(px, dx, Double(box.x0) - cx, Double(box.x1) - cx), (py, dy, Double(box.y0) - cy, Double(box.y1) - cy)] {
            if abs(d) < 1e-12 {
                guard p >= a && p <= b else { return nil }
            } else {
                let t0 = (a - p) / d, t1 = (b - p) / d
                lo = max(lo, min(t0, t1)); hi = min(hi, max(t0, t1))
            }
        }
        return lo <= hi ? lo...hi : nil
    }

    /// Thinned Sobel edges of `g` (see the type's steps 2), outside the margins and the `skip` box (pixels).
    func edges(_ g: GrayImage, skip box: (x0: Int, y0: Int, x1: Int, y1: Int)?) -> Edges {
        let w = g.width, h = g.height
        let sobel = Sobel(g)
        let gx = sobel.gx, gy = sobel.gy
        let mag = zip(gx, gy).map { abs($0) + abs($1) }
        let threshold = Int32(max(40, 2 * sobel.meanMagnitude))
        let mx = Int((margin * Double(w)).rounded(.up)), my = Int((margin * Double(h)).rounded(.up))
        let skip = box ?? (x0: 1, y0: 1, x1: 0, y1: 0)
        var out = Edges()
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        for y in stride(from: max(2, my), to: min(h - 2, h - my), by: 1) {
            for x in stride(from: max(2, mx), to: min(w - 2, w - mx), by: 1) {
                let i = y * w + x
                let m = mag[i]
                guard m >= threshold else { continue }
                if x >= skip.x0 && x <= skip.x1 && y >= skip.y0 && y <= skip.y1 { continue }
                let sx = gx[i], sy = gy[i]
                // Neighbours along the gradient, its direction quantised to 0°, 45°, 90°, 135°.
                let ax = abs(sx), ay = abs(sy)
                let o: Int
                if 2 * ay <= ax {
                    o = 1
                } else if 2 * ax <= ay {
                    o = w
                } else {
                    o = (sx > 0) == (sy > 0) ? w + 1 : w - 1
                }
                guard m > mag[i - o], m >= mag[i + o] else { continue }
                var t = atan2(Double(sy), Double(sx))
                if t < 0 { t += Double.pi }
                if t >= Double.pi { t -= Double.pi }
                out.x.append(Double(x) - cx); out.y.append(Double(y) - cy); out.theta.append(t)
            }
        }
        return out
    }

    /// The index range of the longest run of sorted `t` without a gap above `maxGap`; the part of a gap
    /// inside `bridge` (where the line crosses the ignored subject) does not count, so a line running on
    /// past the subject stays one segment across it rather than two that each seem to end at it.
    static func longestRun(_ t: [Double], maxGap: Double, bridge: ClosedRange<Double>? = nil) -> Range<Int>? {
        guard !t.isEmpty else { return nil }
        func gap(_ a: Double, _ b: Double) -> Double {
            guard let r = bridge else { return b - a }
            return b - a - max(0, min(b, r.upperBound) - max(a, r.lowerBound))
        }
        var best = 0..<1, start = 0
        for i in 1...t.count {
            if i == t.count || gap(t[i - 1], t[i]) > maxGap {
                if t[i - 1] - t[start] > (t[best.upperBound - 1] - t[best.lowerBound]) { best = start..<i }
                start = i
            }
        }
        return best
    }

    /// The segment through `points` (pixels): their principal axis, ends at the extreme projections.
    static func fit(_ points: [(Double, Double)], width w: Int, height h: Int, diag: Double) -> Segment? {
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.0 } / n, my = points.reduce(0) { $0 + $1.1 } / n
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for (x, y) in points {
            sxx += (x - mx) * (x - mx); syy += (y - my) * (y - my); sxy += (x - mx) * (y - my)
        }
        let phi = 0.5 * atan2(2 * sxy, sxx - syy)
        let dx = cos(phi), dy = sin(phi)
        var lo = Double.infinity, hi = -Double.infinity
        for (x, y) in points {
            let t = (x - mx) * dx + (y - my) * dy
            lo = min(lo, t); hi = max(hi, t)
        }
        guard hi > lo else { return nil }
        func norm(_ t: Double) -> Point2D {
            Point2D(x: (mx + t * dx + 0.5) / Double(w), y: (my + t * dy + 0.5) / Double(h))
        }
        var angle = -phi * 180 / Double.pi
        if angle < 0 { angle += 180 }
        if angle >= 180 { angle -= 180 }
        return Segment(from: norm(lo), to: norm(hi), angle: angle, length: (hi - lo) / diag, votes: points.count)
    }
}
