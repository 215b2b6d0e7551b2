import Testing

@testable import GStreamerKit

@Suite struct OverlayCompositionTests {
    typealias Rect = (x: Int, y: Int, w: Int, h: Int)

    /// Every (x, y) with non-zero alpha.
    private func opaquePixels(_ p: [UInt8], width: Int, height: Int) -> Set<[Int]> {
        var out = Set<[Int]>()
        for y in 0..<height { for x in 0..<width where p[(y * width + x) * 4 + 3] != 0 { out.insert([x, y]) } }
        return out
    }

    private func pixels(in rects: [Rect]) -> [[Int]] {
        rects.flatMap { r in (r.y..<r.y + r.h).flatMap { y in (r.x..<r.x + r.w).map { [$0, y] } } }
    }

    private func plain(_ rects: [Rect]) -> [[Int]] { rects.map { [$0.x, $0.y, $0.w, $0.h] } }

    @Test func verticalLinesFarApartStayThinAndRunTheFullHeight() {
        // 300 px apart (over the 256 px join distance): one tall 1-px rectangle per line.
        let (w, h) = (400, 64)
        let img = TestFrames.whiteColumns([10, 310], width: w, height: h)
        let rects = OverlayComposition.contentRectangles(img, width: w, height: h, stride: w * 4)
        #expect(plain(rects) == [[10, 0, 1, 64], [310, 0, 1, 64]])
        let covered = pixels(in: rects)
        #expect(covered.count == 128)
        #expect(Set(covered) == opaquePixels(img, width: w, height: h))
        let comp = OverlayComposition(bgra: img, width: w, height: h, stride: w * 4)
        #expect(comp.rectangleCount == 2)
        #expect(comp.coveredPixels == 128)
    }

    @Test func verticalLinesCloseTogetherShareOneRectangle() {
        // 140 px apart: gst_video_blend unpacks whole rows per rectangle, so one shared rectangle is cheaper.
        let (w, h) = (200, 64)
        let img = TestFrames.whiteColumns([10, 150], width: w, height: h)
        let rects = OverlayComposition.contentRectangles(img, width: w, height: h, stride: w * 4)
        #expect(plain(rects) == [[10, 0, 141, 64]])
        #expect(Set(pixels(in: rects)).isSuperset(of: opaquePixels(img, width: w, height: h)))
    }

    @Test func twoHorizontalLinesBecomeOneRowRectangleEach() {
        let (w, h) = (120, 48)
        var img = [UInt8](repeating: 0, count: w * h * 4)
        for y in [5, 40] { for x in 0..<w { for c in 0..<4 { img[(y * w + x) * 4 + c] = 255 } } }
        let rects = OverlayComposition.contentRectangles(img, width: w, height: h, stride: w * 4)
        #expect(plain(rects) == [[0, 5, 120, 1], [0, 40, 120, 1]])
        #expect(Set(pixels(in: rects)) == opaquePixels(img, width: w, height: h))
        let comp = OverlayComposition(bgra: img, width: w, height: h, stride: w * 4)
        #expect(comp.rectangleCount == 2)
        #expect(comp.coveredPixels == 240)
    }

    @Test func nearbyColumnsMergeAcrossSmallGaps() {
        let (w, h) = (100, 10)
        let img = TestFrames.whiteColumns([20, 30, 60], width: w, height: h)
        let rects = OverlayComposition.contentRectangles(img, width: w, height: h, stride: w * 4)
        // 20, 30 and 60 are all within 256 px: one run, joined down the two bands.
        #expect(plain(rects) == [[20, 0, 41, 10]])
    }

    @Test func paddedStrideIsHonoured() {
        let (w, h, stride) = (16, 4, 80)
        var img = [UInt8](repeating: 0, count: stride * h)
        for y in 0..<h { img[y * stride + 7 * 4 + 3] = 255 }
        // Junk in the padding must be ignored.
        for y in 0..<h { for b in w * 4..<stride { img[y * stride + b] = 255 } }
        let rects = OverlayComposition.contentRectangles(img, width: w, height: h, stride: stride)
        #expect(plain(rects) == [[7, 0, 1, 4]])
    }

