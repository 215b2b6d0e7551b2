import Foundation
import TestTags
import Testing

@testable import FrameAnalysis

/// The key on synthetic green-screen frames whose true mask is known by construction.
@Suite(.tier) struct ChromaKeyTests {
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

    /// A colour at chroma distance `d` from pure green, straight towards grey (a less saturated green).
    static func towardsGrey(_ d: Double) -> (UInt8, UInt8, UInt8) {
        // Pure green is 136 units from grey; mixing with grey (128) moves the chroma linearly.
        let t = d / ChromaKey(r: 0, g: 1, b: 0).distance(r: 128, g: 128, b: 128)
        return (UInt8((128 * t).rounded()), UInt8((255 - 127 * t).rounded()), UInt8((128 * t).rounded()))
    }

    @Test func similaritySmoothnessAndValueRange() {
        let k = ChromaKey(r: 0, g: 1, b: 0)
        #expect(abs(k.distance(r: 128, g: 128, b: 128) - 136.1) < 0.1)
        #expect(abs(k.distance(r: 0, g: 217, b: 0) - 20.3) < 0.1)  // the same green 15 % darker
        #expect(abs(k.distance(r: 0x3c, g: 0x8c, b: 0x3c) - 93.5) < 0.1)  // a medium green sweater
        func a(_ c: (UInt8, UInt8, UInt8)) -> UInt8 { k.alpha(r: c.0, g: c.1, b: c.2) }
        #expect(a((0, 255, 0)) == 0)
        #expect(a(Self.towardsGrey(38)) == 0)  // within similarity 40
        #expect(a(Self.towardsGrey(48)) > 100 && a(Self.towardsGrey(48)) < 155)  // halfway through the soft edge
        #expect(a(Self.towardsGrey(56.5)) == 255)  // similarity + smoothness: opaque
        #expect(a((0, 192, 0)) == 0)  // #00c000: 34 units, keyed by the default key
        #expect(a((0, 217, 0)) == 0)  // 15 % darker screen: keyed
        #expect(a((0, 30, 0)) == 255)  // too dark to be the screen (value-min 0.15)
        var narrow = k
        narrow.similarity = 10; narrow.smoothness = 0
        #expect(narrow.alpha(r: 0, g: 217, b: 0) == 255)  // a hard edge at 10 units: 20 is beyond
        narrow.valueMin = 0.9
        #expect(narrow.alpha(r: 0, g: 255, b: 0) == 0 && narrow.alpha(r: 0, g: 200, b: 0) == 255)
    }

    @Test func aGarmentBeyondTheSoftEdgeStaysOpaqueAndAVariedScreenKeysOut() {
        // A screen of #14be28 whose brightness varies by ±15 % (and 2 steps of noise), measured at its border.
        let screen = KeyComposite.Screen(r: 20, g: 190, b: 40, variation: 0.15, noise: 2)
        let w = 160, h = 120
        // The subject: a garment square whose colour lies N = similarity margin + smoothness units beyond the
        // screen's spread, towards a darker, less saturated green.
        let blank = RGBImage(width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h * 3))
        let plain = KeyComposite(photo: blank, mask: [Bool](repeating: false, count: w * h), screen: screen)
        let spread = try? #require(ScreenSpread.measure(rgb: Self.rgb(plain.rgba)))
        guard let spread else { return }
        #expect(spread.radius > 12 && spread.radius < 30)  // ±15 % of a 117-unit chroma, and noise
        let key = spread.key()
        let n = key.similarity + key.smoothness - spread.radius
        // Darker and less saturated: mix the screen colour with dark grey until the distance from the screen's
        // centre is radius + N.
        var garment: (UInt8, UInt8, UInt8) = (20, 190, 40)
        for t in stride(from: 0.0, through: 1, by: 0.005) {
            let c = (UInt8(20 * (1 - t) + 70 * t), UInt8(190 * (1 - t) + 70 * t), UInt8(40 * (1 - t) + 70 * t))
            garment = c
            let cc = ChromaKey.chroma(Double(c.0), Double(c.1), Double(c.2))
            // + 3: the table's 6-bit cells move a colour by up to 3 units.
            if ((cc.cb - spread.cb) * (cc.cb - spread.cb) + (cc.cr - spread.cr) * (cc.cr - spread.cr)).squareRoot() >= spread.radius + n + 3 {
                break
            }
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        var mask = [Bool](repeating: false, count: w * h)
        for y in 40..<80 { for x in 50..<110 { mask[y * w + x] = true; (pixels[(y * w + x) * 3], pixels[(y * w + x) * 3 + 1], pixels[(y * w + x) * 3 + 2]) = garment } }
        let comp = KeyComposite(photo: RGBImage(width: w, height: h, pixels: pixels), mask: mask, screen: screen)
        var px = comp.rgba
        var span = px.mutableSpan
        _ = key.apply(&span, width: w, height: h, stride: w * 4, order: .rgba, mode: .alpha)
        let alpha = KeyComposite.alphaPlane(px)
        let garmentAlpha = mask.indices.filter { mask[$0] }.map { alpha[$0] }
        #expect(garmentAlpha.filter { $0 >= 253 }.count * 100 >= garmentAlpha.count * 99)  // >= 99 % opaque
        let screenAlpha = mask.indices.filter { !mask[$0] }.map { alpha[$0] }
        #expect(screenAlpha.allSatisfy { $0 == 0 })  // every screen pixel keyed out
        print("varied screen: spread \(spread.radius) units, similarity \(key.similarity), garment at N = \(n) beyond")
    }

