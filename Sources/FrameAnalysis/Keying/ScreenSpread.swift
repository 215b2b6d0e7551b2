/// What a green screen looks like in a frame: its mean colour, its centre in the chroma plane and how
/// far its own pixels spread around that centre (lighting falls off, fabric creases, sensor noise).
/// `pick=auto` measures it over the frame border, `pick-x`/`pick-y` over a patch; the key's threshold
/// is then set just outside the spread (`similarity(margin:)`), so colours clearly off the screen (a
/// darker, less saturated green) stay opaque. Distances are chroma units (see `ChromaKey`).
public struct ScreenSpread: Sendable, Equatable {
    /// Mean colour of the screen's samples (r, g, b in 0...1).
    public var color: RGBTriple
    /// Centre of the screen's samples in the chroma plane.
    public var cb: Double, cr: Double
    /// The 99th percentile of the samples' distances from the centre (chroma units).
    public var radius: Double
    /// The 1st percentile of the samples' value (max(r, g, b) / 255).
    public var valueLow: Double
    /// Samples that belong to the screen, and samples looked at.
    public var samples: Int, looked: Int

    /// Samples further than this from the cluster's centre are not the screen (the subject touching the
    /// border, a prop): chroma units.
    public static let clusterReach = 48.0

    /// The key's similarity for this screen: the spread plus a margin (10 % of it and 6 units, for the
    /// noise of frames the sample did not see).
    public var similarity: Double { radius * 1.1 + 6 }
    /// The key's value-min for this screen: 60 % of its darkest part, so shadows of the screen itself
    /// stay keyed while colours much darker than the screen are kept.
    public var valueMin: Double { valueLow * 0.6 }

    /// Measures the dominant chroma cluster among the samples (bytes, r g b interleaved): the fullest
    /// 16-unit chroma cell, refined by mean shift (radius 24), then every sample within
    /// `clusterReach`. Nil when there are no samples, when the cluster is not a colour (its centre
    /// within 16 units of grey) or when it holds less than a fifth of the samples.
    public static func measure(rgb: [UInt8]) -> ScreenSpread? {
        let n = rgb.count / 3
        guard n > 0 else { return nil }
        var cbs = [Double](repeating: 0, count: n), crs = [Double](repeating: 0, count: n)
        var cells = [Int](repeating: 0, count: 16 * 16)
        for i in 0..<n {
            let c = ChromaKey.chroma(Double(rgb[i * 3]), Double(rgb[i * 3 + 1]), Double(rgb[i * 3 + 2]))
            cbs[i] = c.cb; crs[i] = c.cr
            cells[cell(c.cb) * 16 + cell(c.cr)] += 1
        }
        guard let best = cells.indices.max(by: { cells[$0] < cells[$1] }) else { return nil }
        var centre = (Double(best / 16) * 16 - 120, Double(best % 16) * 16 - 120)
        for reach in [24.0, 24, 24, 24] {
            var s = (0.0, 0.0), k = 0.0
            for i in 0..<n where hypot(cbs[i] - centre.0, crs[i] - centre.1) <= reach { s.0 += cbs[i]; s.1 += crs[i]; k += 1 }
            guard k > 0 else { break }
            centre = (s.0 / k, s.1 / k)
        }
        var distances: [Double] = [], values: [Double] = []
        var sum = (0.0, 0.0, 0.0)
        for i in 0..<n {
            let d = hypot(cbs[i] - centre.0, crs[i] - centre.1)
            guard d <= clusterReach else { continue }
            distances.append(d)
            let (r, g, b) = (rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2])
            values.append(Double(max(r, g, b)) / 255)
            sum.0 += Double(r); sum.1 += Double(g); sum.2 += Double(b)
        }
        guard distances.count * 5 >= n, hypot(centre.0, centre.1) >= 16 else { return nil }
        distances.sort(); values.sort()
        let k = Double(distances.count)
        return ScreenSpread(
            color: RGBTriple(r: sum.0 / k / 255, g: sum.1 / k / 255, b: sum.2 / k / 255), cb: centre.0, cr: centre.1,
            radius: distances[min(distances.count - 1, Int(k * 0.99))], valueLow: values[Int(k * 0.01)],
            samples: distances.count, looked: n)
    }

    /// The 16-unit cell of a chroma coordinate (-128...128 -> 0...15).
    static func cell(_ v: Double) -> Int { max(0, min(15, Int((v + 128) / 16))) }

    /// Hypotenuse without Foundation.
    static func hypot(_ a: Double, _ b: Double) -> Double { (a * a + b * b).squareRoot() }

    /// The frame border's pixels (a band `band` pixels deep on every side).
    public static func border(_ image: RGBImage, band: Int) -> [UInt8] {
        var out: [UInt8] = []
        let band = max(1, min(band, min(image.width, image.height) / 2))
        for y in 0..<image.height {
            for x in 0..<image.width where y < band || y >= image.height - band || x < band || x >= image.width - band {
                let p = image.rgb(x: x, y: y)
                out.append(p.r); out.append(p.g); out.append(p.b)
            }
        }
        return out
    }

    /// The pixels of the square patch of side 2 * radius + 1 around a normalised point.
    public static func patch(_ image: RGBImage, x: Double, y: Double, radius: Int) -> [UInt8] {
        let cx = min(image.width - 1, max(0, Int(x * Double(image.width)))),
            cy = min(image.height - 1, max(0, Int(y * Double(image.height))))
        var out: [UInt8] = []
        for yy in max(0, cy - radius)...min(image.height - 1, cy + radius) {
            for xx in max(0, cx - radius)...min(image.width - 1, cx + radius) {
                let p = image.rgb(x: xx, y: yy)
                out.append(p.r); out.append(p.g); out.append(p.b)
            }
        }
        return out
    }

    /// The screen over the frame border (band: 2 % of the shorter side, at least 4 pixels).
    public static func fromBorder(_ image: RGBImage) -> ScreenSpread? {
        measure(rgb: border(image, band: max(4, min(image.width, image.height) / 50)))
    }

    /// The screen around a normalised point (patch: 3 % of the shorter side, at least 2 pixels).
    public static func fromPoint(_ image: RGBImage, x: Double, y: Double) -> ScreenSpread? {
        measure(rgb: patch(image, x: x, y: y, radius: max(2, min(image.width, image.height) * 3 / 100)))
    }

    /// A key for this screen: its colour and chroma centre, similarity and value-min from the spread.
    public func key() -> ChromaKey {
        var k = ChromaKey(r: color.r, g: color.g, b: color.b)
        k.keyChroma = (cb, cr)
        k.similarity = similarity
        k.valueMin = valueMin
        return k
    }
}

/// An r, g, b triple in 0...1 that is Equatable (tuples are not).
public struct RGBTriple: Sendable, Equatable {
    public var r: Double, g: Double, b: Double
    public init(r: Double, g: Double, b: Double) { self.r = r; self.g = g; self.b = b }
}
