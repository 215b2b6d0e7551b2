/// The camera's motion from one frame to the next as a similarity about the image centre: a point (x, y) of the
/// previous frame, in the pixels of a `width` x `height` image whose centre is (cx, cy) = (width / 2, height / 2),
/// is at (cx + scale * (x - cx) + dx, cy + scale * (y - cy) + dy) in the new frame. A zoom in is scale > 1; a pan
/// to the right moves the picture left (dx < 0).
public struct CameraMotion: Sendable, Equatable {
    /// Magnification about the image centre (1: none).
    public var scale: Double
    /// Horizontal translation after the scaling, pixels.
    public var dx: Double
    /// Vertical translation after the scaling, pixels.
    public var dy: Double

    /// Creates a motion.
    public init(scale: Double, dx: Double, dy: Double) { self.scale = scale; self.dx = dx; self.dy = dy }

    /// No motion.
    public static let identity = CameraMotion(scale: 1, dx: 0, dy: 0)

    /// Where point `p` of the previous frame is in the new one (image `width` x `height`).
    public func apply(_ p: Point2D, width: Double, height: Double) -> Point2D {
        Point2D(x: width / 2 + scale * (p.x - width / 2) + dx, y: height / 2 + scale * (p.y - height / 2) + dy)
    }

    /// Where box `b` of the previous frame is in the new one: its corners moved, so it is scaled about the image
    /// centre and moved.
    public func apply(_ b: Box, width: Double, height: Double) -> Box {
        let o = apply(Point2D(x: b.x, y: b.y), width: width, height: height)
        return Box(x: o.x, y: o.y, width: scale * b.width, height: scale * b.height)
    }

    /// This motion, then `next`: one similarity about the same centre.
    public func then(_ next: CameraMotion) -> CameraMotion {
        CameraMotion(scale: scale * next.scale, dx: next.scale * dx + next.dx, dy: next.scale * dy + next.dy)
    }

    /// The same motion for an image `f` times larger (measured on a thumbnail, applied in input pixels): the
    /// translation grows with the image, the scale stays.
    public func scaled(by f: Double) -> CameraMotion { CameraMotion(scale: scale, dx: dx * f, dy: dy * f) }
}

/// The camera's motion into each of the latest frames (input pixels), for carrying an analysis of an earlier frame
/// forward to the newest one (`Reframer`, `ObjectTracker`): the last `frames` of them, newest last.
public struct CameraHistory: Sendable {
    /// How many frames are kept (2 s at 30 fps).
    public static let frames = 60
    private var entries: [(time: Double, motion: CameraMotion)] = []

    /// An empty history.
    public init() {}

    /// The newest frame's time; nil when empty.
    public var newestTime: Double? { entries.last?.time }

    /// The camera moved by `m` into the frame at `time`.
    public mutating func record(_ m: CameraMotion, at time: Double) {
        entries.append((time, m))
        if entries.count > Self.frames { entries.removeFirst(entries.count - Self.frames) }
    }

    /// Forgets it all (a new shot: the motion before it says nothing about frames after it).
    public mutating func clear() { entries.removeAll() }

    /// The motions into the frames after `time`, oldest first, identities left out.
    public func since(_ time: Double) -> [CameraMotion] { entries.filter { $0.time > time && $0.motion != .identity }.map(\.motion) }
}

