import Testing

@testable import FrameAnalysis

/// Measuring a green screen's centre and spread from the frame border or a patch.
@Suite struct ScreenSpreadTests {
    /// An image of `w` x `h` filled by `color(x, y)`.
    static func image(_ w: Int, _ h: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)) -> RGBImage {
        var px: [UInt8] = []
        for y in 0..<h { for x in 0..<w { let c = color(x, y); px += [c.0, c.1, c.2] } }
        return RGBImage(width: w, height: h, pixels: px)
    }

    @Test func aFlatScreenHasNoSpreadAndItsOwnCentre() throws {
        let img = Self.image(100, 80) { x, y in x > 30 && x < 70 && y > 20 ? (200, 160, 130) : (0, 255, 0) }
        let s = try #require(ScreenSpread.fromBorder(img))
        let c = ChromaKey.chroma(0, 255, 0)
        #expect(abs(s.cb - c.cb) < 0.01 && abs(s.cr - c.cr) < 0.01)
        #expect(s.radius < 0.01 && s.valueLow == 1)
        #expect(abs(s.similarity - 6) < 1e-6 && abs(s.valueMin - 0.6) < 1e-9)
        #expect(s.color == RGBTriple(r: 0, g: 1, b: 0))
        // The subject touches the bottom border: its pixels are not the screen.
        #expect(s.samples < s.looked)
    }

    @Test func aScreenWithFallingLightSpreadsByItsBrightness() throws {
        // #14be28 from 85 % to 115 % brightness left to right: the chroma scales with it, ±17.5 units.
        let img = Self.image(200, 100) { x, _ in
            let f = 0.85 + 0.3 * Double(x) / 199
            return (UInt8((20 * f).rounded()), UInt8((190 * f).rounded()), UInt8((40 * f).rounded()))
        }
        let s = try #require(ScreenSpread.fromBorder(img))
        let mid = ChromaKey.chroma(20, 190, 40)
        let magnitude = (mid.cb * mid.cb + mid.cr * mid.cr).squareRoot()
        #expect(abs(magnitude - 86.7) < 0.5)
        #expect(abs(s.radius - 0.15 * magnitude) < 2.5)
        #expect(abs(s.valueLow - 190 * 0.85 / 255) < 0.02)
    }

    @Test func aPatchMeasuresAroundThePoint() throws {
        let img = Self.image(100, 100) { x, _ in x < 50 ? (30, 60, 200) : (0, 200, 0) }
        let left = try #require(ScreenSpread.fromPoint(img, x: 0.2, y: 0.5))
        let right = try #require(ScreenSpread.fromPoint(img, x: 0.8, y: 0.5))
        #expect(left.color.b > 0.7 && right.color.g > 0.7)
        #expect(left.samples == 49 && left.radius < 0.01)  // 7 x 7: 3 % of 100 either side
    }

    @Test func greyOrScatteredBordersAreNotAScreen() {
        #expect(ScreenSpread.fromBorder(Self.image(60, 40) { _, _ in (128, 128, 128) }) == nil)
        // Four colours in equal shares on the border: none holds a fifth of... each holds a quarter, but the
        // fullest is found; a border of 8 different colours has no screen.
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255), (255, 128, 0), (128, 0, 255)]
        #expect(ScreenSpread.fromBorder(Self.image(80, 80) { x, y in colours[(x / 10 + y / 10) % 8] }) == nil)
        #expect(ScreenSpread.measure(rgb: []) == nil)
    }
}
