import GStreamerKit

/// Builds raw video frames of a known colour for the binding's tests.
enum TestFrames {
    /// Formats whose planes are luma then chroma (black is Y=16, U=V=128).
    static let yuvFormats: Set<String> = ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444"]

    /// The bytes of an all-black frame of `info`'s layout: Y=16, U=V=128 for planar YUV,
    /// 0,0,0,255 per pixel for the 4-byte RGB formats with alpha or padding last.
    static func blackBytes(_ info: VideoInfo) -> [UInt8] {
        if yuvFormats.contains(info.format) {
            var bytes = [UInt8](repeating: 128, count: info.size)
            let lumaEnd = info.planes > 1 ? info.offset(plane: 1) : info.size
            for i in info.offset(plane: 0)..<lumaEnd { bytes[i] = 16 }
            return bytes
        }
        precondition(["RGBA", "BGRA", "RGBx", "BGRx"].contains(info.format), "no black for \(info.format)")
        return (0..<info.size).map { $0 % 4 == 3 ? 255 : 0 }
    }

    /// A black frame of `format` at `width` x `height`.
    static func black(_ format: String, width: Int, height: Int, index: Int = 0) throws -> VideoFrame {
        let info = try VideoInfo(format: format, width: width, height: height)
        return try frame(info: info, bytes: blackBytes(info), index: index)
    }

    /// Wraps `bytes` (exactly `info.size` of them) as a frame with caps made from `info`.
    static func frame(info: VideoInfo, bytes: [UInt8], index: Int = 0) throws -> VideoFrame {
        precondition(bytes.count == info.size)
        return VideoFrame(
            buffer: Buffer(bytes: bytes), info: info, caps: try Caps(info.capsString),
            segment: Segment(), index: index)
    }

    /// A transparent premultiplied BGRA image with opaque white in the listed columns (all rows).
    static func whiteColumns(_ xs: [Int], width: Int, height: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height { for x in xs { for c in 0..<4 { p[(y * width + x) * 4 + c] = 255 } } }
        return p
    }

    /// One column of an 8-bit plane: the byte at `x * bytesPerPixel + channel` of every row.
    static func column(_ plane: (bytes: [UInt8], rowBytes: Int, rows: Int), x: Int, bytesPerPixel: Int = 1, channel: Int = 0) -> [UInt8] {
        (0..<plane.rows).map { plane.bytes[$0 * plane.rowBytes + x * bytesPerPixel + channel] }
    }
}

/// How many buffer copies `body` made, robust to other tests copying at the same time: the body runs
/// several times and the smallest count wins (other tests can only add copies, never remove ours).
func copiesMade(attempts: Int = 5, _ body: () throws -> Void) rethrows -> Int {
    var best = Int.max
    for _ in 0..<attempts {
        let before = BufferCopies.count
        try body()
        best = min(best, BufferCopies.count - before)
        if best == 0 { break }
    }
    return best
}
