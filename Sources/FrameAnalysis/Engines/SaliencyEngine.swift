import Foundation

/// Spectral residual saliency (Hou & Zhang, "Saliency Detection: A Spectral Residual Approach",
/// CVPR 2007), as a detection engine named `saliency` for subjects that are not people.
///
/// For a plane `I` reduced to `mapWidth` (64) pixels wide, keeping the aspect ratio (area average),
/// minus its mean and tapered to 0 at the border (Tukey window over `taper` = 10 % of each side, so the
/// transform's implied wrap-around does not make the frame border itself salient), then zero-padded to
/// power-of-two sides (64x36 -> 64x64; the taper makes the padding seamless, the radix-2 transform
/// avoids Bluestein's 3x larger work, and the 3x3 spectral mean becomes isotropic in pixels):
/// ```
/// F = FFT2(I)                       A = log(|F| + 1e-9)      P = arg(F)
/// R = A - mean3x3(A)                (3x3 box mean, wrapping around: the spectrum is periodic)
/// S = |IFFT2(exp(R + i·P))|²        S = gauss(S, σ = blurSigma)   map = (S - min) / (max - min)
/// ```
/// The Gaussian (σ = 2.5 map pixels, radius 3σ, separable, edge samples replicated) follows the
/// authors' reference code (a 10x10 kernel with σ = 2.5 at 64 px).
///
/// Luma only by default, as in the paper. With `opponentColour` (on by default for RGB input), the
/// squared reconstructions of three planes are summed before the blur: luma `L`, `R - G` and
/// `B - (R + G)/2`, each weighted by its standard deviation over the reduced frame divided by the sum of
/// the three (spectral residual flattens contrast away, so a flat colour plane would otherwise add
/// amplified noise; a grey photo keeps weight 1 on luma). This finds subjects that differ from their
/// surroundings in hue but not brightness (an orange suit against a beige wall).
///
/// The main salient region: pixels with `map >= thresholdFactor · mean(map)`, grouped into components
/// (pixels within `mergeRadius` map pixels join); the
/// component with the largest saliency mass `Σ map` wins and its bounding box, scaled by
/// `input size / map size`, is the detection. Confidence = that component's mass / the whole map's mass
/// (its share of all saliency, 0...1). Boxes come out larger than the object by about the Gaussian's
/// reach (~σ map pixels on each side: a 28 px disc in a 320 px frame gives a 70 px box). The default threshold is 2 · mean, not the paper's 3 · mean for
/// proto-objects: measured on astronaut, messi5 and basketball1, 3 · mean keeps one part of the subject
/// (a badge, a shirt) while 2 · mean keeps the whole person.
public struct SaliencyEngine: DetectionEngine {
    /// `"saliency"`.
    public let name = "saliency"
    /// Width of the map the spectrum is computed on (height keeps the input's aspect ratio).
    public var mapWidth: Int
    /// Standard deviation of the Gaussian applied to the squared reconstruction, in map pixels.
    public var blurSigma: Double
    /// Region threshold as a multiple of the map's mean.
    public var thresholdFactor: Double
    /// Pixels above the threshold closer than this (map pixels, Chebyshev distance) join one region.
    public var mergeRadius: Int
    /// Fraction of each side tapered to the mean (Tukey window) before the transform.
    public var taper: Double
    /// Whether RGB input adds the two opponent-colour planes (see the type's documentation).
    public var opponentColour: Bool

    /// Creates an engine: 64 px map, σ 2.5 (Hou & Zhang), region threshold 2 x mean (see the type).
    public init(
        mapWidth: Int = 64, blurSigma: Double = 2.5, thresholdFactor: Double = 2,
        mergeRadius: Int = 1, taper: Double = 0.1, opponentColour: Bool = true
    ) {
        self.mapWidth = max(8, mapWidth); self.blurSigma = blurSigma; self.thresholdFactor = thresholdFactor
        self.mergeRadius = max(1, mergeRadius); self.taper = max(0, min(0.5, taper)); self.opponentColour = opponentColour
    }

    /// A saliency map normalised to 0...1, at map resolution (row-major `width * height` values).
    public struct Map: Sendable, Equatable {
        /// Map width (`mapWidth`, or the input's width if smaller).
        public let width: Int
        /// Map height (`round(width · sourceHeight / sourceWidth)`, at least 1).
        public let height: Int
        /// Saliency per map pixel, 0...1 (all zero for a featureless image).
        public var values: [Double]
        /// Width of the image the map was computed from, for mapping back to its pixels.
        public let sourceWidth: Int
        /// Height of the image the map was computed from.
        public let sourceHeight: Int