    static func rgb(_ rgba: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rgba.count / 4 * 3)
        for i in stride(from: 0, to: rgba.count, by: 4) { out.append(rgba[i]); out.append(rgba[i + 1]); out.append(rgba[i + 2]) }
        return out
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

    @Test func nearColoursAreMeasuredInChromaUnits() {
        // A teal shirt (55 units from the key, beyond the soft edge) is kept but flagged as close.
        var teal = Self.scene(shirt: (30, 170, 140)).px
        var span = teal.mutableSpan
        let r = Self.key().apply(&span, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha)
        #expect(r.nearKey > 0.05)
        let d = Self.key().distance(r: 30, g: 170, b: 140)
        #expect(abs((r.closestDistance ?? 0) - d) < 4)
        var plain = Self.scene().px
        var s2 = plain.mutableSpan
        #expect(Self.key().apply(&s2, width: 200, height: 150, stride: 800, order: .rgba, mode: .alpha).nearKey < 0.01)
    }

    /// Real people (labelme's VOC photos, hand-drawn polygons) on a green screen: hard edges on pure #00ff00, soft
    /// edges (sigma 1 px) on pure #00ff00, and hard edges on a ±15 % screen of #14be28; keyed with the defaults
    /// (key #00ff00) and with the key measured from the border (pick=auto).
    @Test(.tags(.evaluation), arguments: ["2011_000003", "2011_000006"]) func realCompositesKeyAtTheTrueMatte(photo: String) throws {
        let image = try TestImages.rgb("keying/\(photo)")
        let json = try #require(FileManager.default.contents(atPath: TestImages.directory.appendingPathComponent("keying/\(photo).json").path))
        let mask = try LabelmePolygons(json: json).mask(label: "person")
        let cases: [(String, KeyComposite)] = [
            ("hard", KeyComposite(photo: image, mask: mask, screen: .pureGreen)),
            ("soft", KeyComposite(photo: image, mask: mask, screen: .pureGreen, softEdge: 1)),
            ("varied", KeyComposite(photo: image, mask: mask, screen: .init(r: 20, g: 190, b: 40, variation: 0.15, noise: 2))),
        ]
        for (name, comp) in cases {
            func iou(_ key: ChromaKey) -> Double {
                var px = comp.rgba
                var span = px.mutableSpan
                _ = key.apply(&span, width: comp.width, height: comp.height, stride: comp.width * 4, order: .rgba, mode: .alpha)
                return comp.iou(alpha: KeyComposite.alphaPlane(px))
            }
            let frame = RGBImage(width: comp.width, height: comp.height, pixels: Self.rgb(comp.rgba))
            let spread = try #require(ScreenSpread.fromBorder(frame), "\(photo) \(name)")
            let auto = iou(spread.key())
            print("\(photo) \(name): pick=auto IoU \(auto) (spread \(spread.radius) units)")
            #expect(auto >= 0.99, "\(photo) \(name)")
            if name != "varied" {
                let plain = iou(ChromaKey(r: 0, g: 1, b: 0))
                print("\(photo) \(name): default IoU \(plain)")
                #expect(plain >= 0.99, "\(photo) \(name)")
            }
        }
    }

    /// The green sweater of 2011_000006 (real fabric, 71 to 130 units from #00ff00) stays opaque.
    @Test func theGreenSweaterStaysOpaque() throws {
        let image = try TestImages.rgb("keying/2011_000006")
        let json = try #require(FileManager.default.contents(atPath: TestImages.directory.appendingPathComponent("keying/2011_000006.json").path))
        let mask = try LabelmePolygons(json: json).mask(label: "person")
        let comp = KeyComposite(photo: image, mask: mask, screen: .pureGreen)
        // The sweater: subject pixels where green leads both other channels by 20.
        let sweater = mask.indices.filter { i in
            let p = image.rgb(x: i % image.width, y: i / image.width)
            return mask[i] && Int(p.g) > Int(p.r) + 20 && Int(p.g) > Int(p.b) + 20
        }
        #expect(sweater.count > 2000)
        for key in [ChromaKey(r: 0, g: 1, b: 0), try #require(ScreenSpread.fromBorder(RGBImage(width: comp.width, height: comp.height, pixels: Self.rgb(comp.rgba)))).key()] {
            var px = comp.rgba
            var span = px.mutableSpan
            let r = key.apply(&span, width: comp.width, height: comp.height, stride: comp.width * 4, order: .rgba, mode: .alpha)
            let opaque = sweater.filter { px[$0 * 4 + 3] >= 253 }.count
            // Spill is removed along the outline only: the sweater keeps its green (it turned grey when every kept
            // pixel had green capped at max(red, blue)).
            let unchanged = sweater.filter { i in (0..<3).allSatisfy { px[i * 4 + $0] == comp.rgba[i * 4 + $0] } }.count
            print(
                "sweater: \(opaque) of \(sweater.count) opaque, \(unchanged) colours unchanged; nearest subject colour \(r.closestDistance ?? -1) units, key reaches \(key.similarity + key.smoothness)"
            )
            #expect(opaque * 100 >= sweater.count * 99)
            #expect(unchanged * 100 >= sweater.count * 95)
        }
    }
}