    @Test func transparentImageHasNoRectangles() throws {
        let img = [UInt8](repeating: 0, count: 64 * 48 * 4)
        let comp = OverlayComposition(bgra: img, width: 64, height: 48, stride: 256)
        #expect(comp.rectangleCount == 0)
        #expect(comp.coveredPixels == 0)
        let frame = try TestFrames.black("I420", width: 64, height: 48)
        let before = frame.buffer.bytes()
        try frame.blend(comp)
        #expect(frame.buffer.bytes() == before)
    }

    @Test(arguments: ["I420", "NV12", "RGBA", "BGRA", "RGBx", "BGRx"])
    func blendingAWhiteLineChangesOnlyItsColumn(format: String) throws {
        let (w, h) = (64, 48)
        let frame = try TestFrames.black(format, width: w, height: h)
        let comp = OverlayComposition(bgra: TestFrames.whiteColumns([21], width: w, height: h), width: w, height: h, stride: w * 4)
        #expect(comp.rectangleCount == 1)  // six bands of 8 rows joined into one
        #expect(comp.coveredPixels == h)
        try frame.blend(comp)

        let plane = try frame.planeBytes(plane: 0)
        #expect(plane.rows == h)
        if TestFrames.yuvFormats.contains(format) {
            #expect(plane.rowBytes == w)
            let line = TestFrames.column(plane, x: 21)
            let away = TestFrames.column(plane, x: 32)
            #expect(line.allSatisfy { $0 >= 235 }, "luma under the line: \(line)")
            #expect(away.allSatisfy { $0 == 16 }, "luma away from the line: \(away)")
            // The chroma of untouched areas stays neutral.
            let chroma = try frame.planeBytes(plane: 1)
            #expect(chroma.rows == h / 2)
            #expect(TestFrames.column(chroma, x: 24).allSatisfy { $0 == 128 })
        } else {
            #expect(plane.rowBytes == w * 4)
            for channel in 0..<3 {
                let line = TestFrames.column(plane, x: 21, bytesPerPixel: 4, channel: channel)
                let away = TestFrames.column(plane, x: 32, bytesPerPixel: 4, channel: channel)
                #expect(line.allSatisfy { $0 == 255 }, "channel \(channel) under the line: \(line)")
                #expect(away.allSatisfy { $0 == 0 }, "channel \(channel) away from the line: \(away)")
            }
            #expect(TestFrames.column(plane, x: 20, bytesPerPixel: 4, channel: 0).allSatisfy { $0 == 0 })
            #expect(TestFrames.column(plane, x: 22, bytesPerPixel: 4, channel: 0).allSatisfy { $0 == 0 })
        }
    }

    @Test func queuedOverlaysAreBlendedOnceAndCleared() throws {
        let frame = try TestFrames.black("RGBA", width: 64, height: 48)
        let comp = OverlayComposition(bgra: TestFrames.whiteColumns([5], width: 64, height: 48), width: 64, height: 48, stride: 256)
        frame.addOverlay(comp)
        #expect(frame.overlays.count == 1)
        #expect(frame.overlays[0] === comp)
        #expect(frame.buffer.bytes() == TestFrames.blackBytes(frame.info))  // nothing blended yet
        try frame.blendOverlays()
        #expect(frame.overlays.isEmpty)
        let plane = try frame.planeBytes(plane: 0)
        #expect(TestFrames.column(plane, x: 5, bytesPerPixel: 4).allSatisfy { $0 == 255 })
    }

    @Test func placementOffsetMovesTheOverlay() throws {
        let frame = try TestFrames.black("RGBA", width: 64, height: 48)
        // A 4x48 overlay with its column 1 opaque, placed at x=30: lands on frame column 31.
        let comp = OverlayComposition(
            bgra: TestFrames.whiteColumns([1], width: 4, height: 48), width: 4, height: 48, stride: 16, x: 30, y: 0)
        try frame.blend(comp)
        let plane = try frame.planeBytes(plane: 0)
        #expect(TestFrames.column(plane, x: 31, bytesPerPixel: 4).allSatisfy { $0 == 255 })
        #expect(TestFrames.column(plane, x: 1, bytesPerPixel: 4).allSatisfy { $0 == 0 })
    }
}