        /// The map as an 8-bit image (`value · 255`, rounded).
        public var image: GrayImage {
            GrayImage(width: width, height: height, pixels: values.map { UInt8(max(0, min(255, ($0 * 255).rounded()))) })
        }

        /// Saliency at a point given in source pixels (nearest map pixel).
        public func value(atSourceX x: Double, y: Double) -> Double {
            let mx = min(width - 1, max(0, Int(x * Double(width) / Double(sourceWidth))))
            let my = min(height - 1, max(0, Int(y * Double(height) / Double(sourceHeight))))
            return values[my * width + mx]
        }
    }

    /// The saliency map of an RGB frame as an 8-bit image at map resolution (64 px wide by default).
    public func saliencyMap(_ image: RGBImage) -> GrayImage { map(rgb: image).image }

    /// The saliency map of a luma image as an 8-bit image at map resolution.
    public func saliencyMap(_ luma: GrayImage) -> GrayImage { map(luma: luma).image }

    /// The main salient region (at most one detection, kind `.salient`), in the input's pixels.
    public func detect(in image: RGBImage) -> [Detection] { mainRegion(of: map(rgb: image)).map { [$0] } ?? [] }

    /// The main salient region of a luma image, in its pixels (empty when nothing stands out).
    public func detect(luma: GrayImage) -> [Detection] { mainRegion(of: map(luma: luma)).map { [$0] } ?? [] }

    /// The floating-point saliency map of a luma image.
    public func map(luma: GrayImage) -> Map {
        let (w, h) = Self.mapSize(width: luma.width, height: luma.height, mapWidth: mapWidth)
        let plane = Self.areaDownsample(luma.pixels, width: luma.width, height: luma.height, channels: 1, channel: 0, to: w, h)
        return finish([plane], width: w, height: h, sourceWidth: luma.width, sourceHeight: luma.height)
    }

    /// The floating-point saliency map of an RGB image (luma, plus opponent colour when enabled).
    public func map(rgb image: RGBImage) -> Map {
        let (w, h) = Self.mapSize(width: image.width, height: image.height, mapWidth: mapWidth)
        let (r, g, b) = Self.areaDownsampleRGB(image, to: w, h)
        var planes: [[Double]] = [(0..<(w * h)).map { 0.299 * r[$0] + 0.587 * g[$0] + 0.114 * b[$0] }]
        if opponentColour {
            planes.append((0..<(w * h)).map { r[$0] - g[$0] })
            planes.append((0..<(w * h)).map { b[$0] - (r[$0] + g[$0]) / 2 })
        }
        return finish(planes, width: w, height: h, sourceWidth: image.width, sourceHeight: image.height)
    }

    /// Residuals of every plane, contrast-weighted sum, blur, normalise.
    private func finish(_ planes: [[Double]], width w: Int, height h: Int, sourceWidth: Int, sourceHeight: Int) -> Map {
        let n = w * h
        let (pw, ph) = (Self.nextPowerOfTwo(w), Self.nextPowerOfTwo(h))
        let fft = FFT2D(width: pw, height: ph)
        var tapered = planes
        var weights = [Double](repeating: 0, count: planes.count)
        for p in 0..<planes.count {
            let mean = planes[p].reduce(0, +) / Double(n)
            var v = 0.0
            for x in planes[p] { v += (x - mean) * (x - mean) }
            weights[p] = (v / Double(n)).squareRoot()
            Self.applyTaper(&tapered[p], width: w, height: h, fraction: taper)
        }
        let total = weights.reduce(0, +)
        var s = [Double](repeating: 0, count: n)
        if total > 1e-9 {
            for p in 0..<planes.count where weights[p] / total > 1e-3 {
                // Zero-pad to the transform size: the tapered plane is already 0 at its border, so the
                // padding adds no edge; the crop below keeps the frame's own pixels.
                var padded = [Double](repeating: 0, count: pw * ph)
                for y in 0..<h { for x in 0..<w { padded[y * pw + x] = tapered[p][y * w + x] } }
                let r = Self.residual(padded, width: pw, height: ph, fft: fft)
                let k = weights[p] / total
                for y in 0..<h { for x in 0..<w { s[y * w + x] += k * r[y * pw + x] } }
            }
        }
        s = Self.gaussianBlur(s, width: w, height: h, sigma: blurSigma)
        var lo = Double.infinity, hi = -Double.infinity
        for v in s { lo = min(lo, v); hi = max(hi, v) }
        let range = hi - lo
        if range > 1e-12 * max(1, abs(hi)) {
            for i in 0..<n { s[i] = (s[i] - lo) / range }
        } else {
            for i in 0..<n { s[i] = 0 }
        }
        return Map(width: w, height: h, values: s, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
    }

    /// `|IFFT2(exp(R + i·P))|²` for one (tapered) plane.
    static func residual(_ plane: [Double], width w: Int, height h: Int, fft: FFT2D) -> [Double] {
        let n = w * h
        var re = plane
        var im = [Double](repeating: 0, count: n)
        fft.forward(re: &re, im: &im)
        // Log amplitude; the spectrum becomes its unit phasor (cos P, sin P).
        var logAmp = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let a = (re[i] * re[i] + im[i] * im[i]).squareRoot()
            logAmp[i] = log(a + 1e-9)
            if a > 0 { re[i] /= a; im[i] /= a } else { re[i] = 1; im[i] = 0 }
        }
        // Spectral residual R = A - mean3x3(A) (circular), then exp(R) · phasor.
        for y in 0..<h {
            let ym = (y + h - 1) % h, yp = (y + 1) % h
            for x in 0..<w {
                let xm = (x + w - 1) % w, xp = (x + 1) % w
                var s = logAmp[ym * w + xm] + logAmp[ym * w + x] + logAmp[ym * w + xp]
                s += logAmp[y * w + xm] + logAmp[y * w + x] + logAmp[y * w + xp]
                s += logAmp[yp * w + xm] + logAmp[yp * w + x] + logAmp[yp * w + xp]
                let e = exp(logAmp[y * w + x] - s / 9)
                re[y * w + x] *= e; im[y * w + x] *= e
            }
        }
        fft.inverse(re: &re, im: &im)
        for i in 0..<n { re[i] = re[i] * re[i] + im[i] * im[i] }
        return re
    }