/// The camera's motion (`CameraMotion`) between consecutive frames, from small luma alone (~160x90, area-averaged
/// from the real frame): fed every frame so boxes analysed a few frames ago can be carried along with a panning or
/// zooming camera.
///
/// Method, in three steps, each for a reason:
/// 1. Block matching (`BlockSearch`, as `StabilityEstimator`): the previous image is cut into `columns` x `rows`
///    blocks; each block with texture in both directions (the weaker eigenvalue of its mean structure tensor at
///    least `minTexture`: an edge alone cannot say how far it slid along itself) is searched for within +-`search`
///    pixels in half-size images (cheap, and twice the reach), then refined to a fraction of a pixel there and at
///    full size (a parabola through the SAD minimum on each axis; SAD over every second row throughout). Block
///    matching finds large motions without a starting guess and gives one vector per block: the votes the robust
///    fit needs.
/// 2. A robust fit of the similarity to the block vectors (displacement = (scale - 1) * block position from the
///    centre + translation): the fit of a pair of blocks that most blocks agree with (within `agreement`), then
///    least squares over those. The largest group of blocks moving as one wins, so a person walking in front of the
///    camera through a third of the blocks is left out, where a mean or a least-squares fit of all blocks would be
///    pulled along.
/// 3. Gauss-Newton on the similarity over the pixels of the agreeing blocks (every second row; bilinear samples of
///    the new image; Huber weights against what the blocks' fit missed). The parabola on SAD is biased towards
///    whole pixels the same way on every block, so averaging the blocks does not remove it: over random pans and
///    zooms of eight test photos the blocks' fit alone is off by ~0.1 px typically and up to ~0.35 px, the pixel
///    fit by ~0.02 px and at most ~0.08 px.
///
/// No estimate (nil) on the first frame, after a size change, with fewer than `minBlocks` textured blocks (a flat
/// picture), when the blocks disagree (fewer than `minBlocks` or than half of the textured ones agree with the fit:
/// a cut to another scene), when half of the blocks hit the edge of the search (a motion beyond ~2 * `search`
/// pixels), or when the pixel fit strays more than a pixel from the blocks' fit. Motions below the noise floor
/// (|translation| < 0.05 px and |scale - 1| < 0.0005) come out as exactly `CameraMotion.identity`, so a still
/// camera does not drift. Cost: ~0.23 ms a 160x90 frame (release build).
public struct CameraMotionEstimator: Sendable {
    /// Blocks across.
    public var columns = 10
    /// Blocks down.
    public var rows = 5
    /// Search radius of the block matching in half-size pixels (twice that in the input's pixels).
    public var search = 4
    /// Least texture of a block that counts: the weaker eigenvalue of its mean structure tensor (squared levels per pixel).
    public var minTexture = 1.0
    /// Fewest textured (and fewest agreeing) blocks for an estimate.
    public var minBlocks = 6
    /// Farthest a block's vector may lie from the fit and still agree with it, pixels.
    public var agreement = 0.75
    /// Gauss-Newton iterations at most (it stops earlier once a step moves less than 0.01 px).
    public var iterations = 4

    private var previous: Frame?
    private var matcher = BlockSearch(radius: 4)

    /// Creates an estimator with the default settings.
    public init() {}

    /// Forgets the previous frame (new scene, new caps).
    public mutating func reset() { previous = nil }

    /// The motion from the previous frame to `image` (same size every time; a size change starts over), or nil
    /// when there is no previous frame or no reliable estimate.
    public mutating func update(_ image: GrayImage) -> CameraMotion? {
        let frame = Frame(image)
        defer { previous = frame }
        guard let prev = previous, prev.gray.width == image.width, prev.gray.height == image.height else { return nil }
        if matcher.radius != search { matcher = BlockSearch(radius: search) }
        return estimate(from: prev, to: frame)
    }

    /// One image prepared for matching: the half-size image (2x2 means) and the samples as floats (for the pixel fit).
    private struct Frame: Sendable {
        let gray: GrayImage
        let half: GrayImage
        let luma: [Float]

        init(_ g: GrayImage) {
            gray = g
            let w = g.width, hw = w / 2, hh = g.height / 2
            var hp = [UInt8](repeating: 0, count: hw * hh)
            for y in 0..<hh {
                for x in 0..<hw {
                    let i = 2 * y * w + 2 * x
                    let s = Int(g.pixels[i]) + Int(g.pixels[i + 1]) + Int(g.pixels[i + w]) + Int(g.pixels[i + w + 1])
                    hp[y * hw + x] = UInt8((s + 2) / 4)
                }
            }
            half = GrayImage(width: hw, height: hh, pixels: hp)
            luma = g.pixels.map { Float($0) }
        }
    }

    /// A textured block's measured motion: its full-size rectangle, its centre from the image centre and its
    /// displacement (pixels).
    private struct Vote {
        var x0: Int, y0: Int, width: Int, height: Int
        var rx: Double, ry: Double
        var dx: Double, dy: Double
    }
}

