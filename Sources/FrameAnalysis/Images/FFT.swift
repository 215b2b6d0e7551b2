import Foundation

/// A reusable plan for complex one-dimensional discrete Fourier transforms of one length.
///
/// Forward: `X[k] = Σ_j x[j] · exp(-2πi·j·k/n)`; inverse: `x[j] = (1/n) Σ_k X[k] · exp(+2πi·j·k/n)`.
///
/// Power-of-two lengths use an iterative radix-2 Cooley–Tukey transform (bit-reversal permutation,
/// then log2(n) butterfly passes with precomputed twiddles). Any other length uses Bluestein's
/// chirp-z algorithm: with `w[k] = exp(-πi·k²/n)`, `X[k] = w[k] · Σ_j (x[j]·w[j]) · conj(w[k-j])`, a
/// circular convolution evaluated with radix-2 transforms of length `m ≥ 2n-1`. Both are O(n log n).
/// The inverse uses `inverse(x) = conj(forward(conj(x))) / n`.
///
/// Samples are addressed as `re[offset + i*stride]`, `im[offset + i*stride]` for `i < count`, so rows
/// and columns of a 2-D grid transform in place. A plan is immutable and `Sendable`; it allocates only
/// its tables (and, for Bluestein lengths, two scratch arrays per call).
public struct FFTPlan: Sendable {
    /// Transform length.
    public let count: Int
    private let kind: Kind

    private enum Kind: Sendable {
        case trivial
        case radix2(Radix2)
        case bluestein(Bluestein)
    }

    /// A plan for transforms of `count` complex samples (`count >= 1`).
    public init(count: Int) {
        precondition(count >= 1, "FFTPlan: length must be positive")
        self.count = count
        if count == 1 {
            kind = .trivial
        } else if count & (count - 1) == 0 {
            kind = .radix2(Radix2(count: count))
        } else {
            kind = .bluestein(Bluestein(count: count))
        }
    }

    /// In-place forward transform of the `count` samples at `offset`, `offset + stride`, ...
    public func forward(re: inout [Double], im: inout [Double], offset: Int = 0, stride: Int = 1) {
        precondition(offset >= 0 && offset + (count - 1) * stride < min(re.count, im.count), "FFTPlan: samples out of range")
        switch kind {
        case .trivial: break
        case .radix2(let r): r.transform(re: &re, im: &im, offset: offset, stride: stride)
        case .bluestein(let b): b.transform(re: &re, im: &im, offset: offset, stride: stride)
        }
    }

    /// In-place inverse transform, scaled by `1/count` (so `inverse(forward(x)) == x`).
    public func inverse(re: inout [Double], im: inout [Double], offset: Int = 0, stride: Int = 1) {
        for i in 0..<count { im[offset + i * stride] = -im[offset + i * stride] }
        forward(re: &re, im: &im, offset: offset, stride: stride)
        let s = 1 / Double(count)
        for i in 0..<count {
            let k = offset + i * stride
            re[k] *= s; im[k] = -im[k] * s
        }
    }

    /// Iterative radix-2 decimation-in-time transform.
    struct Radix2: Sendable {
        let count: Int
        /// cos(2πk/n) and -sin(2πk/n) (the forward twiddle) for k < n/2.
        let twiddleRe: [Double], twiddleIm: [Double]
        /// Pairs (i, j), i < j, swapped by the bit-reversal permutation.
        let swaps: [(Int, Int)]

        init(count n: Int) {
            count = n
            twiddleRe = (0..<(n / 2)).map { cos(2 * Double.pi * Double($0) / Double(n)) }
            twiddleIm = (0..<(n / 2)).map { -sin(2 * Double.pi * Double($0) / Double(n)) }
            let bits = n.trailingZeroBitCount
            var s: [(Int, Int)] = []
            for i in 0..<n {
                var v = 0, x = i
                for _ in 0..<bits { v = (v << 1) | (x & 1); x >>= 1 }
                if v > i { s.append((i, v)) }
            }
            swaps = s
        }

        func transform(re: inout [Double], im: inout [Double], offset o: Int, stride st: Int) {
            let n = count
            for (i, j) in swaps {
                re.swapAt(o + i * st, o + j * st); im.swapAt(o + i * st, o + j * st)
            }
            var len = 2
            while len <= n {
                let half = len / 2, step = n / len
                var start = 0
                while start < n {
                    var t = 0
                    for k in 0..<half {
                        let wr = twiddleRe[t], wi = twiddleIm[t]
                        let a = o + (start + k) * st, b = a + half * st
                        let br = re[b], bi = im[b]
                        let xr = br * wr - bi * wi
                        let xi = br * wi + bi * wr
                        let ar = re[a], ai = im[a]
                        re[b] = ar - xr; im[b] = ai - xi
                        re[a] = ar + xr; im[a] = ai + xi
                        t += step
                    }
                    start += len
                }
                len <<= 1
            }
        }
    }

