/// The classic golden spiral: a phi rectangle cut into ever smaller squares, one quarter-circle arc per
/// square, stretched to fit a frame, with its eye (convergence point) near one corner.
///
/// Convention: the eye lies on the frame's main diagonal through `eyeCorner`, at 1/(φ²+1) ≈ 0.2764 of the
/// width and of the height from that corner — inside the rectangle between the corner and the nearest
/// phi-grid intersection (0.382, 0.382). `topLeft` puts the eye at ≈ (0.276w, 0.276h), `bottomRight` at
/// ≈ (0.724w, 0.724h). The largest arc sweeps the side of the frame opposite `eyeCorner`'s vertical edge:
/// in a landscape frame the first square is cut from the right for a left eye and from the left for a
/// right eye; a portrait frame uses the transposed construction (first square cut from the bottom or top).
public struct GoldenSpiral: Sendable, Equatable, Hashable {
    /// The frame corner nearest to the spiral's eye.
    public enum Corner: String, CaseIterable, Sendable {
        /// Eye near the top-left corner.
        case topLeft
        /// Eye near the top-right corner.
        case topRight
        /// Eye near the bottom-left corner.
        case bottomLeft
        /// Eye near the bottom-right corner.
        case bottomRight
    }

    /// The golden ratio φ = (1 + √5) / 2.
    public static let phi = (1 + 5.0.squareRoot()) / 2

    /// Fraction of each axis from `eyeCorner` to the eye: 1/(φ²+1) ≈ 0.2764.
    public static let eyeFraction = 1 / (phi * phi + 1)

    /// The corner the eye is nearest to.
    public var eyeCorner: Corner

    /// A spiral whose eye is near `eyeCorner`.
    public init(eyeCorner: Corner) {
        self.eyeCorner = eyeCorner
    }

    /// The eye in a `width` x `height` frame, in pixels from the frame's top-left corner.
    public func eye(width: Double, height: Double) -> (x: Double, y: Double) {
        let f = GoldenSpiral.eyeFraction
        let right = eyeCorner == .topRight || eyeCorner == .bottomRight
        let bottom = eyeCorner == .bottomLeft || eyeCorner == .bottomRight
        return ((right ? 1 - f : f) * width, (bottom ? 1 - f : f) * height)
    }

    // MARK: - Construction (internal; drawn by `Canvas.strokeGoldenSpiral`)

    /// One square of the subdivision in canonical coordinates (the φ x 1 rectangle, eye top-left).
    struct Square: Equatable {
        /// Centre of the square's quarter-circle arc (one of the square's corners).
        var center: (Double, Double)
        /// Side of the square, which is also the arc's radius.
        var side: Double
        /// Angle (radians, y down) where the arc starts; it sweeps +π/2 from there.
        var startAngle: Double
        /// The square's edge shared with the rest of the rectangle, as two end points.
        var innerEdge: ((Double, Double), (Double, Double))

        static func == (a: Square, b: Square) -> Bool {
            a.center == b.center && a.side == b.side && a.startAngle == b.startAngle
                && a.innerEdge.0 == b.innerEdge.0 && a.innerEdge.1 == b.innerEdge.1
        }
    }

    /// The squares of the canonical construction, largest first, down to `minimumSide` (at most 40).
    ///
    /// Canonical rectangle: [0, φ] x [0, 1], y down. Squares are cut from the right, bottom, left, top in
    /// turn, so the arcs run clockwise inwards and converge at (φ·eyeFraction, eyeFraction).
    func squares(minimumSide: Double) -> [Square] {
        var x = 0.0, y = 0.0, w = GoldenSpiral.phi, h = 1.0
        var result: [Square] = []
        for step in 0..<40 {
            let s = min(w, h)
            guard s >= minimumSide, s > 0 else { break }
            switch step % 4 {
            case 0:  // right
                result.append(
                    Square(
                        center: (x + w - s, y), side: s, startAngle: 0,
                        innerEdge: ((x + w - s, y), (x + w - s, y + h))))
                w -= s
            case 1:  // bottom
                result.append(
                    Square(
                        center: (x + s, y + h - s), side: s, startAngle: Double.pi / 2,
                        innerEdge: ((x, y + h - s), (x + w, y + h - s))))
                h -= s
            case 2:  // left
                result.append(
                    Square(
                        center: (x + s, y + h), side: s, startAngle: Double.pi,
                        innerEdge: ((x + s, y), (x + s, y + h))))
                x += s
                w -= s
            default:  // top
                result.append(
                    Square(
                        center: (x, y + s), side: s, startAngle: 3 * Double.pi / 2,
                        innerEdge: ((x, y + s), (x + w, y + s))))
                y += s
                h -= s
            }
        }
        return result
    }

    /// Affine map (cairo matrix fields) from canonical coordinates to the unit square [0, 1]², oriented
    /// for `eyeCorner`; transposed for portrait frames so the long canonical side follows the long side.
    func unitTransform(landscape: Bool) -> (xx: Double, yx: Double, xy: Double, yy: Double, x0: Double, y0: Double) {
        let inv = 1 / GoldenSpiral.phi
        // u = xx*px + xy*py + x0, v = yx*px + yy*py + y0
        var xx: Double = landscape ? inv : 0, xy: Double = landscape ? 0 : 1, x0 = 0.0
        var yx: Double = landscape ? 0 : inv, yy: Double = landscape ? 1 : 0, y0 = 0.0
        if eyeCorner == .topRight || eyeCorner == .bottomRight {
            xx = -xx; xy = -xy; x0 = 1 - x0
        }
        if eyeCorner == .bottomLeft || eyeCorner == .bottomRight {
            yx = -yx; yy = -yy; y0 = 1 - y0
        }
        return (xx, yx, xy, yy, x0, y0)
    }

    /// A canonical point mapped into a `width` x `height` frame (pixels).
    func framePoint(_ p: (Double, Double), width: Double, height: Double) -> (x: Double, y: Double) {
        let t = unitTransform(landscape: width >= height)
        let u = t.xx * p.0 + t.xy * p.1 + t.x0
        let v = t.yx * p.0 + t.yy * p.1 + t.y0
        return (u * width, v * height)
    }
}
