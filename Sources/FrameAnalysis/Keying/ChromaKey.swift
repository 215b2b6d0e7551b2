/// A green-screen (chroma) key that measures how far a colour is from the screen in the chroma plane,
/// as broadcast keyers do (OBS's similarity/smoothness, GStreamer `alpha`'s angle and noise level),
/// not only its hue: a green sweater is as green in hue as the screen but far from it in chroma.
///
/// **Units.** Distances are in *chroma units*: Euclidean distance in the Cb/Cr plane of full-range
/// BT.601 YCbCr, in 8-bit steps (`Cb = -0.1687 R - 0.3313 G + 0.5 B`, `Cr = 0.5 R - 0.4187 G -
/// 0.0813 B`, r/g/b in 0...255). Pure green `#00ff00` lies 136 units from grey; the same green 15 %
/// darker lies 20 units from it; a medium green sweater (`#3c8c3c`) lies 93 units from it.
///
/// **The matte.** For a pixel at chroma distance `d` from the key: background when `d <= similarity`,
/// opaque when `d >= similarity + smoothness`, linear in between (the soft edge). A pixel outside the
/// value range (`valueMin...valueMax`, V = max(r, g, b) / 255, the app's two-handle slider) is kept,
/// with a 0.05 soft edge. So a colour at least `similarity + smoothness` units from the key, or
/// darker than `valueMin - 0.05`, is fully opaque.
///
/// **Edges.** A camera (or a soft mask) mixes subject and screen at the subject's outline: such a
/// pixel may lie further than `similarity + smoothness` from the key and would stay opaque with a
/// green fringe. `apply` therefore unmixes the pixels next to the keyed area: with B the chroma of the
/// keyed pixel nearest the key and F the chroma furthest from B among the kept pixels of the 5x5 window, a pixel
/// p lying on the segment B-F (residual at most 20 % of |p - B|, squared) gets
/// `alpha = (p - B)·(F - B) / |F - B|^2` when that is at most 0.75 and lower than the table's answer.
/// A pixel off that segment (a subject colour of its own), or one that unmixes as mostly subject (a
/// desaturated green garment next to the screen also lies on the line from the screen to grey), keeps
/// its alpha, and so does a pixel most of whose kept neighbours share its colour (within 20 % of its
/// distance from B, at least 8 units: a surface, not a transition). Hard edges stay hard.
///
/// **Spill.** Along the outline (translucent pixels, and kept pixels touching a keyed one) the key's
/// dominant channel is capped at the larger of the other two, scaled by `spill` (1: full suppression):
/// the classic green-rim removal. Away from the outline the subject keeps its colour, so a green
/// garment stays green.
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

    /// The key colour (r, g, b in 0...1), for spill suppression and messages.
    public var key: (r: Double, g: Double, b: Double)
    /// The key's chroma (Cb, Cr), chroma units.
    public var keyChroma: (cb: Double, cr: Double)
    /// Chroma distance from the key still keyed fully.
    public var similarity: Double = ChromaKey.defaultSimilarity
    /// Width of the soft edge beyond `similarity`, chroma units.
    public var smoothness: Double = ChromaKey.defaultSmoothness
    /// Darkest value (0...1) keyed.
    public var valueMin: Double = 0.15
    /// Brightest value keyed.
    public var valueMax: Double = 1
    /// Spill suppression strength (0: off, 1: full).
    public var spill: Double = 1
    /// Remove isolated matte specks with a 3x3 majority filter.
    public var clean: Bool = false
    /// Unmix the pixels next to the keyed area (see the type's comment).
    public var refineEdges: Bool = true

    /// `similarity` when nothing was measured (chroma units).
    public static let defaultSimilarity = 40.0
    /// `smoothness` by default (chroma units).
    public static let defaultSmoothness = 16.0
    /// Kept colours within this many units beyond `similarity + smoothness` count as near the key.
    public static let nearReach = 32.0

    /// A key for the colour (r, g, b in 0...1).
    public init(r: Double, g: Double, b: Double) {
        key = (r, g, b)
        keyChroma = ChromaKey.chroma(r * 255, g * 255, b * 255)
    }

    /// Equal when every parameter is.
    public static func == (a: ChromaKey, b: ChromaKey) -> Bool {
        a.key == b.key && a.keyChroma == b.keyChroma && a.similarity == b.similarity && a.smoothness == b.smoothness && a.valueMin == b.valueMin
            && a.valueMax == b.valueMax && a.spill == b.spill && a.clean == b.clean && a.refineEdges == b.refineEdges
    }

    /// Cb and Cr (full-range BT.601, centred on 0) of r, g, b in 0...255.
    @inlinable public static func chroma(_ r: Double, _ g: Double, _ b: Double) -> (cb: Double, cr: Double) {
        (-0.168736 * r - 0.331264 * g + 0.5 * b, 0.5 * r - 0.418688 * g - 0.081312 * b)
    }

    /// Chroma distance of a colour (bytes) from the key.
    @inlinable public func distance(r: UInt8, g: UInt8, b: UInt8) -> Double {
        let c = ChromaKey.chroma(Double(r), Double(g), Double(b))
        let dcb = c.cb - keyChroma.cb, dcr = c.cr - keyChroma.cr
        return (dcb * dcb + dcr * dcr).squareRoot()
    }

    /// The matte (0: key/background ... 255: keep) for one pixel (bytes), before edge unmixing.
    @inlinable public func alpha(r: UInt8, g: UInt8, b: UInt8) -> UInt8 {
        let d = distance(r: r, g: g, b: b)
        let v = Double(max(r, g, b)) / 255
        // Each condition contributes a "how far outside the key" in 0...1; the pixel keeps the largest.
        let chromaOut = smoothness > 0 ? (d - similarity) / smoothness : (d > similarity ? 1 : 0)
        let lowOut = (valueMin - v) / 0.05, highOut = (v - valueMax) / 0.05
        let out = max(0, min(1, max(chromaOut, lowOut, highOut)))
        return UInt8((out * 255).rounded())
    }

    /// What `apply` measured.
    public struct Result: Sendable, Equatable {
        /// Share of pixels keyed out (alpha < 128).
        public var keyed: Double
        /// Share of kept pixels whose colour lies within `similarity + smoothness + nearReach` units of
        /// the key: colours the key comes close to.
        public var nearKey: Double
        /// How close those colours come (chroma units): the 5th percentile of their distances, so a few
        /// edge pixels do not speak for a whole garment (nil when there are none).
        public var closestDistance: Double?
    }

    /// Per-colour answers for 6-bit-per-channel colours (64^3 entries): the matte, and for kept colours
    /// their distance to the key in chroma units when within reach (255 otherwise). Built once per
    /// parameter set; `apply` then costs one lookup per pixel.
    public struct Table: Sendable {
        /// The matte per colour.
        public let alpha: [UInt8]
        /// Distance of kept colours near the key (255: not near).
        public let near: [UInt8]
        /// Index of an 8-bit colour.
        @inlinable public static func index(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
            Int(r >> 2) << 12 | Int(g >> 2) << 6 | Int(b >> 2)
        }
    }

    /// Builds the lookup table for these parameters (colours sampled at the centre of each 6-bit cell).
    public func table() -> Table {
        var alpha = [UInt8](repeating: 0, count: 1 << 18), near = [UInt8](repeating: 255, count: 1 << 18)
        let reach = similarity + smoothness + ChromaKey.nearReach
        for ri in 0..<64 {
            for gi in 0..<64 {
                for bi in 0..<64 {
                    let r = UInt8(ri << 2 | 2), g = UInt8(gi << 2 | 2), b = UInt8(bi << 2 | 2)
                    let i = ri << 12 | gi << 6 | bi
                    let a = self.alpha(r: r, g: g, b: b)
                    alpha[i] = a
                    if a >= 128 {
                        let d = distance(r: r, g: g, b: b)
                        if d <= reach { near[i] = UInt8(min(254, d.rounded())) }
                    }
                }
            }
        }
        return Table(alpha: alpha, near: near)
    }

    /// Buffers `apply` reuses from frame to frame (a fresh 2 MB matte per 1080p frame cost more in page faults
    /// than the keying itself). Used by one `apply` at a time: a stage takes it out of its state under its lock
    /// and puts it back after (hence `@unchecked Sendable`: no two threads hold it at once).
    public final class Workspace: @unchecked Sendable {
        var matte: [UInt8] = []
        var rows: [UInt8] = []
        /// An empty workspace.
        public init() {}
    }

    /// Keys a 4-byte-per-pixel image in place (building the table first; pass one to reuse it, and a workspace).
    public func apply(
        _ px: inout MutableSpan<UInt8>, width: Int, height: Int, stride: Int, order: Order, mode: Mode, table: Table? = nil,
        workspace: Workspace? = nil
    ) -> Result {
        let t = table ?? self.table()
        let o = order.offsets
        let n = width * height
        let ws = workspace ?? Workspace()
        if ws.matte.count != n { ws.matte = [UInt8](repeating: 0, count: n) }
        if ws.rows.count != height { ws.rows = [UInt8](repeating: 0, count: height) }
        var matte = ws.matte, rows = ws.rows
        ws.matte = []; ws.rows = []  // uniquely referenced here while in use
        defer { ws.matte = matte; ws.rows = rows }
        var keyed = 0
        var nearHistogram = [Int](repeating: 0, count: 256)
        // In alpha mode the table pass writes alpha at once (the pixel's line is in cache then); the few pixels
        // unmixed or cleaned afterwards are written again, and the last pass touches only kept pixels (spill).
        let writeAlpha = mode == .alpha
        // 1. The table's matte, what it says about near-key colours, and per row whether it holds keyed (bit 0)
        // and kept (bit 1) pixels. (Unsafe pointers: the per-pixel hot loop; every index stays within the frame.)
        px.withUnsafeMutableBufferPointer { p in
            matte.withUnsafeMutableBufferPointer { m in
                nearHistogram.withUnsafeMutableBufferPointer { hist in
                    t.alpha.withUnsafeBufferPointer { alphaT in
                        t.near.withUnsafeBufferPointer { nearT in
                            // A screen is mostly one colour cell: the last cell's answer is kept for the next pixel.
                            var lastIdx = -1, lastA: UInt8 = 0
                            for y in 0..<height {
                                var i = y &* stride
                                let row = y &* width
                                var keyedHere = 0, fullyKeyed = 0
                                for x in 0..<width {
                                    let idx = Table.index(p[i &+ o.r], p[i &+ o.g], p[i &+ o.b])
                                    if idx != lastIdx { lastIdx = idx; lastA = alphaT[idx] }
                                    let a = lastA
                                    m[row &+ x] = a
                                    if writeAlpha { p[i &+ o.a] = a }
                                    if a < 128 {
                                        keyedHere &+= 1
                                        if a == 0 { fullyKeyed &+= 1 }
                                    } else {
                                        hist[Int(nearT[idx])] &+= 1
                                    }
                                    i &+= 4
                                }
                                keyed += keyedHere
                                rows[y] = (fullyKeyed > 0 ? 1 : 0) | (fullyKeyed < width ? 2 : 0)
                            }
                        }
                    }
                }
            }
        }
        // Pixels on either side of a step between a fully keyed and a kept 4-neighbour: where the edges to unmix
        // are. Only rows holding both, or differing from the row above, can have steps.
        var steps: [Int32] = []
        if refineEdges || spill > 0 {
            matte.withUnsafeBufferPointer { m in
                for y in 0..<height {
                    let row = y * width
                    if rows[y] == 3 {
                        for x in 1..<max(1, width) where (m[row + x] == 0) != (m[row + x - 1] == 0) {
                            steps.append(Int32(row + x)); steps.append(Int32(row + x - 1))
                        }
                    }
                    if y > 0 && (rows[y] == 3 || rows[y - 1] == 3 || rows[y] != rows[y - 1]) {
                        for x in 0..<width where (m[row + x] == 0) != (m[row - width + x] == 0) {
                            steps.append(Int32(row + x)); steps.append(Int32(row - width + x))
                        }
                    }
                }
            }
        }
        // 2. Edge pixels unmixed against their neighbours.
        var changed: [(Int, UInt8)] = []
        if refineEdges && !steps.isEmpty {
            changed += unmixEdges(&px, matte: &matte, steps: steps, width: width, height: height, stride: stride, order: order)
        }
        // 3. Optional speck removal on the hard matte.
        if clean { changed += cleanMatte(&matte, width: width, height: height) }
        // 4. Write: the alpha of pixels changed after the table pass, spill suppression on kept pixels (alpha mode);
        // the matte as grey (matte mode).
        let dominant = key.g >= key.r && key.g >= key.b ? 1 : (key.b >= key.r ? 2 : 0)
        let spillQ = Int((spill * 256).rounded())  // channel -= (channel - cap) * spill, fixed point
        px.withUnsafeMutableBufferPointer { p in
            matte.withUnsafeBufferPointer { m in
                if mode == .matte {
                    for y in 0..<height {
                        var i = y &* stride
                        let row = y &* width
                        for x in 0..<width {
                            let a = m[row &+ x]
                            p[i &+ o.r] = a; p[i &+ o.g] = a; p[i &+ o.b] = a; p[i &+ o.a] = 255
                            i &+= 4
                        }
                    }
                    return
                }
                for (k, a) in changed { p[(k / width) * stride + (k % width) * 4 + o.a] = a }
                guard spillQ > 0 else { return }
                // Spill is removed along the outline only: translucent pixels, and kept pixels touching a keyed one
                // (the kept side of a step). Away from it the subject keeps its colour: capping green at
                // max(red, blue) everywhere turned a green sweater grey.
                func suppress(_ k: Int) {
                    let i = (k / width) &* stride &+ (k % width) &* 4
                    var r = p[i &+ o.r], g = p[i &+ o.g], b = p[i &+ o.b]
                    switch dominant {
                    case 1: let cap = max(r, b); if g > cap { g = UInt8(Int(g) - (Int(g - cap) * spillQ) >> 8) }
                    case 2: let cap = max(r, g); if b > cap { b = UInt8(Int(b) - (Int(b - cap) * spillQ) >> 8) }
                    default: let cap = max(g, b); if r > cap { r = UInt8(Int(r) - (Int(r - cap) * spillQ) >> 8) }
                    }
                    p[i &+ o.r] = r; p[i &+ o.g] = g; p[i &+ o.b] = b
                }
                for k in 0..<n where m[k] > 0 && m[k] < 255 { suppress(k) }
                var touching = steps.map { Int($0) }.filter { m[$0] == 255 }
                touching.sort()
                var last = -1
                for k in touching where k != last { suppress(k); last = k }
            }
        }
        let total = Double(max(1, n))
        let near = nearHistogram[0..<255].reduce(0, +)
        var closest: Double?
        if near > 0 {
            // The 5th percentile of the near colours' distances.
            var seen = 0
            for d in 0..<255 {
                seen += nearHistogram[d]
                if seen * 20 >= near { closest = Double(d); break }
            }
        }
        return Result(keyed: Double(keyed) / total, nearKey: Double(near) / total, closestDistance: closest)
    }

    /// Unmixes the kept pixels with a keyed pixel within 2 px (see the type's comment): those are exactly the kept
    /// pixels within 2 px of a step between a keyed and a kept 4-neighbour (`steps`: both pixels of each).
    @discardableResult
    func unmixEdges(
        _ px: inout MutableSpan<UInt8>, matte: inout [UInt8], steps: [Int32], width: Int, height: Int, stride: Int, order: Order
    ) -> [(Int, UInt8)] {
        let r = 2
        let o = order.offsets
        // Candidates, each once: a bit per pixel set on the first visit.
        var seen = [UInt8](repeating: 0, count: (width * height + 7) / 8)
        var candidates: [Int] = []
        for s in steps {
            let sy = Int(s) / width, sx = Int(s) % width
            for yy in max(0, sy - r)...min(height - 1, sy + r) {
                for xx in max(0, sx - r)...min(width - 1, sx + r) {
                    let k = yy * width + xx
                    guard matte[k] > 0, seen[k >> 3] & (1 << (k & 7)) == 0 else { continue }
                    seen[k >> 3] |= 1 << (k & 7)
                    candidates.append(k)
                }
            }
        }
        var refined: [(Int, UInt8)] = []
        for k in candidates {
            let y = k / width, x = k % width
            // B: the keyed pixel of the window nearest the key (the purest screen; a keyed pixel may still hold a
            // little of the subject); F: the kept chroma furthest from B.
            let y0 = max(0, y - r), y1 = min(height - 1, y + r), x0 = max(0, x - r), x1 = min(width - 1, x + r)
            var b = (0.0, 0.0), nearest = Double.infinity
            for yy in y0...y1 {
                for xx in x0...x1 where matte[yy * width + xx] == 0 {
                    let i = yy * stride + xx * 4
                    let c = ChromaKey.chroma(Double(px[i + o.r]), Double(px[i + o.g]), Double(px[i + o.b]))
                    let d = (c.cb - keyChroma.cb) * (c.cb - keyChroma.cb) + (c.cr - keyChroma.cr) * (c.cr - keyChroma.cr)
                    if d < nearest { nearest = d; b = (c.cb, c.cr) }
                }
            }
            guard nearest.isFinite else { continue }
            let pi = y * stride + x * 4
            let p = ChromaKey.chroma(Double(px[pi + o.r]), Double(px[pi + o.g]), Double(px[pi + o.b]))
            let pbDistance = ((p.cb - b.0) * (p.cb - b.0) + (p.cr - b.1) * (p.cr - b.1)).squareRoot()
            let alike = max(8, 0.2 * pbDistance)
            var f = (0.0, 0.0), far = -1.0, kept = 0, similar = 0
            for yy in y0...y1 {
                for xx in x0...x1 where (xx != x || yy != y) && matte[yy * width + xx] > 0 {
                    let i = yy * stride + xx * 4
                    let c = ChromaKey.chroma(Double(px[i + o.r]), Double(px[i + o.g]), Double(px[i + o.b]))
                    let d = (c.cb - b.0) * (c.cb - b.0) + (c.cr - b.1) * (c.cr - b.1)
                    if d > far { far = d; f = (c.cb, c.cr) }
                    kept += 1
                    if ((c.cb - p.cb) * (c.cb - p.cb) + (c.cr - p.cr) * (c.cr - p.cr)).squareRoot() < alike { similar += 1 }
                }
            }
            // Most kept neighbours alike: p is a surface of its own colour (a garment's edge), not a mix.
            guard far >= 1, similar * 2 <= kept else { continue }
            let pb = (p.cb - b.0, p.cr - b.1), fb = (f.0 - b.0, f.1 - b.1)
            let a = max(0, min(1, (pb.0 * fb.0 + pb.1 * fb.1) / far))
            let res = (pb.0 - a * fb.0) * (pb.0 - a * fb.0) + (pb.1 - a * fb.1) * (pb.1 - a * fb.1)
            // A pixel that unmixes as mostly subject (a desaturated green garment next to the screen lies on the
            // line from the screen to grey, too) keeps the table's answer.
            guard res <= 0.2 * (pb.0 * pb.0 + pb.1 * pb.1), a <= 0.75 else { continue }
            let a8 = UInt8((a * 255).rounded())
            if a8 < matte[k] { refined.append((k, a8)) }
        }
        // Applied after the scan, so every pixel was judged against the table's matte.
        for (i, a) in refined { matte[i] = a }
        return refined
    }

    /// 3x3 majority on the hard matte: a pixel whose 8 neighbours mostly disagree takes their side.
    @discardableResult
    func cleanMatte(_ matte: inout [UInt8], width: Int, height: Int) -> [(Int, UInt8)] {
        guard width > 2, height > 2 else { return [] }
        var flips: [(Int, UInt8)] = []
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let me = matte[y * width + x] >= 128
                var same = 0
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        if (matte[(y + dy) * width + x + dx] >= 128) == me { same += 1 }
                    }
                }
                if same <= 2 { flips.append((y * width + x, me ? 0 : 255)) }
            }
        }
        for (i, a) in flips { matte[i] = a }
        return flips
    }
}
