/// Covers rectangles of one colour component of a video plane so what was there cannot be seen: a strong blur, large
/// blocks, or a flat fill. Works on the plane's bytes in place (`MutableSpan`), one component at a time: a planar
/// format's plane is one component (`pixelStride` 1); NV12's chroma plane is two, interleaved (`pixelStride` 2, offset
/// 0 and 1). Pure: no GStreamer; the `redact` stage maps the frame's planes and calls it per plane.
public enum RegionCover {
    /// How a region is covered.
    public enum Mode: String, Sendable, CaseIterable {
        /// Three passes of a box blur (close to a Gaussian) with a radius of a fifth of the region's smaller side (on a
        /// copy reduced up to 4 times, scaled back bilinearly).
        case blur
        /// Blocks of about an eighth of the region's smaller side (at least 8 samples), each its mean.
        case pixelate
        /// One value.
        case fill
    }

    /// A rectangle of a plane, in that plane's samples (a chroma plane of 4:2:0 video: half the frame's size).
    public struct Region: Sendable, Equatable {
        public var x: Int, y: Int, width: Int, height: Int
        /// A region.
        public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }

        /// This region within a `width` x `height` plane; nil when nothing of it is.
        public func clipped(width w: Int, height h: Int) -> Region? {
            let x0 = max(0, x), y0 = max(0, y), x1 = min(w, x + width), y1 = min(h, y + height)
            guard x1 > x0, y1 > y0 else { return nil }
            return Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    /// The blur's radius for a region (samples).
    public static func blurRadius(_ r: Region) -> Int { max(2, min(r.width, r.height) / 5) }
    /// The pixelation's block side for a region (samples).
    public static func blockSide(_ r: Region) -> Int { max(8, min(r.width, r.height) / 8) }

    /// Covers `region` of one component of a plane of `width` x `height` samples, `stride` bytes a row, the component
    /// at `offset` bytes into each `pixelStride`-byte sample; `fill` is the value `fill` mode writes.
    public static func cover(
        _ plane: inout MutableSpan<UInt8>, width: Int, height: Int, stride: Int, pixelStride: Int = 1, offset: Int = 0,
        region: Region, mode: Mode, fill: UInt8
    ) {
        guard let r = region.clipped(width: width, height: height), pixelStride >= 1, offset >= 0, offset < pixelStride,
            stride >= width * pixelStride, plane.count >= (height - 1) * stride + width * pixelStride
        else { return }
        func index(_ x: Int, _ y: Int) -> Int { y * stride + x * pixelStride + offset }
        switch mode {
        case .fill:
            for y in r.y..<(r.y + r.height) { for x in r.x..<(r.x + r.width) { plane[index(x, y)] = fill } }
        case .pixelate:
            let side = blockSide(r)
            var by = r.y
            while by < r.y + r.height {
                let bh = min(side, r.y + r.height - by)
                var bx = r.x
                while bx < r.x + r.width {
                    let bw = min(side, r.x + r.width - bx)
                    var sum = 0
                    for y in by..<(by + bh) { for x in bx..<(bx + bw) { sum += Int(plane[index(x, y)]) } }
                    let mean = UInt8((sum + bw * bh / 2) / (bw * bh))
                    for y in by..<(by + bh) { for x in bx..<(bx + bw) { plane[index(x, y)] = mean } }
                    bx += bw
                }
                by += bh
            }
        case .blur:
            // On a copy reduced by `factor` (block means: a blur this wide loses nothing at a quarter of the size, and
            // costs a sixteenth), three box passes each way (edges clamped to the region: nothing of its surroundings
            // mixed in, nothing of it leaking out), then back to the region's size bilinearly.
            let f = max(1, min(4, min(r.width, r.height) / 16))
            let sw = (r.width + f - 1) / f, sh = (r.height + f - 1) / f
            var v = [Int](repeating: 0, count: sw * sh)
            for sy in 0..<sh {
                let y0 = r.y + sy * f, y1 = min(y0 + f, r.y + r.height)
                for sx in 0..<sw {
                    let x0 = r.x + sx * f, x1 = min(x0 + f, r.x + r.width)
                    var sum = 0
                    for y in y0..<y1 { for x in x0..<x1 { sum += Int(plane[index(x, y)]) } }
                    let n = (y1 - y0) * (x1 - x0)
                    v[sy * sw + sx] = (sum + n / 2) / n
                }
            }
            let radius = max(1, blurRadius(r) / f)
            var line = [Int](repeating: 0, count: max(sw, sh))
            for _ in 0..<3 {
                for y in 0..<sh { boxPass(&v, start: y * sw, step: 1, count: sw, radius: radius, line: &line) }
                for x in 0..<sw { boxPass(&v, start: x, step: sw, count: sh, radius: radius, line: &line) }
            }
            // Bilinear: sample centres at (i + 0.5) / f - 0.5 of the small grid, clamped; 8-bit fixed point.
            for y in 0..<r.height {
                let fy = max(0, (2 * y + 1) * 256 / (2 * f) - 128)
                let y0 = min(fy >> 8, sh - 1), y1 = min(y0 + 1, sh - 1), wy = fy & 255
                for x in 0..<r.width {
                    let fx = max(0, (2 * x + 1) * 256 / (2 * f) - 128)
                    let x0 = min(fx >> 8, sw - 1), x1 = min(x0 + 1, sw - 1), wx = fx & 255
                    let top = v[y0 * sw + x0] * (256 - wx) + v[y0 * sw + x1] * wx
                    let bottom = v[y1 * sw + x0] * (256 - wx) + v[y1 * sw + x1] * wx
                    plane[index(r.x + x, r.y + y)] = UInt8(clamping: (top * (256 - wy) + bottom * wy + 32768) >> 16)
                }
            }
        }
    }

    /// One box blur of `count` values of `v` from `start`, `step` apart, radius `radius`, edges clamped (rounded means).
    static func boxPass(_ v: inout [Int], start: Int, step: Int, count: Int, radius: Int, line: inout [Int]) {
        guard count > 1 else { return }
        for i in 0..<count { line[i] = v[start + i * step] }
        let window = 2 * radius + 1
        var sum = 0
        for k in -radius...radius { sum += line[min(max(k, 0), count - 1)] }
        for i in 0..<count {
            v[start + i * step] = (sum + window / 2) / window
            sum += line[min(i + radius + 1, count - 1)] - line[max(i - radius, 0)]
        }
    }
}
