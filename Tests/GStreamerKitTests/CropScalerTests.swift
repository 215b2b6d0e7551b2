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

    @Test func aRectangleTallerThanTheFrameGetsBlackBars() throws {
        // 24x48 over a 64x32 ramp (luma = x), into 16x32: the frame's 32 rows land in 21.3 output rows (22, even),
        // 5.3 rows down (6): black (Y 16, U = V 128) above and below, the ramp's columns 20...43 between.
        let f = try FrameCopyTests.ramp(width: 64, height: 32)
        let s = try CropScaler(input: f.info, width: 16, height: 32)
        let l = s.layout(x: 20, y: -8, width: 24, height: 48)
        #expect(l.source == (20, 0, 24, 32) && l.destination == (0, 6, 16, 22))
        let out = try s.render(f, x: 20, y: -8, width: 24, height: 48)
        let y = try out.planeBytes(plane: 0), u = try out.planeBytes(plane: 1), v = try out.planeBytes(plane: 2)
        func row(_ r: Int) -> [UInt8] { Array(y.bytes[(r * y.rowBytes)..<(r * y.rowBytes + 16)]) }
        for r in Array(0..<6) + Array(28..<32) { #expect(row(r).allSatisfy { $0 == 16 }, "row \(r): \(row(r))") }
        for r in 6..<28 {
            let line = row(r)
            #expect(abs(Int(line[0]) - 20) <= 1 && abs(Int(line[15]) - 43) <= 1 && zip(line.dropFirst(), line).allSatisfy { $0 >= $1 }, "row \(r): \(line)")
        }
        // Chroma rows 0-2 and 14-15 are the bars' grey; rows 3-13 the frame's (U 100, V 200).
        #expect(u.bytes[0] == 128 && v.bytes[0] == 128 && u.bytes[15 * u.rowBytes] == 128)
        #expect(u.bytes[8 * u.rowBytes] == 100 && v.bytes[8 * v.rowBytes] == 200)
        // Rows: on a vertical ramp (luma 4y), the frame's rows 0...31 run down the 22 rows between the bars.
        let info = f.info
        var b = [UInt8](repeating: 128, count: info.size)
        for y in 0..<32 { for x in 0..<64 { b[info.offset(plane: 0) + y * info.stride(plane: 0) + x] = UInt8(4 * y) } }
        let vertical = try s.render(try TestFrames.frame(info: info, bytes: b), x: 20, y: -8, width: 24, height: 48).planeBytes(plane: 0)
        let column = (6..<28).map { Int(vertical.bytes[$0 * vertical.rowBytes + 8]) }
        #expect(column.first! <= 4 && column.last! >= 120 && zip(column.dropFirst(), column).allSatisfy { $0 >= $1 }, "\(column)")
        // A rectangle inside the frame still fills the output (no bars), and is another converter.
        let inside = s.layout(x: 20, y: 0, width: 16, height: 32)
        #expect(inside.destination == (0, 0, 16, 32))
        _ = try s.render(f, x: 20, y: 0, width: 16, height: 32)
        #expect(s.builds == 2)
    }

    @Test func planeSamplesReadTheGrid() throws {
        let f = try FrameCopyTests.ramp(width: 64, height: 32)
        // 4 columns: cell centres at x = 8, 24, 40, 56 (luma = x).
        #expect(f.planeSamples(columns: 4, rows: 2) == [8, 24, 40, 56, 8, 24, 40, 56])
    }

    @Test func planeThumbnailAveragesASubGridOfEachCell() throws {
        let f = try FrameCopyTests.ramp(width: 64, height: 32)
        // 16-pixel cells read at x = 1, 5, 9, 13 from the cell's left (every fourth, centred): luma x, mean left + 7.
        #expect(f.planeThumbnail(width: 4, height: 2) == [7, 23, 39, 55, 7, 23, 39, 55])
        // Cells of one pixel: the plane itself.
        #expect(f.planeThumbnail(width: 64, height: 1) == (0..<64).map { UInt8($0) })
        #expect(f.planeThumbnail(width: 0, height: 2).isEmpty)
    }

    @Test func planeThumbnailOfAFullHDFrameReadsSixteenSamplesPerCell() throws {
        // Luma y / 6 + (x / 12) % 7: 12x12 cells into 160x90; each reads rows 1, 4, 7, 10 of its cell (y / 6 = 2r,
        // 2r, 2r + 1, 2r + 1: mean 2r + 0.5, rounded up) and columns 1, 4, 7, 10 (x / 12 = the cell's column c).
        let info = try VideoInfo(format: "I420", width: 1920, height: 1080)
        var b = [UInt8](repeating: 128, count: info.size)
        for y in 0..<1080 { for x in 0..<1920 { b[info.offset(plane: 0) + y * info.stride(plane: 0) + x] = UInt8(y / 6 + (x / 12) % 7) } }
        let t = try TestFrames.frame(info: info, bytes: b).planeThumbnail(width: 160, height: 90)
        #expect(t.count == 160 * 90)
        let expected: [UInt8] = (0..<90).flatMap { (r: Int) -> [UInt8] in (0..<160).map { (c: Int) -> UInt8 in UInt8(2 * r + 1 + c % 7) } }
        #expect(t == expected)
    }
}
