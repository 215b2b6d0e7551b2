/// Premultiplied BGRA pixels (cairo ARGB32 on little-endian), row stride in bytes.
public struct BGRAImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next (at least `width * 4`).
    public let stride: Int
    /// Row-major bytes, B G R A per pixel with colour premultiplied by alpha; `stride * height` long.
    public var pixels: [UInt8]

    /// Wraps existing pixels; `pixels` must hold at least `stride * height` bytes.
    public init(width: Int, height: Int, stride: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "BGRAImage size must not be negative")
        precondition(stride >= width * 4, "BGRAImage stride \(stride) is shorter than a row of \(width) pixels")
        precondition(pixels.count >= stride * height, "BGRAImage needs \(stride * height) bytes, got \(pixels.count)")
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    /// A fully transparent image with a packed stride of `width * 4`.
    public init(transparentWidth width: Int, height: Int) {
        self.init(
            width: width, height: height, stride: width * 4,
            pixels: [UInt8](repeating: 0, count: width * 4 * height))
    }

    /// The premultiplied components of the pixel at (`x`, `y`); both must be inside the image.
    public func pixel(x: Int, y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        precondition(
            x >= 0 && x < width && y >= 0 && y < height,
            "pixel (\(x), \(y)) is outside a \(width)x\(height) image")
        let i = y * stride + x * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// The alpha byte of the pixel at (`x`, `y`).
    public func alpha(x: Int, y: Int) -> UInt8 {
        pixel(x: x, y: y).a
    }

    /// True when every pixel has alpha 0 (premultiplied, so colour is 0 too).
    public var isFullyTransparent: Bool {
        for y in 0..<height {
            let row = y * stride
            for x in 0..<width where pixels[row + x * 4 + 3] != 0 {
                return false
            }
        }
        return true
    }

    /// Number of pixels with non-zero alpha inside the half-open rectangle, clipped to the image.
    public func countCovered(x: Int = 0, y: Int = 0, width w: Int? = nil, height h: Int? = nil) -> Int {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + (w ?? width)), y1 = min(height, y + (h ?? height))
        guard x0 < x1, y0 < y1 else { return 0 }
        var count = 0
        for row in y0..<y1 {
            let base = row * stride
            for col in x0..<x1 where pixels[base + col * 4 + 3] != 0 {
                count += 1
            }
        }
        return count
    }
}
