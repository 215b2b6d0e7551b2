import Testing

@testable import FrameAnalysis

/// Summed-area tables against brute-force sums (upright, squared and 45-degree tilted).
@Suite struct IntegralImageTests {
    /// A deterministic pseudo-random image.
    static func noise(width: Int, height: Int, seed: UInt64 = 7) -> GrayImage {
        var s = seed
        let px = (0..<(width * height)).map { _ -> UInt8 in
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: s >> 56)
        }
        return GrayImage(width: width, height: height, pixels: px)
    }

    @Test func uprightAndSquaredSums() {
        let g = Self.noise(width: 37, height: 23)
        let ii = IntegralImage(g)
        #expect(ii.sum.count == 38 * 24 && ii.sum[0] == 0 && ii.sum[37] == 0)
        for (x, y, w, h) in [(0, 0, 37, 23), (3, 4, 10, 7), (36, 22, 1, 1), (5, 0, 0, 3)] {
            var s = 0, q = 0
            for yy in y..<(y + h) { for xx in x..<(x + w) { s += Int(g[xx, yy]); q += Int(g[xx, yy]) * Int(g[xx, yy]) } }
            #expect(ii.sum(x: x, y: y, width: w, height: h) == s)
            let a = y * 38 + x, b = a + w, c = (y + h) * 38 + x, d = c + w
            #expect(Int(UInt32(bitPattern: ii.squares[a] &- ii.squares[b] &- ii.squares[c] &+ ii.squares[d])) == q)
        }
    }

    @Test func tiltedTableMatchesItsDefinition() {
        // T(X, Y) = Σ_{y < Y, |x - X + 1| <= Y - y - 1} I(x, y), pixels outside the image are 0.
        let g = Self.noise(width: 19, height: 13, seed: 3)
        let ii = IntegralImage(g, tilted: true)
        for Y in 0...13 {
            for X in 0...19 {
                var s = 0
                for y in 0..<Y { for x in 0..<19 where abs(x - X + 1) <= Y - y - 1 { s += Int(g[x, y]) } }
                #expect(Int(ii.tilted[Y * 20 + X]) == s, "T(\(X), \(Y))")
            }
        }
    }

    @Test func tiltedRectangleCoversADiamond() {
        // OpenCV's tilted rect (x 5, y 2, w 2, h 2) covers 2·w·h = 8 pixels: a diamond with its top
        // pixel at (x - 1, y) = (4, 2).
        let g = Self.noise(width: 16, height: 12, seed: 11)
        let ii = IntegralImage(g, tilted: true)
        let diamond = [(4, 2), (3, 3), (4, 3), (5, 3), (3, 4), (4, 4), (5, 4), (4, 5)]
        #expect(ii.tiltedSum(x: 5, y: 2, width: 2, height: 2) == diamond.reduce(0) { $0 + Int(g[$1.0, $1.1]) })
    }

    @Test func windowSumsStayExactWhenTheTableWraps() {
        // 4096 x 2100 white pixels: the full sum (2.19e9) overflows Int32, window sums do not.
        let g = GrayImage(width: 4096, height: 2100, value: 255)
        let ii = IntegralImage(g)
        #expect(ii.sum(x: 4000, y: 2000, width: 90, height: 90) == 90 * 90 * 255)
        #expect(ii.sum(x: 0, y: 0, width: 4096, height: 2000) == 4096 * 2000 * 255)
    }
}