    /// Bluestein's chirp-z transform for lengths that are not powers of two.
    struct Bluestein: Sendable {
        let count: Int
        let inner: Radix2
        /// The chirp w[k] = exp(-πi k²/n).
        let chirpRe: [Double], chirpIm: [Double]
        /// Forward transform of the convolution kernel b[j] = conj(w[j]), wrapped for negative j.
        let kernelRe: [Double], kernelIm: [Double]

        init(count n: Int) {
            count = n
            var m = 1
            while m < 2 * n - 1 { m <<= 1 }
            inner = Radix2(count: m)
            var cr = [Double](repeating: 0, count: n), ci = [Double](repeating: 0, count: n)
            for k in 0..<n {
                // k² mod 2n keeps the angle small and exact for large k.
                let a = Double.pi * Double((k * k) % (2 * n)) / Double(n)
                cr[k] = cos(a); ci[k] = -sin(a)
            }
            chirpRe = cr; chirpIm = ci
            var br = [Double](repeating: 0, count: m), bi = [Double](repeating: 0, count: m)
            for j in 0..<n {
                br[j] = cr[j]; bi[j] = -ci[j]
                if j > 0 { br[m - j] = cr[j]; bi[m - j] = -ci[j] }
            }
            inner.transform(re: &br, im: &bi, offset: 0, stride: 1)
            kernelRe = br; kernelIm = bi
        }

        func transform(re: inout [Double], im: inout [Double], offset o: Int, stride st: Int) {
            let n = count, m = inner.count
            var a = [Double](repeating: 0, count: m), b = [Double](repeating: 0, count: m)
            for k in 0..<n {
                let xr = re[o + k * st], xi = im[o + k * st]
                let wr = chirpRe[k], wi = chirpIm[k]
                a[k] = xr * wr - xi * wi
                b[k] = xr * wi + xi * wr
            }
            inner.transform(re: &a, im: &b, offset: 0, stride: 1)
            for k in 0..<m {
                let kr = kernelRe[k], ki = kernelIm[k]
                let yr = a[k] * kr - b[k] * ki
                let yi = a[k] * ki + b[k] * kr
                // Conjugated, so the forward pass below computes the (unscaled) inverse.
                a[k] = yr; b[k] = -yi
            }
            inner.transform(re: &a, im: &b, offset: 0, stride: 1)
            let s = 1 / Double(m)
            for k in 0..<n {
                // convolution[k] = conj(forward(conj(A·B)))[k] / m, then times the chirp.
                let cr = a[k] * s, ci = -b[k] * s
                let wr = chirpRe[k], wi = chirpIm[k]
                re[o + k * st] = cr * wr - ci * wi
                im[o + k * st] = cr * wi + ci * wr
            }
        }
    }
}

/// A plan for two-dimensional DFTs of a `width` x `height` row-major complex grid: rows, then columns.
///
/// `X[u,v] = Σ_y Σ_x x[x,y] · exp(-2πi (u·x/width + v·y/height))`; the inverse is scaled by
/// `1/(width·height)` so `inverse(forward(x)) == x`.
public struct FFT2D: Sendable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    private let rowPlan: FFTPlan
    private let columnPlan: FFTPlan

    /// A plan for `width` x `height` grids.
    public init(width: Int, height: Int) {
        self.width = width; self.height = height
        rowPlan = FFTPlan(count: width)
        columnPlan = FFTPlan(count: height)
    }

    /// In-place forward transform; `re` and `im` hold `width * height` samples, row by row.
    public func forward(re: inout [Double], im: inout [Double]) {
        precondition(re.count == width * height && im.count == width * height, "FFT2D: expected \(width * height) samples")
        for y in 0..<height { rowPlan.forward(re: &re, im: &im, offset: y * width) }
        for x in 0..<width { columnPlan.forward(re: &re, im: &im, offset: x, stride: width) }
    }

    /// In-place inverse transform, scaled by `1/(width·height)`.
    public func inverse(re: inout [Double], im: inout [Double]) {
        precondition(re.count == width * height && im.count == width * height, "FFT2D: expected \(width * height) samples")
        for y in 0..<height { rowPlan.inverse(re: &re, im: &im, offset: y * width) }
        for x in 0..<width { columnPlan.inverse(re: &re, im: &im, offset: x, stride: width) }
    }
}
