import GStreamerKit
import Testing

/// Placeholder frames (the slate's background) in every kind of raw layout, checked byte by byte.
struct PlaceholderFrameTests {
    /// Grey 40 is limited-range luma 16 + 40 * 219 / 255 = 50 with neutral chroma in YUV formats, 40 in RGB ones.
    @Test(arguments: ["I420", "NV12", "YUY2", "GRAY8"])
    func yuvFormatsGetLumaAndNeutralChroma(format: String) throws {
        let info = try VideoInfo(format: format, width: 64, height: 48)
        let b = try PlaceholderFrame.make(info, grey: 40, pts: 1_000_000_000, duration: 33_333_333)
        let bytes = b.bytes()
        #expect(bytes.count == info.size)
        switch format {
        case "I420":
            #expect(bytes[0..<(64 * 48)].allSatisfy { $0 == 50 })
            #expect(bytes[(64 * 48)...].allSatisfy { $0 == 128 })
        case "NV12":
            #expect(bytes[0..<(64 * 48)].allSatisfy { $0 == 50 })
            #expect(bytes[(64 * 48)...].allSatisfy { $0 == 128 })
        case "YUY2":
            for i in stride(from: 0, to: bytes.count, by: 4) { #expect(bytes[i] == 50 && bytes[i + 1] == 128 && bytes[i + 2] == 50 && bytes[i + 3] == 128) }
        default:
            #expect(bytes.allSatisfy { $0 == 50 })
        }
        #expect(b.isGap && b.isPlaceholder)
        #expect(b.customMetaText(PlaceholderFrame.meta) != nil)
        #expect(b.pts == 1_000_000_000 && b.duration == 33_333_333)
    }

    @Test func rgbFormatsGetTheGreyAndOpaqueAlpha() throws {
        let rgb = try PlaceholderFrame.make(VideoInfo(format: "RGB", width: 30, height: 10), grey: 40, pts: nil, duration: nil)
        let info = try VideoInfo(format: "RGB", width: 30, height: 10)
        // RGB rows are padded to 4 bytes: check the pixels, not the padding.
        let bytes = rgb.bytes()
        for y in 0..<10 { for x in 0..<90 { #expect(bytes[y * info.stride(plane: 0) + x] == 40) } }
        let bgra = try PlaceholderFrame.make(VideoInfo(format: "BGRA", width: 8, height: 4), grey: 200, pts: nil, duration: nil).bytes()
        for i in stride(from: 0, to: bgra.count, by: 4) { #expect(Array(bgra[i..<i + 4]) == [200, 200, 200, 255]) }
    }

    /// A 10-bit format packs from the 16-bit unpack line: luma 50 becomes 50 << 2 (+ the low bits repeated).
    @Test func tenBitFormatsScaleTheLevel() throws {
        let info = try VideoInfo(format: "I420_10LE", width: 16, height: 8)
        let bytes = try PlaceholderFrame.make(info, grey: 40, pts: nil, duration: nil).bytes()
        let y0 = Int(bytes[0]) | Int(bytes[1]) << 8
        let u0 = Int(bytes[info.offset(plane: 1)]) | Int(bytes[info.offset(plane: 1) + 1]) << 8
        #expect(y0 == (50 << 8 | 50) >> 6)
        #expect(u0 == (128 << 8 | 128) >> 6)
    }
}
