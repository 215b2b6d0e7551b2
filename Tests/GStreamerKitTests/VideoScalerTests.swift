import Testing

@testable import GStreamerKit

@Suite struct VideoScalerTests {
    @Test(arguments: ["I420", "NV12", "RGBA", "BGRx"])
    func downscalesAnyFormatToRGB(format: String) throws {
        let frame = try TestFrames.black(format, width: 64, height: 48)
        let scaler = try VideoScaler(input: frame.info, width: 16, height: 12)
        let rgb = try scaler.rgb(of: frame)
        #expect(rgb.count == 16 * 12 * 3)
        #expect(rgb.allSatisfy { $0 < 3 })  // black stays black
    }

    @Test func keepsAWhiteColumnWhereItWas() throws {
        let frame = try TestFrames.black("RGBA", width: 64, height: 48)
        let white = OverlayComposition(
            bgra: TestFrames.whiteColumns(Array(32..<40), width: 64, height: 48), width: 64, height: 48, stride: 256)
        try frame.blend(white)
        let rgb = try VideoScaler(input: frame.info, width: 16, height: 12).rgb(of: frame)
        // Columns 32..39 at full size are columns 8..9 at a quarter.
        #expect(rgb[(6 * 16 + 8) * 3] > 200)
        #expect(rgb[(6 * 16 + 3) * 3] < 10)
    }

    @Test(arguments: ["I420", "NV12", "RGBA"])
    func grayOutputIsOneByteOfLumaPerPixel(format: String) throws {
        let frame = try TestFrames.black(format, width: 64, height: 48)
        let white = OverlayComposition(
            bgra: TestFrames.whiteColumns(Array(32..<40), width: 64, height: 48), width: 64, height: 48, stride: 256)
        try frame.blend(white)
        let scaler = try VideoScaler(input: frame.info, width: 16, height: 12, gray: true)
        let luma = try scaler.rgb(of: frame)
        #expect(scaler.channels == 1 && luma.count == 16 * 12)
        #expect(luma[6 * 16 + 8] > 200)  // the white columns
        #expect(luma[6 * 16 + 3] <= 16)  // black (YUV keeps its video-range 16)
    }

    @Test(arguments: ["I420", "NV12", "BGRx"])
    func reducedCopyIsItsOwnRGBFrameWithTheSourceTimestamps(format: String) throws {
        let frame = try TestFrames.black(format, width: 64, height: 48)
        let white = OverlayComposition(
            bgra: TestFrames.whiteColumns(Array(32..<40), width: 64, height: 48), width: 64, height: 48, stride: 256)
        try frame.blend(white)
        frame.buffer.pts = 123_000_000
        let reducer = try VideoScaler(reducing: frame.info, width: 16, height: 12)
        let small = try reducer.reduced(frame)
        #expect(small.info.format == "RGB" && small.info.width == 16 && small.info.height == 12)
        #expect(small.pts == 123_000_000)
        #expect(small.buffer.identity != frame.buffer.identity)
        // The source is not held: it stays writable (no copy when drawing on it afterwards).
        #expect(frame.buffer.isWritable)
        // Packed by a same-size scaler into the analysis image: the white columns are still at 8..9.
        let rgb = try VideoScaler(input: small.info, width: 16, height: 12).rgb(of: small)
        #expect(rgb[(6 * 16 + 8) * 3] > 200)
        #expect(rgb[(6 * 16 + 3) * 3] < 10)
    }
}
