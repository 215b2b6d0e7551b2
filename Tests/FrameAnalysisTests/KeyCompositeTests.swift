import Testing

@testable import FrameAnalysis

/// Building green-screen frames from a photo and a mask.
@Suite struct KeyCompositeTests {
    static let photo = RGBImage(width: 4, height: 2, pixels: [UInt8](repeating: 200, count: 24))

    @Test func hardEdgesPasteTheSubjectOverTheScreen() {
        let mask = [true, true, false, false, true, false, false, false]
        let c = KeyComposite(photo: Self.photo, mask: mask, screen: .pureGreen)
        #expect(c.truth == mask)
        #expect(Array(c.rgba[0..<8]) == [200, 200, 200, 255, 200, 200, 200, 255])
        #expect(Array(c.rgba[8..<12]) == [0, 255, 0, 255])
        #expect(c.iou(alpha: [255, 255, 0, 0, 255, 0, 0, 0]) == 1)
        #expect(c.iou(alpha: [255, 0, 0, 0, 255, 255, 0, 0]) == 0.5)  // 2 shared of 4
    }

    @Test func softEdgesMixAndTheTruthIsHalfCoverage() {
        let w = 40, h = 10
        let photo = RGBImage(width: w, height: h, pixels: [UInt8](repeating: 100, count: w * h * 3))
        let mask = (0..<(w * h)).map { $0 % w < 20 }
        let c = KeyComposite(photo: photo, mask: mask, screen: .pureGreen, softEdge: 1)
        // Left of the edge mostly subject, right mostly screen; the truth splits at half coverage.
        let row = 5 * w
        let g = (17..<23).map { Int(c.rgba[(row + $0) * 4 + 1]) }
        #expect(g == g.sorted() && g.first! < 120 && g.last! > 240)
        #expect(c.truth[row + 19] && !c.truth[row + 20])
    }

    @Test func aVariedScreenStaysWithinItsBrightnessRange() {
        let w = 64, h = 48
        let photo = RGBImage(width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h * 3))
        let c = KeyComposite(
            photo: photo, mask: [Bool](repeating: false, count: w * h), screen: .init(r: 20, g: 190, b: 40, variation: 0.15))
        let greens = stride(from: 1, to: c.rgba.count, by: 4).map { Double(c.rgba[$0]) }
        #expect(greens.min()! >= 190 * 0.85 - 1 && greens.max()! <= 190 * 1.15 + 1)
        #expect(greens.max()! - greens.min()! > 190 * 0.25)
    }
}
