import Testing

@testable import Overlay

@Suite struct BGRAImageTests {
    @Test func pixelHonoursStride() {
        // 2x2 image with 4 bytes of row padding.
        var bytes = [UInt8](repeating: 0, count: 12 * 2)
        bytes[12 + 4..<12 + 8] = [1, 2, 3, 4]  // pixel (1, 1)
        let image = BGRAImage(width: 2, height: 2, stride: 12, pixels: bytes)
        let p = image.pixel(x: 1, y: 1)
        #expect(p.b == 1 && p.g == 2 && p.r == 3 && p.a == 4)
        #expect(image.alpha(x: 0, y: 1) == 0)
        #expect(image.countCovered() == 1)
        #expect(!image.isFullyTransparent)
    }

    @Test func transparentInitIsPackedAndEmpty() {
        let image = BGRAImage(transparentWidth: 5, height: 3)
        #expect(image.stride == 20)
        #expect(image.pixels.count == 60)
        #expect(image.isFullyTransparent)
        #expect(image.countCovered() == 0)
    }

    @Test func countCoveredClipsToImage() {
        var image = BGRAImage(transparentWidth: 4, height: 4)
        for y in 0..<4 { image.pixels[y * image.stride + 3 * 4 + 3] = 255 }  // column 3 opaque
        #expect(image.countCovered() == 4)
        #expect(image.countCovered(x: 2, y: 1, width: 10, height: 2) == 2)
        #expect(image.countCovered(x: 0, y: 0, width: 3, height: 4) == 0)
        #expect(image.countCovered(x: -5, y: -5, width: 3, height: 3) == 0)
    }

    @Test func equalityComparesPixels() {
        let a = BGRAImage(transparentWidth: 2, height: 2)
        var b = a
        #expect(a == b)
        b.pixels[3] = 1
        #expect(a != b)
    }
}
