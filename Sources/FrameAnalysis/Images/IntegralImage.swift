/// Summed-area tables of an 8-bit image, laid out as OpenCV's `integral(src, sum, sqsum, tilted)`:
/// `(width + 1) x (height + 1)` entries, row 0 and column 0 zero.
///
/// - `sum(X, Y)     = Σ_{x<X, y<Y} I(x, y)`
/// - `squares(X, Y) = Σ_{x<X, y<Y} I(x, y)²`
/// - `tilted(X, Y)  = Σ_{y<Y, |x - X + 1| <= Y - y - 1} I(x, y)` (the 45-degree table of Lienhart & Maydt;
///   pixels outside the image count as 0).
///
/// Entries are 32-bit and wrap like OpenCV's CV_32S outputs: a rectangle's sum taken with wrapping
/// arithmetic is exact whenever the rectangle's own sum fits in 32 bits, however large the image.
struct IntegralImage: Sendable {
    /// Source width.
    let width: Int
    /// Source height.
    let height: Int
    /// Row stride of every table (`width + 1`).
    var stride: Int { width + 1 }
    var sum: [Int32]
    var squares: [Int32]
    var tilted: [Int32]

    /// Computes the tables of `gray` (the tilted one only when asked).
    init(_ gray: GrayImage, tilted withTilted: Bool = false) {
        width = gray.width; height = gray.height
        let n = (gray.width + 1) * (gray.height + 1)
        var s = [Int32](repeating: 0, count: n), q = [Int32](repeating: 0, count: n)
        var t = [Int32](repeating: 0, count: withTilted ? n : 0)
        gray.pixels.withUnsafeBufferPointer { src in
            s.withUnsafeMutableBufferPointer { sp in
                q.withUnsafeMutableBufferPointer { qp in
                    Integral.sums(
                        src.baseAddress!, width: gray.width, height: gray.height, stride: gray.width + 1,
                        sum: sp.baseAddress!, squares: qp.baseAddress!)
                }
            }
            if withTilted {
                var scratch = [Int32](repeating: 0, count: Integral.tiltedScratchCount(width: gray.width, height: gray.height))
                t.withUnsafeMutableBufferPointer { tp in
                    scratch.withUnsafeMutableBufferPointer { sc in
                        Integral.tilted(
                            src.baseAddress!, width: gray.width, height: gray.height, stride: gray.width + 1,
                            tilted: tp.baseAddress!, scratch: sc.baseAddress!)
                    }
                }
            }
        }
        sum = s; squares = q; tilted = t
    }

    /// Sum of the pixels in the upright rectangle (x, y, w, h).
    func sum(x: Int, y: Int, width w: Int, height h: Int) -> Int {
        let a = y * stride + x, b = a + w, c = (y + h) * stride + x, d = c + w
        return Int(sum[a] &- sum[b] &- sum[c] &+ sum[d])
    }

    /// Sum of the pixels in the 45-degree rectangle whose top corner is (x, y), running `w` down-right
    /// and `h` down-left (OpenCV's tilted Haar rectangle).
    func tiltedSum(x: Int, y: Int, width w: Int, height h: Int) -> Int {
        let p0 = y * stride + x, p1 = (y + h) * stride + x - h
        let p2 = (y + w) * stride + x + w, p3 = (y + w + h) * stride + x + w - h
        return Int(tilted[p0] &- tilted[p1] &- tilted[p2] &+ tilted[p3])
    }
}

/// The table builders on raw buffers (the detector reuses its buffers across pyramid levels).
enum Integral {
    /// Fills `sum` and `squares` (`(width+1) x (height+1)` entries at `stride`) for an 8-bit image
    /// stored without padding.
    static func sums(
        _ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
        sum: UnsafeMutablePointer<Int32>, squares: UnsafeMutablePointer<Int32>
    ) {
        for x in 0...width { sum[x] = 0; squares[x] = 0 }
        for y in 0..<height {
            let row = src + y * width
            let above = (y) * stride, here = (y + 1) * stride
            sum[here] = 0; squares[here] = 0
            var s: Int32 = 0, q: Int32 = 0
            for x in 0..<width {
                let v = Int32(row[x])
                s &+= v; q &+= v &* v
                sum[here + x + 1] = sum[above + x + 1] &+ s
                squares[here + x + 1] = squares[above + x + 1] &+ q
            }
        }
    }

    /// Fills `sum` only (LBP cascades need no squares).
    static func sums(_ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, sum: UnsafeMutablePointer<Int32>) {
        for x in 0...width { sum[x] = 0 }
        for y in 0..<height {
            let row = src + y * width
            let above = y * stride, here = (y + 1) * stride
            sum[here] = 0
            var s: Int32 = 0
            for x in 0..<width {
                s &+= Int32(row[x])
                sum[here + x + 1] = sum[above + x + 1] &+ s
            }
        }
    }

    /// Scratch entries `tilted` needs: three rows of the table extended by `height + 2` on both sides.
    static func tiltedScratchCount(width: Int, height: Int) -> Int { 3 * (width + 2 * (height + 2) + 1) }

    /// Fills the 45-degree table with the recurrence
    /// `T(X,Y) = T(X-1,Y-1) + T(X+1,Y-1) - T(X,Y-2) + I(X-1,Y-1) + I(X-1,Y-2)`,
    /// run over rows widened by `height + 2` columns each side so that triangles reaching past the
    /// left/right edges are summed exactly (the widened ends are truly zero).
    static func tilted(
        _ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
        tilted out: UnsafeMutablePointer<Int32>, scratch: UnsafeMutablePointer<Int32>
    ) {
        let off = height + 2
        let rowLength = width + 2 * off + 1
        scratch.initialize(repeating: 0, count: 3 * rowLength)
        var r2 = scratch, r1 = scratch + rowLength, r0 = scratch + 2 * rowLength  // rows Y-2, Y-1, Y
        for x in 0...width { out[x] = 0 }
        for y in 1...max(1, height) where height > 0 {
            let img1 = src + (y - 1) * width  // image row Y-1
            let img2: UnsafePointer<UInt8>? = y >= 2 ? src + (y - 2) * width : nil
            for i in 1..<(rowLength - 1) {
                let px = i - off - 1  // X - 1
                var v = r1[i - 1] &+ r1[i + 1] &- r2[i]
                if px >= 0 && px < width {
                    v &+= Int32(img1[px])
                    if let img2 { v &+= Int32(img2[px]) }
                }
                r0[i] = v
            }
            let dst = out + y * stride
            for x in 0...width { dst[x] = r0[x + off] }
            (r2, r1, r0) = (r1, r0, r2)
        }
    }
}
