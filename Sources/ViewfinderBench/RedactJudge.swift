import FrameAnalysis

/// `bench redact`'s judge: what a method's output frame shows, from the pixels alone (the same judge for every method,
/// whatever it draws).
///
/// The luma is cut into 8x8 cells. A cell is *textured* when the input's detail there (the mean absolute difference of
/// horizontal and vertical neighbours) is at least `textured`; flat cells show nothing a cover could hide and are not
/// judged (3 levels: a blurred cover's own gradients and the seam where two covers meet make 1-2). A textured cell is *covered* when the output keeps at most `kept` of its detail (blur, pixelate) or its mean
/// moved by at least `moved` levels (a fill). A true face is *leaked* when any textured cell lying wholly inside its box
/// (inset by `inset` of its size on each side: labels run a little past the face) is not covered, and *bare* when most
/// of them are not (a face the method missed, rather than one it covered short). *Over-cover* is the share of textured
/// cells outside every true face that are covered.
public struct RedactJudge: Sendable {
    public static let cell = 8
    /// Least input detail (levels) a judged cell has.
    public var textured = 3.0
    /// Most of its detail a covered cell keeps.
    public var kept = 0.4
    /// Least mean shift (levels) that covers a cell by itself.
    public var moved = 12.0
    /// The part of each side of a true box left out of its judged cells.
    public var inset = 0.1

    public init() {}

    /// One frame's verdict.
    public struct Verdict: Sendable, Equatable {
        /// The true faces (indices into the given boxes) that were not wholly covered.
        public var leaked: [Int]
        /// Those of them with most of their judged cells uncovered.
        public var bare: [Int] = []
        /// Textured cells outside every true face, and those of them covered.
        public var outside: Int, coveredOutside: Int
    }

    /// Detail and mean of the cell at (cx, cy) in a packed `width`-wide luma plane.
    static func cellFigures(_ p: [UInt8], width: Int, height: Int, cx: Int, cy: Int) -> (detail: Double, mean: Double) {
        let x0 = cx * cell, y0 = cy * cell
        var d = 0, n = 0, sum = 0
        for y in y0..<min(y0 + cell, height) {
            let row = y * width
            for x in x0..<min(x0 + cell, width) {
                let v = Int(p[row + x])
                sum += v
                if x + 1 < x0 + cell, x + 1 < width { d += abs(v - Int(p[row + x + 1])); n += 1 }
                if y + 1 < y0 + cell, y + 1 < height { d += abs(v - Int(p[row + width + x])); n += 1 }
            }
        }
        let count = (min(x0 + cell, width) - x0) * (min(y0 + cell, height) - y0)
        return (n > 0 ? Double(d) / Double(n) : 0, Double(sum) / Double(max(1, count)))
    }

    /// Judges `output` against `input` (packed luma planes, `width` x `height`) with the true face boxes `faces`.
    public func judge(input: [UInt8], output: [UInt8], width: Int, height: Int, faces: [Box]) -> Verdict {
        let cw = width / Self.cell, ch = height / Self.cell
        var covered = [Bool?](repeating: nil, count: cw * ch)
        for cy in 0..<ch {
            for cx in 0..<cw {
                let a = Self.cellFigures(input, width: width, height: height, cx: cx, cy: cy)
                guard a.detail >= textured else { continue }
                let b = Self.cellFigures(output, width: width, height: height, cx: cx, cy: cy)
                covered[cy * cw + cx] = b.detail <= kept * a.detail || abs(b.mean - a.mean) >= moved
            }
        }
        var leaked: [Int] = [], bare: [Int] = [], inFace = [Bool](repeating: false, count: cw * ch)
        for (i, f) in faces.enumerated() {
            // Cells touching the box count as "in a face" for over-cover; cells wholly inside the inset box are judged.
            let ix0 = max(0, Int(f.x) / Self.cell), iy0 = max(0, Int(f.y) / Self.cell)
            let ix1 = min(cw - 1, Int(f.x + f.width) / Self.cell), iy1 = min(ch - 1, Int(f.y + f.height) / Self.cell)
            if ix0 <= ix1 && iy0 <= iy1 { for cy in iy0...iy1 { for cx in ix0...ix1 { inFace[cy * cw + cx] = true } } }
            let jx0 = Int((f.x + inset * f.width).rounded(.up)), jy0 = Int((f.y + inset * f.height).rounded(.up))
            let jx1 = Int(f.x + (1 - inset) * f.width), jy1 = Int(f.y + (1 - inset) * f.height)
            let cx0 = (jx0 + Self.cell - 1) / Self.cell, cy0 = (jy0 + Self.cell - 1) / Self.cell
            let cx1 = min(cw, jx1 / Self.cell), cy1 = min(ch, jy1 / Self.cell)
            var open = 0, judged = 0
            if cx0 < cx1 && cy0 < cy1 {
                for cy in cy0..<cy1 {
                    for cx in cx0..<cx1 {
                        guard let c = covered[cy * cw + cx] else { continue }
                        judged += 1
                        if !c { open += 1 }
                    }
                }
            }
            if open > 0 { leaked.append(i) }
            if open * 2 > judged { bare.append(i) }
        }
        var outside = 0, coveredOutside = 0
        for i in covered.indices where !inFace[i] {
            guard let c = covered[i] else { continue }
            outside += 1
            if c { coveredOutside += 1 }
        }
        return Verdict(leaked: leaked, bare: bare, outside: outside, coveredOutside: coveredOutside)
    }
}
