/// A green-screen (chroma) key in HSV, as the green-screen app did it: a key hue with a tolerance,
/// a minimum saturation and a value range (the app's two-handle slider), a soft edge, spill
/// suppression and an optional matte clean-up.
///
/// Per pixel (r, g, b in 0...1): `v = max`, `s = (max - min) / max`, hue `h` in degrees, and
/// `d = |h - keyHue|` on the circle. The pixel is background when `s >= saturationMin`,
/// `valueMin <= v <= valueMax` and `d <= hueTolerance`; alpha then rises linearly from 0 at
/// `d = hueTolerance` to 255 at `d = hueTolerance + feather` (and likewise over the last 0.05 of the
/// saturation and value limits), so edges are soft. Spill suppression on kept pixels caps the key's
/// dominant channel at the larger of the other two, scaled by `spill` (1: full suppression) — the
/// classic green-rim removal, applied where the pixel leans towards the key colour.
public struct ChromaKey: Sendable, Equatable {
    /// Byte order of the 4-byte pixels.
    public enum Order: Sendable {
        case rgba, bgra, argb, abgr
        /// Byte offsets of r, g, b, a within a pixel.
        public var offsets: (r: Int, g: Int, b: Int, a: Int) {
            switch self {
            case .rgba: (0, 1, 2, 3);
            case .bgra: (2, 1, 0, 3);
            case .argb: (1, 2, 3, 0);
            case .abgr: (3, 2, 1, 0)
            }
        }
    }
    /// What to write: the matte into alpha (colour kept, spill removed), or the matte itself as grey.
    public enum Mode: String, Sendable { case alpha, matte }

    /// Key hue in degrees (0...360).
    public var keyHue: Double
    /// The key colour (r, g, b in 0...1), for spill suppression and messages.
    public var key: (r: Double, g: Double, b: Double)
    /// Hue distance (degrees) still counted as key.
    public var hueTolerance: Double = 30
    /// Width (degrees) of the soft edge beyond the tolerance.
    public var feather: Double = 12
    /// Minimum saturation (0...1) for a pixel to be key.
    public var saturationMin: Double = 0.25
    /// Value range (0...1) for a pixel to be key.
    public var valueMin: Double = 0.15
    /// Upper end of the value range.
    public var valueMax: Double = 1
    /// Spill suppression strength (0: off, 1: full).
    public var spill: Double = 1
    /// Remove isolated matte specks with a 3x3 majority filter.
    public var clean: Bool = false

    /// A key for the colour (r, g, b in 0...1).
    public init(r: Double, g: Double, b: Double) {
        key = (r, g, b)
        keyHue = ChromaKey.hsv(r, g, b).h
    }

    /// Equal when every parameter is.
    public static func == (a: ChromaKey, b: ChromaKey) -> Bool {
        a.keyHue == b.keyHue && a.key == b.key && a.hueTolerance == b.hueTolerance && a.feather == b.feather
            && a.saturationMin == b.saturationMin && a.valueMin == b.valueMin && a.valueMax == b.valueMax && a.spill == b.spill
            && a.clean == b.clean
    }

    /// Hue (degrees), saturation and value of an RGB colour (0...1).
    public static func hsv(_ r: Double, _ g: Double, _ b: Double) -> (h: Double, s: Double, v: Double) {
        let mx = max(r, g, b), mn = min(r, g, b), c = mx - mn
        guard c > 0 else { return (0, 0, mx) }
        var h: Double
        if mx == r { h = (g - b) / c } else if mx == g { h = (b - r) / c + 2 } else { h = (r - g) / c + 4 }
        h *= 60
        if h < 0 { h += 360 }
        return (h, c / mx, mx)
    }

    /// The matte (0: key/background ... 255: keep) for one pixel (bytes).
    @inlinable public func alpha(r: UInt8, g: UInt8, b: UInt8) -> UInt8 {
        let (h, s, v) = ChromaKey.hsv(Double(r) / 255, Double(g) / 255, Double(b) / 255)
        var d = abs(h - keyHue)
        if d > 180 { d = 360 - d }
        // Each condition contributes a "how far outside the key" in 0...1; the pixel keeps the largest.
        let hueOut = feather > 0 ? (d - hueTolerance) / feather : (d > hueTolerance ? 1 : 0)
        let satOut = (saturationMin - s) / 0.05
        let lowOut = (valueMin - v) / 0.05, highOut = (v - valueMax) / 0.05
        let out = max(0, min(1, max(hueOut, satOut, lowOut, highOut)))
        return UInt8((out * 255).rounded())
    }

