import GStreamerKit
import Testing

/// Reframe's crop and scale through GStreamer's converter, checked pixel by pixel on a ramp.
@Suite struct CropScalerTests {
    @Test func aRectangleIsScaledIntoTheOutputSizeWithTheTimestamps() throws {
        let f = try FrameCopyTests.ramp(width: 64, height: 32)
        let s = try CropScaler(input: f.info, width: 40, height: 32)
        #expect(s.output.width == 40 && s.output.height == 32 && s.output.format == "I420")
        // Columns 10..29 (20 wide, 16 tall) doubled: luma rises by 0.5 per output column, from ~10 to ~29.
        let out = try s.render(f, x: 11, y: 5, width: 21, height: 17)
        #expect(s.aligned(x: 11, y: 5, width: 21, height: 17) == (10, 4, 20, 16))
        #expect(out.info.width == 40 && out.info.height == 32 && out.pts == 123)
        let y = try out.planeBytes(plane: 0)
        let row = Array(y.bytes[(10 * y.rowBytes)..<(10 * y.rowBytes + 40)])
        #expect(abs(Int(row[0]) - 10) <= 1 && abs(Int(row[39]) - 29) <= 1)
        #expect(abs(Int(row[20]) - 20) <= 1)
        #expect(zip(row.dropFirst(), row).allSatisfy { $0 >= $1 })
        // Chroma kept.
        let u = try out.planeBytes(plane: 1)
        #expect(u.bytes[0] == 100)
        #expect(s.builds == 1)
        // The same rectangle again: no new converter; another: one more.
        _ = try s.render(f, x: 10, y: 4, width: 20, height: 16)
        #expect(s.builds == 1)
        _ = try s.render(f, x: 0, y: 0, width: 64, height: 32)
        #expect(s.builds == 2)
    }

    @Test func aRectanglePastTheEdgeIsMovedInside() throws {
        let f = try FrameCopyTests.ramp(width: 64, height: 32)
        let s = try CropScaler(input: f.info, width: 16, height: 16)
        #expect(s.aligned(x: 60, y: -7, width: 16, height: 16) == (48, 0, 16, 16))
        #expect(s.aligned(x: 0, y: 0, width: 999, height: 999) == (0, 0, 64, 32))
        let y = try s.render(f, x: 60, y: -7, width: 16, height: 16).planeBytes(plane: 0)
        #expect(Array(y.bytes[0..<16]) == (48..<64).map { UInt8($0) })
    }

    @Test func planeSamplesReadTheGrid() throws {
        let f = try FrameCopyTests.ramp(width: 64, height: 32)
        // 4 columns: cell centres at x = 8, 24, 40, 56 (luma = x).
        #expect(f.planeSamples(columns: 4, rows: 2) == [8, 24, 40, 56, 8, 24, 40, 56])
    }
}