extension CameraMotionEstimator {
    /// The three steps (see the type) from `a` to `b`, same size.
    private func estimate(from a: Frame, to b: Frame) -> CameraMotion? {
        let w = a.gray.width, h = a.gray.height
        // Half-size pixels kept clear at the edges: the search, then the walk and the parabola at full size.
        let margin = search + 2
        let bw = (a.half.width - 2 * margin) / columns, bh = (a.half.height - 2 * margin) / rows
        guard bw >= 3, bh >= 3 else { return nil }
        let ox = (a.half.width - bw * columns) / 2, oy = (a.half.height - bh * rows) / 2
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        var votes: [Vote] = [], textured = 0, atEdge = 0
        votes.reserveCapacity(columns * rows)
        for by in 0..<rows {
            for bx in 0..<columns {
                let hx = ox + bx * bw, hy = oy + by * bh, x0 = 2 * hx, y0 = 2 * hy
                guard Self.texture(a, x0: x0, y0: y0, width: 2 * bw, height: 2 * bh) >= minTexture else { continue }
                textured += 1
                let s = matcher.best(from: a.half, to: b.half, x0: hx, y0: hy, width: bw, height: bh, rowStep: 2)
                guard abs(s.x) < search, abs(s.y) < search else { atEdge += 1; continue }
                // The half-size minimum to a fraction of a pixel (a step away if every second row misled the
                // search) says where to look at full size, so the walk there rarely needs a step.
                guard let e = BlockSearch.subpixel(from: a.half, to: b.half, x0: hx, y0: hy, width: bw, height: bh, near: s, steps: 1),
                    let d = BlockSearch.subpixel(
                        from: a.gray, to: b.gray, x0: x0, y0: y0, width: 2 * bw, height: 2 * bh,
                        near: (Int((2 * e.x).rounded()), Int((2 * e.y).rounded())), steps: 2, rowStep: 2)
                else { continue }
                let rx = Double(x0 + bw) - 0.5 - cx, ry = Double(y0 + bh) - 0.5 - cy
                votes.append(Vote(x0: x0, y0: y0, width: 2 * bw, height: 2 * bh, rx: rx, ry: ry, dx: d.x, dy: d.y))
            }
        }
        guard textured >= minBlocks, 2 * atEdge < textured, let fit = robustFit(votes, nearest: Double(min(w, h)) / 6),
            2 * fit.agreeing.count >= textured, let m = pixelFit(from: a, to: b, start: fit.motion, blocks: fit.agreeing)
        else { return nil }
        // The pixel fit refines the blocks' fit: one that strays by a pixel anywhere in the blocks went wrong.
        let reach = fit.agreeing.map { max(abs($0.rx), abs($0.ry)) + Double(max($0.width, $0.height)) / 2 }.max() ?? 0
        guard abs(m.scale - fit.motion.scale) * reach + Self.length(m.dx - fit.motion.dx, m.dy - fit.motion.dy) <= 1 else { return nil }
        if Self.length(m.dx, m.dy) < 0.05, abs(m.scale - 1) < 0.0005 { return .identity }
        return m
    }

    /// The weaker eigenvalue of the block's mean structure tensor (mean gx², gy², gx*gy, central differences): large
    /// only when the block has gradients in two directions.
    private static func texture(_ f: Frame, x0: Int, y0: Int, width bw: Int, height bh: Int) -> Double {
        let w = f.gray.width, luma = f.luma
        var sxx: Float = 0, syy: Float = 0, sxy: Float = 0
        for y in y0..<(y0 + bh) {
            for i in (y * w + x0)..<(y * w + x0 + bw) {
                let gx = (luma[i + 1] - luma[i - 1]) / 2, gy = (luma[i + w] - luma[i - w]) / 2
                sxx += gx * gx; syy += gy * gy; sxy += gx * gy
            }
        }
        let n = Double(bw * bh), p = Double(sxx) / n, q = Double(syy) / n, r = Double(sxy) / n
        return (p + q) / 2 - ((p - q) * (p - q) / 4 + r * r).squareRoot()
    }

