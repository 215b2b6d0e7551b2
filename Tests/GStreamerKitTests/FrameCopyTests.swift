import GStreamerKit
import Testing

/// Deep copies and crops through GStreamer's converter, checked pixel by pixel.
@Suite struct FrameCopyTests {
    /// I420 frame whose luma is the column number and chroma planes hold 100 (U) and 200 (V).
    static func ramp(width: Int = 64, height: Int = 32) throws -> VideoFrame {
        let info = try VideoInfo(format: "I420", width: width, height: height)
        var b = [UInt8](repeating: 0, count: info.size)
        for y in 0..<height { for x in 0..<width { b[info.offset(plane: 0) + y * info.stride(plane: 0) + x] = UInt8(x) } }
        for i in info.offset(plane: 1)..<info.offset(plane: 2) { b[i] = 100 }
        for i in info.offset(plane: 2)..<info.size { b[i] = 200 }
        let f = try TestFrames.frame(info: info, bytes: b)
        f.buffer.pts = 123
        return f
    }

    @Test func deepCopyHasItsOwnMemoryAndTheSamePixelsAndTimestamps() throws {
        let f = try Self.ramp()
        f.buffer.setCustomMeta(MessageStructure("VfCopyTest", [("score", .double(0.75))]))
        let c = f.copied()
        #expect(c.buffer.identity != f.buffer.identity)
        #expect(c.buffer.bytes() == f.buffer.bytes())
        #expect(c.pts == 123)
        #expect(c.buffer.customMetaDouble("VfCopyTest", field: "score") == 0.75)
    }

    @Test func cropCopiesTheRectangleAlignedToChroma() throws {
        let f = try Self.ramp()
        #expect(f.alignedCrop(x: 11, y: 5, width: 21, height: 17) == (10, 4, 20, 16))
        let c = try f.cropped(x: 11, y: 5, width: 21, height: 17)
        #expect(c.info.width == 20 && c.info.height == 16 && c.info.format == "I420")
        #expect(c.caps.description.contains("width=(int)20") && c.caps.description.contains("height=(int)16"))
        let y = try c.planeBytes(plane: 0)
        for r in [0, 7, 15] { #expect(Array(y.bytes[(r * y.rowBytes)..<(r * y.rowBytes + 20)]) == (10..<30).map { UInt8($0) }) }
        for (plane, value) in [(1, UInt8(100)), (2, UInt8(200))] {
            let p = try c.planeBytes(plane: plane)
            // 10 chroma samples per row (rows are padded to the stride).
            #expect(p.rows == 8 && (0..<8).allSatisfy { r in p.bytes[(r * p.rowBytes)..<(r * p.rowBytes + 10)].allSatisfy { $0 == value } })
        }
        #expect(c.pts == 123)
        // Clamped at the frame's edge.
        #expect(f.alignedCrop(x: 60, y: 30, width: 40, height: 40) == (60, 30, 4, 2))
    }

    @Test func copyReusesAnUnsharedBufferOfTheSameSizeOnly() throws {
        let f = try Self.ramp()
        let spare = try Self.ramp(width: 64, height: 32).copied().buffer
        let identity = spare.identity
        let c = f.buffer.copyPixels(reusing: spare)
        #expect(c.identity == identity)  // written in place
        #expect(c.bytes() == f.buffer.bytes() && c.pts == 123)
        let held = c.shared()  // someone else holds it now
        let d = f.buffer.copyPixels(reusing: c)
        #expect(d.identity != identity && held.identity == identity)
        let other = try Self.ramp(width: 32, height: 32).buffer
        #expect(f.buffer.copyPixels(reusing: other).identity != other.identity)
    }
}
