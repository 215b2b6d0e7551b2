@testable import FrameAnalysis

/// A camera over a still photo: each view is a window of the photo (centre and width in photo pixels, the height
/// from the view's aspect) resampled to a small image with area averaging, so a pan or a zoom between two views has
/// a known true motion.
struct VirtualCamera {
    /// A window over the photo: centre (continuous photo pixels, pixel i covering [i, i + 1]) and width.
    struct Window {
        var cx: Double
        var cy: Double
        var width: Double
    }

    /// The photo's width in pixels.
    let width: Int
    /// The photo's height in pixels.
    let height: Int
    /// The photo's luma, row by row.
    let luma: [Float]

    /// The camera over test photo `name` (its luma).
    init(_ name: String) throws {
        let g = try TestImages.rgb(name).gray
        width = g.width; height = g.height; luma = g.pixels.map { Float($0) }
    }

    /// The photo at continuous point (x, y), bilinear between pixel centres, clamped at the edges.
    func sample(_ x: Double, _ y: Double) -> Float {
        let u = min(max(x - 0.5, 0), Double(width - 1)), v = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = min(Int(u), width - 2), y0 = min(Int(v), height - 2)
        let fx = Float(u - Double(x0)), fy = Float(v - Double(y0))
        let i = y0 * width + x0
        let top = luma[i] + fx * (luma[i + 1] - luma[i]), bottom = luma[i + width] + fx * (luma[i + width + 1] - luma[i + width])
        return top + fy * (bottom - top)
    }

    /// The window resampled to `w` x `h`: each pixel the mean of `n` x `n` bilinear samples spread over its cell.
    func view(_ win: Window, width w: Int = 160, height h: Int = 90, samples n: Int = 4) -> GrayImage {
        let step = win.width / Double(w)
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var sum: Float = 0
                for j in 0..<n {
                    let py = win.cy + (Double(y) + (Double(j) + 0.5) / Double(n) - Double(h) / 2) * step
                    for i in 0..<n { sum += sample(win.cx + (Double(x) + (Double(i) + 0.5) / Double(n) - Double(w) / 2) * step, py) }
                }
                out[y * w + x] = UInt8(max(0, min(255, (sum / Float(n * n)).rounded())))
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// The true motion from view `a` to view `b` in the pixels of a `w`-wide view: a photo point at p shows at
    /// w/2 + (p - a.cx) * w / a.width in `a`, so in `b` it is scaled by a.width / b.width about the centre and moved by
    /// (a.cx - b.cx) * w / b.width.
    static func motion(from a: Window, to b: Window, width w: Int = 160) -> CameraMotion {
        CameraMotion(scale: a.width / b.width, dx: (a.cx - b.cx) * Double(w) / b.width, dy: (a.cy - b.cy) * Double(w) / b.width)
    }
}
