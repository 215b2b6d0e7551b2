/// Camera steadiness from the frames alone (no gyroscope): global motion between analysed frames
/// by block matching on small luma, robust to subjects moving in front of a fixed camera, plus
/// sharpness (variance of the Laplacian).
///
/// Motion: the previous frame is cut into `blocks` x `blocks` blocks; each block searches +-`search`
/// pixels in the new frame for the shift with the smallest sum of absolute differences. The camera's
/// motion is the per-axis MEDIAN of the block shifts, so a person walking through a few blocks does not
/// count as camera motion; flat blocks (no texture to match) vote for no motion. A step is steady when |motion| <= `steadyPixels`. Verdict: `stableAfter`
/// consecutive steady steps -> stable, `unstableAfter` consecutive unsteady steps -> unstable; a jump
/// larger than `resetPixels` (a cut, a bump) resets the count at once. Roll (rotation about the centre)
/// is estimated from the blocks' shifts left after the translation and counts by how far it moves the
/// outermost blocks.
public struct StabilityEstimator: Sendable {
    /// One step's measurements.
    public struct Step: Sendable, Equatable {
        /// Global motion (pixels of the analysed image) from the previous frame to this one.
        public var dx: Int
        /// Vertical global motion.
        public var dy: Int
        /// Camera roll from the previous frame, degrees (counter-clockwise positive in image coordinates).
        public var rotation: Double = 0
        /// Variance of the Laplacian of this frame (higher is sharper).
        public var sharpness: Double
        /// The motion judged for steadiness: max(|dx|, |dy|, roll's displacement at the outermost blocks), pixels.
        public var magnitude: Int = 0
        /// Whether this step was steady.
        public var steady: Bool
        /// The verdict after this step.
        public var stable: Bool
    }

    /// Blocks per side.
    public var blocks = 6
    /// Search radius in pixels.
    public var search = 6
    /// Largest motion counted as steady (pixels).
    public var steadyPixels = 1
    /// Motion that resets the verdict at once (pixels).
    public var resetPixels = 5
    /// Steady steps needed to become stable.
    public var stableAfter = 10
    /// Unsteady steps needed to become unstable.
    public var unstableAfter = 5

    private var previous: GrayImage?
    private var steadyRun = 0
    private var unsteadyRun = 0
    /// The current verdict.
    public private(set) var stable = false

    /// Creates an estimator with the default thresholds.
    public init() {}

    /// Forgets the history (new scene, new caps).
    public mutating func reset() { previous = nil; steadyRun = 0; unsteadyRun = 0; stable = false }

    /// Feeds the next frame's luma (same size every time; a size change resets).
    public mutating func update(_ frame: GrayImage) -> Step {
        let sharp = Self.laplacianVariance(frame)
        defer { previous = frame }
        guard let prev = previous, prev.width == frame.width, prev.height == frame.height else {
            steadyRun = 0; unsteadyRun = 0; stable = false
            return Step(dx: 0, dy: 0, sharpness: sharp, steady: false, stable: false)
        }
        let m = motion(from: prev, to: frame)
        let (dx, dy) = (m.dx, m.dy)
        // Roll counts by how far it moves the outermost blocks.
        let magnitude = max(abs(dx), abs(dy), Int((abs(m.rotation) * m.radius).rounded()))
        let steady = magnitude <= steadyPixels
        if magnitude > resetPixels {
            steadyRun = 0; unsteadyRun = unstableAfter; stable = false
        } else if steady {
            steadyRun += 1; unsteadyRun = 0
            if steadyRun >= stableAfter { stable = true }
        } else {
            unsteadyRun += 1; steadyRun = 0
            if unsteadyRun >= unstableAfter { stable = false }
        }
        return Step(
            dx: dx, dy: dy, rotation: m.rotation * 180 / .pi, sharpness: sharp, magnitude: magnitude, steady: steady, stable: stable)
    }

    /// Translation (median of block shifts) and roll: each textured block's shift left after removing the
    /// translation, seen from the image centre, gives an angle (c x r / |c|^2); the roll is their median
    /// (radians), `radius` the distance of the farthest block used.
    public func motion(from a: GrayImage, to b: GrayImage) -> (dx: Int, dy: Int, rotation: Double, radius: Double) {
        let w = a.width, h = a.height
        let bw = (w - 2 * search) / blocks, bh = (h - 2 * search) / blocks
        guard bw >= 4, bh >= 4 else { return (0, 0, 0, 0) }
        var xs: [Int] = [], ys: [Int] = []
        var textured: [(cx: Double, cy: Double, sx: Int, sy: Int)] = []
        let matcher = BlockSearch(radius: search)
        for by in 0..<blocks {
            for bx in 0..<blocks {
                let x0 = search + bx * bw, y0 = search + by * bh
                // A flat block (no texture) matches any shift: it votes "no motion". So a small textured
                // subject moving over a plain background (a ball on black) is not taken for the camera.
                guard BlockSearch.isTextured(a, x0: x0, y0: y0, width: bw, height: bh) else { xs.append(0); ys.append(0); continue }
                let bestShift = matcher.best(from: a, to: b, x0: x0, y0: y0, width: bw, height: bh)
                xs.append(bestShift.x); ys.append(bestShift.y)
                textured.append(
                    (Double(x0) + Double(bw) / 2 - Double(w) / 2, Double(y0) + Double(bh) / 2 - Double(h) / 2, bestShift.x, bestShift.y))
            }
        }
        guard !xs.isEmpty else { return (0, 0, 0, 0) }
        xs.sort(); ys.sort()
        let mx = xs[xs.count / 2], my = ys[ys.count / 2]
        // Roll from blocks away from the centre (near it a turn moves nothing measurable).
        let minR = Double(min(w, h)) / 6
        var angles: [Double] = [], radius = 0.0
        for t in textured {
            let r2 = t.cx * t.cx + t.cy * t.cy
            guard r2 >= minR * minR else { continue }
            let rx = Double(t.sx - mx), ry = Double(t.sy - my)
            angles.append((t.cx * ry - t.cy * rx) / r2)
            radius = max(radius, r2.squareRoot())
        }
        guard angles.count >= 4 else { return (mx, my, 0, radius) }
        angles.sort()
        return (mx, my, angles[angles.count / 2], radius)
    }

    /// Variance of the 4-neighbour Laplacian over the interior.
    public static func laplacianVariance(_ g: GrayImage) -> Double {
        let w = g.width, h = g.height
        guard w > 2, h > 2 else { return 0 }
        var sum = 0.0, sum2 = 0.0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                let l = Double(
                    4 * Int(g.pixels[i]) - Int(g.pixels[i - 1]) - Int(g.pixels[i + 1]) - Int(g.pixels[i - w]) - Int(g.pixels[i + w]))
                sum += l; sum2 += l * l
            }
        }
        let n = Double((w - 2) * (h - 2))
        return sum2 / n - (sum / n) * (sum / n)
    }
}
