import Testing

@testable import FrameAnalysis

/// The pyramid resize against OpenCV's `resize(INTER_LINEAR_EXACT)` (hashes recorded by the fixture
/// script) and against hand-computed fixed-point values.
@Suite struct CascadeResizeTests {
    @Test func bitIdenticalToOpenCVOnPhotos() throws {
        let fixture = try OpenCVFixture.load()
        for name in ["basketball1", "messi5", "astronaut", "left01", "vtest-0100"] {
            let gray = CascadeTestSupport.opencvGray(try TestImages.rgb(name))
            let expected = try #require(fixture.images[name]?.resizeHashes)
            #expect(expected.count == 3)
            for (size, hash) in expected {
                let wh = size.split(separator: "x").map { Int($0)! }
                let out = gray.resizedLinearExact(width: wh[0], height: wh[1])
                #expect(CascadeTestSupport.fnv1a(out.pixels) == hash, "\(name) -> \(size)")
            }
        }
    }

    @Test func fixedPointWeightsAndRounding() {
        // 4 -> 3 columns: s = 4/3, f = (d + 0.5) * 4/3 - 0.5 = 0.1667, 1.5, 2.8333.
        // d=0: c1 = round(0.1667 * 256) = 43 -> (213 * 0 + 43 * 100) = 4300 -> row edge: (4300 + 128) >> 8 = 17
        // d=1: c1 = 128 -> 128 * 100 + 128 * 200 = 38400 -> 150
        // d=2: i = 2, c1 = round(0.8333 * 256) = 213 -> 43 * 200 + 213 * 255 = 62915 -> 246 (rounded 245.76)
        let src = GrayImage(width: 4, height: 1, pixels: [0, 100, 200, 255])
        #expect(src.resizedLinearExact(width: 3, height: 1).pixels == [17, 150, 246])
        // Same size is a copy; halving is the 2x2 mean rounded half up ((a+b+c+d+2) >> 2).
        let sq = GrayImage(width: 2, height: 2, pixels: [10, 11, 12, 14])
        #expect(sq.resizedLinearExact(width: 2, height: 2) == sq)
        #expect(sq.resizedLinearExact(width: 1, height: 1).pixels == [12])
    }

    @Test func upscalingRepeatsEdges() {
        let src = GrayImage(width: 2, height: 2, pixels: [0, 255, 255, 0])
        let up = src.resizedLinearExact(width: 4, height: 4)
        // Values checked against cv2.resize(INTER_LINEAR_EXACT): corners replicate the source corners.
        #expect(up.pixels == [0, 64, 191, 255, 64, 96, 159, 191, 191, 159, 96, 64, 255, 191, 64, 0])
    }
}