    /// What `apply` measured.
    public struct Result: Sendable, Equatable {
        /// Share of pixels keyed out (alpha < 128).
        public var keyed: Double
        /// Share of kept pixels whose hue lies within `hueTolerance + feather + 15` degrees of the key
        /// with enough saturation: colours the key is too close to.
        public var nearKey: Double
        /// Smallest hue distance (degrees) among those near-key pixels (nil when there are none).
        public var closestHue: Double?
    }

    /// Per-colour answers for 6-bit-per-channel colours (64^3 entries): the matte, and for kept colours
    /// their hue distance to the key in degrees when they are saturated and bright enough to be
    /// confused with it (255 otherwise). Built once per parameter set; `apply` then costs one lookup per
    /// pixel instead of an HSV conversion.
    public struct Table: Sendable {
        /// The matte per colour.
        public let alpha: [UInt8]
        /// Hue distance of confusable kept colours (255: not confusable).
        public let near: [UInt8]
        /// Index of an 8-bit colour.
        @inlinable public static func index(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
            Int(r >> 2) << 12 | Int(g >> 2) << 6 | Int(b >> 2)
        }
    }

    /// Builds the lookup table for these parameters (colours sampled at the centre of each 6-bit cell).
    public func table() -> Table {
        var alpha = [UInt8](repeating: 0, count: 1 << 18), near = [UInt8](repeating: 255, count: 1 << 18)
        let reach = hueTolerance + feather + 15
        for ri in 0..<64 {
            for gi in 0..<64 {
                for bi in 0..<64 {
                    let r = UInt8(ri << 2 | 2), g = UInt8(gi << 2 | 2), b = UInt8(bi << 2 | 2)
                    let i = ri << 12 | gi << 6 | bi
                    let a = self.alpha(r: r, g: g, b: b)
                    alpha[i] = a
                    if a >= 128 {
                        let (h, s, v) = ChromaKey.hsv(Double(r) / 255, Double(g) / 255, Double(b) / 255)
                        var d = abs(h - keyHue)
                        if d > 180 { d = 360 - d }
                        if s >= saturationMin && v >= valueMin && d <= reach { near[i] = UInt8(min(254, d.rounded())) }
                    }
                }
            }
        }
        return Table(alpha: alpha, near: near)
    }

    /// Keys a 4-byte-per-pixel image in place (building the table first; pass one to reuse it).
    public func apply(_ px: inout MutableSpan<UInt8>, width: Int, height: Int, stride: Int, order: Order, mode: Mode, table: Table? = nil)
        -> Result
    {
        let t = table ?? self.table()
        let o = order.offsets
        let dominant = key.g >= key.r && key.g >= key.b ? 1 : (key.b >= key.r ? 2 : 0)
        // Spill in fixed point: channel -= (channel - cap) * spill.
        let spillQ = Int((spill * 256).rounded())
        var keyed = 0, near = 0
        var closest = 255
        var matte = clean ? [UInt8](repeating: 0, count: width * height) : []
        t.alpha.withUnsafeBufferPointer { alphaT in
            t.near.withUnsafeBufferPointer { nearT in
                for y in 0..<height {
                    var i = y * stride
                    for x in 0..<width {
                        var r = px[i + o.r], g = px[i + o.g], b = px[i + o.b]
                        let idx = Table.index(r, g, b)
                        let a = alphaT[idx]
                        if a < 128 {
                            keyed += 1
                        } else {
                            let d = Int(nearT[idx])
                            if d != 255 { near += 1; closest = min(closest, d) }
                        }
                        if spillQ > 0 && a > 0 {
                            // Cap the key's channel at the larger of the other two (where it exceeds them).
                            switch dominant {
                            case 1: let cap = max(r, b); if g > cap { g = UInt8(Int(g) - (Int(g - cap) * spillQ) >> 8) }
                            case 2: let cap = max(r, g); if b > cap { b = UInt8(Int(b) - (Int(b - cap) * spillQ) >> 8) }
                            default: let cap = max(g, b); if r > cap { r = UInt8(Int(r) - (Int(r - cap) * spillQ) >> 8) }
                            }
                        }
                        if clean { matte[y * width + x] = a }
                        switch mode {
                        case .alpha:
                            px[i + o.r] = r; px[i + o.g] = g; px[i + o.b] = b; px[i + o.a] = a
                        case .matte:
                            px[i + o.r] = a; px[i + o.g] = a; px[i + o.b] = a; px[i + o.a] = 255
                        }
                        i += 4
                    }
                }
            }
        }
        if clean { cleanMatte(&px, matte: matte, width: width, height: height, stride: stride, order: order, mode: mode) }
        let total = Double(max(1, width * height))
        return Result(keyed: Double(keyed) / total, nearKey: Double(near) / total, closestHue: near > 0 ? Double(closest) : nil)
    }