    /// The main salient region of a map, in the source image's pixels (nil when the map is flat or no
    /// pixel reaches the threshold).
    public func mainRegion(of map: Map) -> Detection? {
        let w = map.width, h = map.height, v = map.values
        var total = 0.0
        for x in v { total += x }
        guard total > 0 else { return nil }
        let threshold = thresholdFactor * total / Double(w * h)
        // Components by flood fill with an explicit stack; neighbours within mergeRadius join.
        let r = max(1, mergeRadius)
        var label = [Bool](repeating: false, count: w * h)
        var stack: [Int] = []
        stack.reserveCapacity(w * h)
        var best: (mass: Double, x0: Int, y0: Int, x1: Int, y1: Int)?
        for start in 0..<(w * h) where !label[start] && v[start] >= threshold {
            label[start] = true
            stack.append(start)
            var mass = 0.0, x0 = w, y0 = h, x1 = -1, y1 = -1
            while let p = stack.popLast() {
                let px = p % w, py = p / w
                mass += v[p]
                x0 = min(x0, px); x1 = max(x1, px); y0 = min(y0, py); y1 = max(y1, py)
                for qy in max(0, py - r)...min(h - 1, py + r) {
                    for qx in max(0, px - r)...min(w - 1, px + r) {
                        let q = qy * w + qx
                        if !label[q] && v[q] >= threshold { label[q] = true; stack.append(q) }
                    }
                }
            }
            if best.map({ mass > $0.mass }) ?? true { best = (mass, x0, y0, x1, y1) }
        }
        guard let b = best else { return nil }
        let sx = Double(map.sourceWidth) / Double(w), sy = Double(map.sourceHeight) / Double(h)
        let box = Box(
            x: Double(b.x0) * sx, y: Double(b.y0) * sy,
            width: Double(b.x1 - b.x0 + 1) * sx, height: Double(b.y1 - b.y0 + 1) * sy)
        return Detection(box: box, confidence: min(1, b.mass / total), kind: .salient)
    }

