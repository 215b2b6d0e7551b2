/// Block matching by the sum of absolute differences (SAD), shared by `StabilityEstimator` and
/// `CameraMotionEstimator`: a block of one image is searched for within +-`radius` pixels in another.
///
/// Shifts are tried nearest first, so (0, 0) sets a tight bound at once (most candidates then stop after a few
/// rows) and a tie goes to the smaller shift: a static block reads (0, 0).
struct BlockSearch: Sendable {
    /// Search radius in pixels.
    let radius: Int
    /// Every shift within the radius, nearest first (by |x| + |y|, then row by row).
    let shifts: [(x: Int, y: Int)]

    /// The shifts of a +-`radius` search.
    init(radius: Int) {
        self.radius = radius
        shifts = (-radius...radius).flatMap { sy in (-radius...radius).map { sx in (x: sx, y: sy) } }
            .enumerated().sorted { (abs($0.element.x) + abs($0.element.y), $0.offset) < (abs($1.element.x) + abs($1.element.y), $1.offset) }
            .map(\.element)
    }

    /// Whether the block (x0, y0, bw, bh) of `a` has texture to match: its samples (every second one on each
    /// axis) span more than `contrast` levels. A flat block matches any shift.
    static func isTextured(_ a: GrayImage, x0: Int, y0: Int, width bw: Int, height bh: Int, contrast: Int = 12) -> Bool {
        var mn = 255, mx = 0
        for y in stride(from: y0, to: y0 + bh, by: 2) {
            for x in stride(from: x0, to: x0 + bw, by: 2) {
                let v = Int(a.pixels[y * a.width + x]); mn = min(mn, v); mx = max(mx, v)
            }
        }
        return mx - mn > contrast
    }

    /// The shift of the block (x0, y0, bw, bh) of `a` whose SAD against `b` is smallest, the SAD summed over every
    /// `rowStep`-th row (every second row: half the work, the same best shift on natural texture). The caller keeps
    /// the block, moved by up to `radius`, inside both images (same size).
    func best(from a: GrayImage, to b: GrayImage, x0: Int, y0: Int, width bw: Int, height bh: Int, rowStep: Int = 2) -> (x: Int, y: Int) {
        var best = Int.max, bestShift = (x: 0, y: 0)
        for s in shifts {
            let sad = Self.sad(from: a, to: b, x0: x0, y0: y0, width: bw, height: bh, shift: s, rowStep: rowStep, bound: best)
            if sad < best { best = sad; bestShift = s }
        }
        return bestShift
    }

    /// SAD of the block (x0, y0, bw, bh) of `a` against `b` at `shift`, over every `rowStep`-th row; the sum stops
    /// growing (is returned early) once it reaches `bound`.
    static func sad(
        from a: GrayImage, to b: GrayImage, x0: Int, y0: Int, width bw: Int, height bh: Int, shift: (x: Int, y: Int),
        rowStep: Int = 1, bound: Int = .max
    ) -> Int {
        let w = a.width
        var sad = 0
        for y in stride(from: y0, to: y0 + bh, by: rowStep) {
            let ra = y * w, rb = (y + shift.y) * w + shift.x
            for x in x0..<(x0 + bw) { sad += abs(Int(a.pixels[ra + x]) - Int(b.pixels[rb + x])) }
            if sad >= bound { break }
        }
        return sad
    }

    /// The SAD minimum (over every `rowStep`-th row) near `start` to a fraction of a pixel: while a neighbour (left, right, up, down)
    /// has a smaller SAD, step to the smallest, at most `steps` times; then a parabola through the minimum and its
    /// two neighbours on each axis. Nil when the walk does not settle. The caller keeps the block, moved by up to
    /// `steps` + 1 from `start`, inside both images.
    static func subpixel(
        from a: GrayImage, to b: GrayImage, x0: Int, y0: Int, width bw: Int, height bh: Int, near start: (x: Int, y: Int), steps: Int,
        rowStep: Int = 1
    ) -> (x: Double, y: Double)? {
        func sad(_ x: Int, _ y: Int) -> Int {
            Self.sad(from: a, to: b, x0: x0, y0: y0, width: bw, height: bh, shift: (x, y), rowStep: rowStep)
        }
        func vertex(_ l: Int, _ m: Int, _ r: Int) -> Double {
            let curvature = Double(l - 2 * m + r)
            return curvature > 0 ? Double(l - r) / (2 * curvature) : 0
        }
        var c = start, m = sad(c.x, c.y)
        for step in 0...steps {
            let l = sad(c.x - 1, c.y), r = sad(c.x + 1, c.y), u = sad(c.x, c.y - 1), d = sad(c.x, c.y + 1)
            let least = min(l, r, u, d)
            if least >= m { return (Double(c.x) + vertex(l, m, r), Double(c.y) + vertex(u, m, d)) }
            guard step < steps else { return nil }
            if least == l { c.x -= 1 } else if least == r { c.x += 1 } else if least == u { c.y -= 1 } else { c.y += 1 }
            m = least
        }
        return nil
    }
}