    /// 3x3 majority on the hard matte: a pixel whose 8 neighbours mostly disagree takes their side.
    func cleanMatte(_ px: inout MutableSpan<UInt8>, matte: [UInt8], width: Int, height: Int, stride: Int, order: Order, mode: Mode) {
        let o = order.offsets
        guard width > 2, height > 2 else { return }
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let me = matte[y * width + x] >= 128
                var same = 0
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        if (matte[(y + dy) * width + x + dx] >= 128) == me { same += 1 }
                    }
                }
                guard same <= 2 else { continue }
                let flipped: UInt8 = me ? 0 : 255
                let i = y * stride + x * 4
                if mode == .alpha { px[i + o.a] = flipped } else { px[i + o.r] = flipped; px[i + o.g] = flipped; px[i + o.b] = flipped }
            }
        }
    }

    /// The average colour (0...1) of a (2*radius+1)^2 patch around a normalised point of an RGB image.
    public static func pick(_ image: RGBImage, x: Double, y: Double, radius: Int = 2) -> (r: Double, g: Double, b: Double) {
        let cx = min(image.width - 1, max(0, Int(x * Double(image.width)))),
            cy = min(image.height - 1, max(0, Int(y * Double(image.height))))
        var sum = (0.0, 0.0, 0.0), n = 0.0
        for yy in max(0, cy - radius)...min(image.height - 1, cy + radius) {
            for xx in max(0, cx - radius)...min(image.width - 1, cx + radius) {
                let p = image.rgb(x: xx, y: yy)
                sum.0 += Double(p.r); sum.1 += Double(p.g); sum.2 += Double(p.b); n += 1
            }
        }
        return (sum.0 / n / 255, sum.1 / n / 255, sum.2 / n / 255)
    }

    /// The dominant saturated colour of the image border (the backdrop showing around the subject):
    /// the mean colour of the most populated 10-degree hue bin among border pixels with s >= 0.25.
    public static func dominantBorderColor(_ image: RGBImage, band: Int = 4) -> (r: Double, g: Double, b: Double)? {
        var bins = [(n: Int, r: Double, g: Double, b: Double)](repeating: (0, 0, 0, 0), count: 36)
        func visit(_ x: Int, _ y: Int) {
            let p = image.rgb(x: x, y: y)
            let (r, g, b) = (Double(p.r) / 255, Double(p.g) / 255, Double(p.b) / 255)
            let (h, s, v) = hsv(r, g, b)
            guard s >= 0.25, v >= 0.15 else { return }
            let i = min(35, Int(h / 10))
            bins[i].n += 1; bins[i].r += r; bins[i].g += g; bins[i].b += b
        }
        for y in 0..<image.height {
            for x in 0..<image.width where y < band || y >= image.height - band || x < band || x >= image.width - band { visit(x, y) }
        }
        guard let best = bins.max(by: { $0.n < $1.n }), best.n > 0 else { return nil }
        return (best.r / Double(best.n), best.g / Double(best.n), best.b / Double(best.n))
    }
}