    /// The smallest power of two >= n.
    static func nextPowerOfTwo(_ n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    /// Map size for an input: `mapWidth` wide (never wider than the input), height by aspect ratio.
    static func mapSize(width: Int, height: Int, mapWidth: Int) -> (Int, Int) {
        let w = max(1, min(mapWidth, width))
        let h = max(1, Int((Double(w) * Double(height) / Double(max(1, width))).rounded()))
        return (w, min(h, max(1, height)))
    }

    /// Subtracts the mean and multiplies by a separable Tukey window: weight
    /// `0.5 - 0.5·cos(π·d/(fraction·size))` within `fraction` of each side (d = distance from the side,
    /// measured to pixel centres), 1 inside.
    static func applyTaper(_ v: inout [Double], width w: Int, height h: Int, fraction: Double) {
        let mean = v.reduce(0, +) / Double(max(1, v.count))
        func window(_ n: Int) -> [Double] {
            let band = fraction * Double(n)
            return (0..<n).map { i in
                let d = min(Double(i) + 0.5, Double(n) - Double(i) - 0.5)
                return d >= band ? 1 : 0.5 - 0.5 * cos(Double.pi * d / band)
            }
        }
        let wx = window(w), wy = window(h)
        for y in 0..<h { for x in 0..<w { v[y * w + x] = (v[y * w + x] - mean) * wx[x] * wy[y] } }
    }

    /// Area-average downsampling of one channel of interleaved 8-bit samples: each output pixel is the
    /// mean of the input pixels in its bin `[floor(x·W/w), floor((x+1)·W/w))` (at least one), per axis.
    static func areaDownsample(
        _ px: [UInt8], width sw: Int, height sh: Int, channels c: Int, channel: Int,
        to w: Int, _ h: Int
    ) -> [Double] {
        let xs = (0...w).map { min(sw, Int(Double($0) * Double(sw) / Double(w))) }
        let ys = (0...h).map { min(sh, Int(Double($0) * Double(sh) / Double(h))) }
        var sums = [Int](repeating: 0, count: w)
        var out = [Double](repeating: 0, count: w * h)
        for oy in 0..<h {
            let y0 = min(ys[oy], sh - 1), y1 = max(y0 + 1, ys[oy + 1])
            for i in 0..<w { sums[i] = 0 }
            for y in y0..<y1 {
                let row = y * sw
                for ox in 0..<w {
                    let x0 = min(xs[ox], sw - 1), x1 = max(x0 + 1, xs[ox + 1])
                    var s = 0
                    for x in x0..<x1 { s += Int(px[(row + x) * c + channel]) }
                    sums[ox] += s
                }
            }
            for ox in 0..<w {
                let x0 = min(xs[ox], sw - 1), x1 = max(x0 + 1, xs[ox + 1])
                out[oy * w + ox] = Double(sums[ox]) / Double((x1 - x0) * (y1 - y0))
            }
        }
        return out
    }

    /// `areaDownsample` of the three channels of an RGB image in one pass.
    static func areaDownsampleRGB(_ img: RGBImage, to w: Int, _ h: Int) -> ([Double], [Double], [Double]) {
        let sw = img.width, sh = img.height, px = img.pixels
        let xs = (0...w).map { min(sw, Int(Double($0) * Double(sw) / Double(w))) }
        let ys = (0...h).map { min(sh, Int(Double($0) * Double(sh) / Double(h))) }
        var r = [Double](repeating: 0, count: w * h), g = r, b = r
        var sums = [Int](repeating: 0, count: 3 * w)
        for oy in 0..<h {
            let y0 = min(ys[oy], sh - 1), y1 = max(y0 + 1, ys[oy + 1])
            for i in 0..<(3 * w) { sums[i] = 0 }
            for y in y0..<y1 {
                let row = y * sw
                for ox in 0..<w {
                    let x0 = min(xs[ox], sw - 1), x1 = max(x0 + 1, xs[ox + 1])
                    var sr = 0, sg = 0, sb = 0
                    var i = (row + x0) * 3
                    for _ in x0..<x1 { sr += Int(px[i]); sg += Int(px[i + 1]); sb += Int(px[i + 2]); i += 3 }
                    sums[3 * ox] += sr; sums[3 * ox + 1] += sg; sums[3 * ox + 2] += sb
                }
            }
            for ox in 0..<w {
                let x0 = min(xs[ox], sw - 1), x1 = max(x0 + 1, xs[ox + 1])
                let area = Double((x1 - x0) * (y1 - y0))
                r[oy * w + ox] = Double(sums[3 * ox]) / area
                g[oy * w + ox] = Double(sums[3 * ox + 1]) / area
                b[oy * w + ox] = Double(sums[3 * ox + 2]) / area
            }
        }
        return (r, g, b)
    }

    /// Separable Gaussian blur, radius `ceil(3σ)`, edge samples replicated.
    static func gaussianBlur(_ src: [Double], width w: Int, height h: Int, sigma: Double) -> [Double] {
        guard sigma > 0 else { return src }
        let r = Int((3 * sigma).rounded(.up))
        var k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = k.reduce(0, +)
        k = k.map { $0 / sum }
        var tmp = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0.0
                for i in -r...r { s += k[i + r] * src[y * w + min(w - 1, max(0, x + i))] }
                tmp[y * w + x] = s
            }
        }
        var out = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0.0
                for i in -r...r { s += k[i + r] * tmp[min(h - 1, max(0, y + i)) * w + x] }
                out[y * w + x] = s
            }
        }
        return out
    }
}
