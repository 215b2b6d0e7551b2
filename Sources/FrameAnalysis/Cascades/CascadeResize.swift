/// OpenCV's bit-exact bilinear resize (`INTER_LINEAR_EXACT`, `resize_bitExact` for 8-bit, one channel),
/// which `CascadeClassifier::detectMultiScale` uses to build its image pyramid. Reproducing it bit for
/// bit is what lets our detections equal OpenCV's.
///
/// Per axis, destination index `d` samples `f = s * (d + 0.5) - 0.5` with `s = 1 / (dst / src)`
/// (IEEE double, as OpenCV's softdouble); `i = floor(f)`, weights `c1 = round_half_even((f - i) * 256)`,
/// `c0 = 256 - c1` (unsigned 8.8 fixed point). Outside `0 <= i < src - 1` the edge sample is used.
/// Rows are first filtered horizontally to 8.8 values `h = c0 * p[i] + c1 * p[i+1]`, then vertically:
/// `out = (h0 * c0y + h1 * c1y + 2^15) >> 16`; rows at the top/bottom edge use `(h + 128) >> 8`.
enum CascadeResize {
    /// Offsets and 8-bit weights of one axis; `lo..<hi` are the interior samples.
    struct Axis {
        var offsets: [Int]
        var weights: [UInt32]  // c1 per index (c0 = 256 - c1)
        var lo: Int
        var hi: Int

        init(source: Int, destination: Int) {
            offsets = [Int](repeating: 0, count: destination)
            weights = [UInt32](repeating: 0, count: destination)
            lo = 0; hi = destination
            let scale = 1.0 / (Double(destination) / Double(source))
            for d in 0..<destination {
                let f = scale * (Double(d) + 0.5) - 0.5
                let i = Int(f.rounded(.down))
                if i >= 0 && source > 1 {
                    if i < source - 1 {
                        offsets[d] = i
                        weights[d] = UInt32(((f - Double(i)) * 256).rounded(.toNearestOrEven))
                    } else {
                        offsets[d] = source - 1
                        hi = min(hi, d)
                    }
                } else {
                    lo = max(lo, d + 1)
                }
            }
            if source <= 1 { lo = destination; hi = destination }
            hi = max(hi, lo)
        }
    }

    /// Resizes `src` (`sw x sh`, no padding) into `dst` (`dw x dh`); `scratch` holds `2 * dw` values.
    static func resize(
        _ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int,
        into dst: UnsafeMutablePointer<UInt8>, width dw: Int, height dh: Int,
        scratch: UnsafeMutablePointer<UInt32>
    ) {
        if sw == dw && sh == dh {
            dst.update(from: src, count: sw * sh)
            return
        }
        let ax = Axis(source: sw, destination: dw), ay = Axis(source: sh, destination: dh)
        ax.offsets.withUnsafeBufferPointer { xo in
            ax.weights.withUnsafeBufferPointer { xw in
                /// Horizontal pass of source row `y` into `line` (8.8 fixed point).
                func hline(_ y: Int, _ line: UnsafeMutablePointer<UInt32>) {
                    let row = src + y * sw
                    let first = UInt32(row[0]) << 8
                    for d in 0..<ax.lo { line[d] = first }
                    for d in ax.lo..<ax.hi {
                        let p = row + xo[d], c1 = xw[d]
                        line[d] = (256 - c1) * UInt32(p[0]) + c1 * UInt32(p[1])
                    }
                    let last = UInt32(row[sw - 1]) << 8
                    for d in ax.hi..<dw { line[d] = last }
                }
                var line0 = scratch, line1 = scratch + dw
                var row0 = -1, row1 = -1  // source rows currently in line0 / line1
                for d in 0..<dh {
                    let out = dst + d * dw
                    if d < ay.lo || d >= ay.hi {
                        let y = d < ay.lo ? 0 : sh - 1
                        if row0 != y {
                            if row1 == y { swap(&line0, &line1); swap(&row0, &row1) } else { hline(y, line0); row0 = y }
                        }
                        for x in 0..<dw { out[x] = UInt8(truncatingIfNeeded: (line0[x] + 128) >> 8) }
                        continue
                    }
                    let y = ay.offsets[d], c1 = ay.weights[d], c0 = 256 - c1
                    if row0 != y {
                        if row1 == y { swap(&line0, &line1); swap(&row0, &row1) } else { hline(y, line0); row0 = y }
                    }
                    if row1 != y + 1 { hline(y + 1, line1); row1 = y + 1 }
                    for x in 0..<dw {
                        let v = (line0[x] * c0 + line1[x] * c1 + (1 << 15)) >> 16
                        out[x] = UInt8(truncatingIfNeeded: min(v, 255))
                    }
                }
            }
        }
    }
}

extension GrayImage {
    /// Bilinear resize bit-identical to OpenCV's `INTER_LINEAR_EXACT` (the cascade pyramid's resize).
    func resizedLinearExact(width w: Int, height h: Int) -> GrayImage {
        var out = [UInt8](repeating: 0, count: w * h)
        var scratch = [UInt32](repeating: 0, count: 2 * w)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                scratch.withUnsafeMutableBufferPointer { sc in
                    CascadeResize.resize(
                        src.baseAddress!, width: width, height: height,
                        into: dst.baseAddress!, width: w, height: h, scratch: sc.baseAddress!)
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