    /// The similarity fitted to the block vectors, robustly. Candidates from pairs of blocks (each block with the
    /// ones a half and a third of the list further on, at least `nearest` pixels apart): the pair's exact fit, scored
    /// by how well every block agrees with it (the sum of min(distance², `agreement`²), so the largest group moving
    /// as one wins, not the mean of everything). Then least squares over the blocks within `agreement` of the best,
    /// repeated until that set settles. Nil when fewer than `minBlocks` agree.
    private func robustFit(_ votes: [Vote], nearest: Double) -> (motion: CameraMotion, agreeing: [Vote])? {
        let n = votes.count, limit = agreement * agreement
        guard n >= minBlocks else { return nil }
        func cost(_ m: CameraMotion) -> Double {
            var c = 0.0
            for v in votes { c += min(limit, Self.squaredDistance(v, m)) }
            return c
        }
        var best = Self.leastSquares(votes), least = cost(best)
        for i in 0..<n {
            for j in [(i + n / 2) % n, (i + n / 3) % n] {
                let (p, q) = (votes[i], votes[j])
                let rx = p.rx - q.rx, ry = p.ry - q.ry, rr = rx * rx + ry * ry
                guard rr >= nearest * nearest else { continue }
                // The similarity through both: scale from their difference, translation from their mean.
                let k = (rx * (p.dx - q.dx) + ry * (p.dy - q.dy)) / rr
                let m = CameraMotion(scale: 1 + k, dx: (p.dx + q.dx - k * (p.rx + q.rx)) / 2, dy: (p.dy + q.dy - k * (p.ry + q.ry)) / 2)
                let c = cost(m)
                if c < least { least = c; best = m }
            }
        }
        var agreeing: [Vote] = [], count = -1
        for _ in 0..<6 {
            agreeing = votes.filter { Self.squaredDistance($0, best) <= limit }
            guard agreeing.count >= minBlocks else { return nil }
            if agreeing.count == count { break }
            count = agreeing.count
            best = Self.leastSquares(agreeing)
        }
        return (best, agreeing)
    }

    /// How far (squared, pixels²) the block's vector lies from where `m` moves its centre.
    private static func squaredDistance(_ v: Vote, _ m: CameraMotion) -> Double {
        let ex = v.dx - (m.scale - 1) * v.rx - m.dx, ey = v.dy - (m.scale - 1) * v.ry - m.dy
        return ex * ex + ey * ey
    }

    /// Least squares of displacement = (scale - 1) * position + translation over the votes.
    private static func leastSquares(_ votes: [Vote]) -> CameraMotion {
        var rx = 0.0, ry = 0.0, dx = 0.0, dy = 0.0
        for v in votes { rx += v.rx; ry += v.ry; dx += v.dx; dy += v.dy }
        let n = Double(votes.count)
        rx /= n; ry /= n; dx /= n; dy /= n
        var rr = 0.0, rd = 0.0
        for v in votes {
            rr += (v.rx - rx) * (v.rx - rx) + (v.ry - ry) * (v.ry - ry)
            rd += (v.rx - rx) * (v.dx - dx) + (v.ry - ry) * (v.dy - dy)
        }
        let k = rr > 0 ? rd / rr : 0
        return CameraMotion(scale: 1 + k, dx: dx - k * rx, dy: dy - k * ry)
    }

    /// One pixel of the pixel fit: its position from the image centre, its value and the residual's derivatives by
    /// (scale, dx, dy) at scale 1.
    private struct Sample {
        var x: Float, y: Float, value: Float
        var j0: Float, j1: Float, j2: Float
    }

