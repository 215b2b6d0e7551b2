/// 3x3 Sobel gradients of a luma image: the one implementation behind the horizon's and the leading lines' edge
/// finders.
public struct Sobel: Sendable {
    /// Horizontal gradient per pixel (0 outside the computed area).
    public var gx: [Int32]
    /// Vertical gradient per pixel.
    public var gy: [Int32]
    /// Sum of the L1 magnitudes |gx| + |gy| over the computed area.
    public var magnitudeSum: Int
    /// Pixels in the computed area.
    public var count: Int

    /// Mean L1 magnitude over the computed area (0 for none).
    public var meanMagnitude: Double { Double(magnitudeSum) / Double(max(1, count)) }

    /// The gradients of `g` at every pixel at least `marginX` (`marginY`) from the sides (at least 1: the kernel's
    /// reach).
    public init(_ g: GrayImage, marginX: Int = 1, marginY: Int = 1) {
        let w = g.width, h = g.height
        let bx = max(1, marginX), by = max(1, marginY)
        var gx = [Int32](repeating: 0, count: w * h), gy = gx
        var total = 0, n = 0
        if w > 2 * bx, h > 2 * by {
            g.pixels.withUnsafeBufferPointer { p in
                for y in by..<(h - by) {
                    var i = y * w + bx
                    for _ in bx..<(w - bx) {
                        let a = Int32(p[i - w - 1]), b = Int32(p[i - w]), c = Int32(p[i - w + 1])
                        let d = Int32(p[i - 1]), f = Int32(p[i + 1])
                        let j = Int32(p[i + w - 1]), k = Int32(p[i + w]), l = Int32(p[i + w + 1])
                        let sx = (c + 2 * f + l) - (a + 2 * d + j)
                        let sy = (j + 2 * k + l) - (a + 2 * b + c)
                        gx[i] = sx; gy[i] = sy
                        total += Int(abs(sx) + abs(sy))
                        i += 1
                    }
                    n += w - 2 * bx
                }
            }
        }
        self.gx = gx; self.gy = gy; magnitudeSum = total; count = n
    }
}
