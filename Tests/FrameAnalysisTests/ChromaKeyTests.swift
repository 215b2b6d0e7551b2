import Testing

@testable import FrameAnalysis

/// The key on synthetic green-screen frames whose true mask is known by construction.
@Suite struct ChromaKeyTests {
    static let green: (UInt8, UInt8, UInt8) = (20, 190, 40)

    /// A "person" on green: skin face (ellipse), dark hair, blue shirt; a 1-px rim around the subject is
    /// green-tinted (spill). Returns RGBA bytes and the true mask (subject incl. rim).
    static func scene(width w: Int = 200, height h: Int = 150, shirt: (UInt8, UInt8, UInt8) = (40, 60, 170)) -> (
        px: [UInt8], mask: [Bool], rim: [Int]
    ) {
        var px = [UInt8](repeating: 255, count: w * h * 4)
        var mask = [Bool](repeating: false, count: w * h)
        func inside(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8)? {
            let fx = (Double(x) - 100) / 28, fy = (Double(y) - 55) / 34
            if fx * fx + fy * fy <= 1 { return y < 35 ? (60, 45, 35) : (224, 172, 140) }  // hair on top, skin below
            if y >= 88 && y < 150 && x >= 60 && x < 140 { return shirt }  // shoulders / shirt
            return nil
        }
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                if let c = inside(x, y) {
                    (px[i], px[i + 1], px[i + 2]) = c; mask[y * w + x] = true
                } else {
                    (px[i], px[i + 1], px[i + 2]) = green
                }
            }
        }
        // Spill: subject pixels next to the background take a green cast (+30 on green).
        var rim: [Int] = []
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where mask[y * w + x] {
                let edge = !mask[y * w + x - 1] || !mask[y * w + x + 1] || !mask[(y - 1) * w + x] || !mask[(y + 1) * w + x]
                guard edge else { continue }
                let i = (y * w + x) * 4
                px[i + 1] = UInt8(min(255, Int(px[i + 1]) + 30))
                rim.append(y * w + x)
            }
        }
        return (px, mask, rim)
    }

    static func iou(_ a: [Bool], _ b: [Bool]) -> Double {
        var inter = 0, union = 0
        for i in a.indices { if a[i] && b[i] { inter += 1 }; if a[i] || b[i] { union += 1 } }
        return union == 0 ? 1 : Double(inter) / Double(union)
    }

    static func key() -> ChromaKey {
        ChromaKey(r: Double(green.0) / 255, g: Double(green.1) / 255, b: Double(green.2) / 255)
    }

    @Test func matteMatchesTheTrueMask() {
        var (px, mask, _) = Self.scene()
        var span = px.mutableSpan
        let r = Self.key().apply(&span, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha)
        let matte = (0..<(200 * 150)).map { px[$0 * 4 + 3] >= 128 }
        #expect(Self.iou(matte, mask) >= 0.99)
        #expect(abs(r.keyed - Double(mask.filter { !$0 }.count) / 30000) < 0.01)
    }

    @Test func spillSuppressionRemovesTheGreenRim() {
        let (before, _, rim) = Self.scene()
        var px = before
        var span = px.mutableSpan
        _ = Self.key().apply(&span, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha)
        // Green cast: how far g exceeds max(r, b), averaged over the rim.
        func cast(_ p: [UInt8]) -> Double {
            Double(rim.map { i in max(0, Int(p[i * 4 + 1]) - max(Int(p[i * 4]), Int(p[i * 4 + 2]))) }.reduce(0, +)) / Double(rim.count)
        }
        #expect(cast(before) > 1.5)  // the hair rim (dark, where green wins) carries the cast
        #expect(cast(px) < cast(before) * 0.2)
        // Spill off: the cast stays.
        var off = before
        var k = Self.key(); k.spill = 0
        var s2 = off.mutableSpan
        _ = k.apply(&s2, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha)
        #expect(abs(cast(off) - cast(before)) < 0.5)
    }

    @Test func toleranceFeatherAndValueRange() {
        let k = ChromaKey(r: 0, g: 1, b: 0)  // hue 120
        #expect(k.keyHue == 120)
        func a(_ hue: Double, v: Double = 0.8, s: Double = 0.9) -> UInt8 {
            // HSV -> RGB for the probe colour.
            let c = v * s, hp = hue / 60, xx = c * (1 - abs(hp.truncatingRemainder(dividingBy: 2) - 1)), m = v - c
            let (r, g, b): (Double, Double, Double) =
                hp < 1 ? (c, xx, 0) : hp < 2 ? (xx, c, 0) : hp < 3 ? (0, c, xx) : hp < 4 ? (0, xx, c) : hp < 5 ? (xx, 0, c) : (c, 0, xx)
            return k.alpha(r: UInt8(((r + m) * 255).rounded()), g: UInt8(((g + m) * 255).rounded()), b: UInt8(((b + m) * 255).rounded()))
        }
        #expect(a(120) == 0)
        #expect(a(145) == 0)  // within 30 degrees
        #expect(a(170) == 255)  // beyond 30 + 12
        #expect(a(156) > 0 && a(156) < 255)  // in the soft edge
        #expect(a(120, v: 0.08) == 255)  // too dark to be the screen (value-min 0.15)
        #expect(a(120, s: 0.1) == 255)  // grey-ish green is kept
    }

    @Test func lookupTableAgreesWithTheDirectMatte() {
        let k = Self.key()
        let t = k.table()
        var worst = 0
        for (r, g, b) in [(20, 190, 40), (224, 172, 140), (60, 140, 60), (90, 160, 120), (30, 120, 30), (200, 200, 200)]
            as [(UInt8, UInt8, UInt8)]
        {
            worst = max(worst, abs(Int(t.alpha[ChromaKey.Table.index(r, g, b)]) - Int(k.alpha(r: r, g: g, b: b))))
        }
        #expect(worst <= 40)  // 6-bit cells: only colours on the soft edge differ, and by a fraction of it
    }

    @Test func picksAndWarnings() {
        let (px, _, _) = Self.scene()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(200 * 150 * 3)
        for i in 0..<(200 * 150) { bytes.append(px[i * 4]); bytes.append(px[i * 4 + 1]); bytes.append(px[i * 4 + 2]) }
        let rgb = RGBImage(width: 200, height: 150, pixels: bytes)
        let p = ChromaKey.pick(rgb, x: 0.02, y: 0.5)
        #expect(abs(p.g - 190.0 / 255) < 0.01 && abs(p.r - 20.0 / 255) < 0.01)
        let auto = try? #require(ChromaKey.dominantBorderColor(rgb))
        #expect(abs((auto?.g ?? 0) - 190.0 / 255) < 0.02)
        // A teal shirt (hue ~165, 45 degrees from the key) is kept but flagged as close to the key.
        var teal = Self.scene(shirt: (30, 170, 140)).px
        var span = teal.mutableSpan
        let r = Self.key().apply(&span, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha)
        #expect(r.nearKey > 0.05)
        #expect((r.closestHue ?? 0) > 40 && (r.closestHue ?? 0) < 50)
        var plain = Self.scene().px
        var s2 = plain.mutableSpan
        #expect(Self.key().apply(&s2, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha).nearKey < 0.01)
    }
}
