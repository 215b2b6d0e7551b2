import Foundation

/// An in-plane rotation about an image's centre, positive = counter-clockwise as displayed (OpenCV's
/// `getRotationMatrix2D` sign). The rotated image keeps the original size.
///
/// With `c = ((w-1)/2, (h-1)/2)`, `cosθ`, `sinθ`: a point p of the original lands at
/// `p' = (cosθ·dx + sinθ·dy, -sinθ·dx + cosθ·dy) + c` with `(dx, dy) = p - c` (y points down).
public struct Rotation: Sendable, Equatable {
    /// Angle in degrees, counter-clockwise as displayed.
    public let degrees: Double
    /// Centre x (pixel-centre coordinates).
    public let centerX: Double
    /// Centre y.
    public let centerY: Double
    let cosine: Double, sine: Double

    /// A rotation by `degrees` about the centre of a `width` x `height` image.
    public init(degrees: Double, width: Int, height: Int) {
        self.degrees = degrees
        centerX = Double(width - 1) / 2; centerY = Double(height - 1) / 2
        cosine = cos(degrees * .pi / 180); sine = sin(degrees * .pi / 180)
    }

    /// Where a point of the original image lands in the rotated one.
    public func forward(x: Double, y: Double) -> (x: Double, y: Double) {
        let dx = x - centerX, dy = y - centerY
        return (cosine * dx + sine * dy + centerX, -sine * dx + cosine * dy + centerY)
    }

    /// Where a point of the rotated image comes from in the original.
    public func inverse(x: Double, y: Double) -> (x: Double, y: Double) {
        let dx = x - centerX, dy = y - centerY
        return (cosine * dx - sine * dy + centerX, sine * dx + cosine * dy + centerY)
    }

    /// A box of the rotated image mapped back to the original: same size, centre mapped by `inverse`
    /// (pixel edges at ±0.5 of pixel centres).
    public func inverse(_ box: Box) -> Box {
        let c = inverse(x: box.x + box.width / 2 - 0.5, y: box.y + box.height / 2 - 0.5)
        return Box(x: c.x + 0.5 - box.width / 2, y: c.y + 0.5 - box.height / 2, width: box.width, height: box.height)
    }

    /// A box of the original mapped into the rotated image (centre mapped, size kept).
    public func forward(_ box: Box) -> Box {
        let c = forward(x: box.x + box.width / 2 - 0.5, y: box.y + box.height / 2 - 0.5)
        return Box(x: c.x + 0.5 - box.width / 2, y: c.y + 0.5 - box.height / 2, width: box.width, height: box.height)
    }

    /// Bilinear resampling of `channels`-interleaved samples: every output pixel takes the original at
    /// `inverse(x, y)`; outside the image the nearest edge pixel is repeated.
    func resample(_ src: [UInt8], width w: Int, height h: Int, channels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: src.count)
        src.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let dy = Double(y) - centerY
                    for x in 0..<w {
                        let dx = Double(x) - centerX
                        let fx = min(max(cosine * dx - sine * dy + centerX, 0), Double(w - 1))
                        let fy = min(max(sine * dx + cosine * dy + centerY, 0), Double(h - 1))
                        let x0 = Int(fx), y0 = Int(fy)
                        let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
                        let ax = fx - Double(x0), ay = fy - Double(y0)
                        for c in 0..<channels {
                            let p00 = Double(s[(y0 * w + x0) * channels + c]), p01 = Double(s[(y0 * w + x1) * channels + c])
                            let p10 = Double(s[(y1 * w + x0) * channels + c]), p11 = Double(s[(y1 * w + x1) * channels + c])
                            let v = (p00 * (1 - ax) + p01 * ax) * (1 - ay) + (p10 * (1 - ax) + p11 * ax) * ay
                            o[(y * w + x) * channels + c] = UInt8(min(255, max(0, v.rounded())))
                        }
                    }
                }
            }
        }
        return out
    }
}

extension GrayImage {
    /// The image rotated by `degrees` (counter-clockwise as displayed) about its centre, same size,
    /// bilinear, edges repeated.
    public func rotated(degrees: Double) -> GrayImage {
        let r = Rotation(degrees: degrees, width: width, height: height)
        return GrayImage(width: width, height: height, pixels: r.resample(pixels, width: width, height: height, channels: 1))
    }
}

extension RGBImage {
    /// The image rotated by `degrees` (counter-clockwise as displayed) about its centre, same size,
    /// bilinear, edges repeated.
    public func rotated(degrees: Double) -> RGBImage {
        let r = Rotation(degrees: degrees, width: width, height: height)
        return RGBImage(width: width, height: height, pixels: r.resample(pixels, width: width, height: height, channels: 3))
    }
}