    /// Gauss-Newton on (scale, dx, dy) from `start` over the blocks' pixels with a gradient (every second row;
    /// |gradient| >= 2 levels per pixel, as flat pixels add little but cost as much): residual = the new image (bilinear) at the moved point - the
    /// previous image, with the previous image's gradient / scale for the new one's (exact at the solution), Huber
    /// weights (threshold 1.5 x the mean absolute residual, at least 3 levels). Stops after `iterations` or once a
    /// step moves the blocks less than 0.01 px. Nil when the normal equations are singular.
    private func pixelFit(from a: Frame, to b: Frame, start: CameraMotion, blocks: [Vote]) -> CameraMotion? {
        let w = a.gray.width, h = a.gray.height
        let cx = Float(w - 1) / 2, cy = Float(h - 1) / 2, luma = a.luma, next = b.luma
        var samples: [Sample] = []
        samples.reserveCapacity(blocks.reduce(0) { $0 + $1.width * $1.height } / 2)
        for v in blocks {
            for y in stride(from: v.y0, to: v.y0 + v.height, by: 2) {
                for i in (y * w + v.x0)..<(y * w + v.x0 + v.width) {
                    let gx = (luma[i + 1] - luma[i - 1]) / 2, gy = (luma[i + w] - luma[i - w]) / 2
                    guard gx * gx + gy * gy >= 4 else { continue }
                    let rx = Float(i - y * w) - cx, ry = Float(y) - cy
                    samples.append(Sample(x: rx, y: ry, value: luma[i], j0: gx * rx + gy * ry, j1: gx, j2: gy))
                }
            }
        }
        let reach = blocks.map { max(abs($0.rx), abs($0.ry)) }.max() ?? 0
        var m = start, huber: Float = 10
        for _ in 0..<iterations {
            let scale = Float(m.scale), ox = cx + Float(m.dx), oy = cy + Float(m.dy)
            // Sums of w j jᵀ and -w j r with j at scale 1 (the scale's 1 / scale and 1 / scale² come after), in Float
            // over runs of 64 pixels, in Double across runs.
            var n = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0), g = (0.0, 0.0, 0.0), absSum = 0.0, count = 0
            for run in stride(from: 0, to: samples.count, by: 64) {
                var n0: Float = 0, n1: Float = 0, n2: Float = 0, n3: Float = 0, n4: Float = 0, n5: Float = 0
                var g0: Float = 0, g1: Float = 0, g2: Float = 0, runAbs: Float = 0
                for p in samples[run..<min(run + 64, samples.count)] {
                    let tx = ox + scale * p.x, ty = oy + scale * p.y
                    guard tx >= 0, tx < Float(w - 1), ty >= 0, ty < Float(h - 1) else { continue }
                    let xi = Int(tx), yi = Int(ty), fx = tx - Float(xi), fy = ty - Float(yi), k = yi * w + xi
                    let top = next[k] + fx * (next[k + 1] - next[k])
                    let bottom = next[k + w] + fx * (next[k + w + 1] - next[k + w])
                    let r = top + fy * (bottom - top) - p.value, e = abs(r)
                    let weight: Float = e <= huber ? 1 : huber / e
                    let w0 = weight * p.j0, w1 = weight * p.j1, w2 = weight * p.j2
                    n0 += w0 * p.j0; n1 += w0 * p.j1; n2 += w0 * p.j2; n3 += w1 * p.j1; n4 += w1 * p.j2; n5 += w2 * p.j2
                    g0 -= w0 * r; g1 -= w1 * r; g2 -= w2 * r
                    runAbs += e; count += 1
                }
                n.0 += Double(n0); n.1 += Double(n1); n.2 += Double(n2); n.3 += Double(n3); n.4 += Double(n4); n.5 += Double(n5)
                g.0 += Double(g0); g.1 += Double(g1); g.2 += Double(g2); absSum += Double(runAbs)
            }
            let i1 = 1 / m.scale, i2 = i1 * i1
            n = (n.0 * i2, n.1 * i2, n.2 * i2, n.3 * i2, n.4 * i2, n.5 * i2); g = (g.0 * i1, g.1 * i1, g.2 * i1)
            guard count > 0, let step = Self.solve3([n.0, n.1, n.2, n.1, n.3, n.4, n.2, n.4, n.5], [g.0, g.1, g.2]) else { return nil }
            m = CameraMotion(scale: m.scale + step[0], dx: m.dx + step[1], dy: m.dy + step[2])
            huber = max(3, Float(1.5 * absSum / Double(count)))
            if abs(step[0]) * reach + Self.length(step[1], step[2]) < 0.01 { break }
        }
        return m
    }

    /// x with a x = b for a row-major 3x3 `a` (Cramer's rule); nil when `a` is (nearly) singular.
    private static func solve3(_ a: [Double], _ b: [Double]) -> [Double]? {
        func det(_ m: [Double]) -> Double {
            m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        }
        let d = det(a)
        guard abs(d) > 1e-9 * (abs(a[0] * a[4] * a[8]) + 1e-300) else { return nil }
        return (0..<3).map { c in
            var m = a
            for r in 0..<3 { m[r * 3 + c] = b[r] }
            return det(m) / d
        }
    }

    /// sqrt(x² + y²).
    private static func length(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
}
