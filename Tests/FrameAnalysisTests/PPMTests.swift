import Testing

@testable import FrameAnalysis

/// `RGBImage(ppm:)`: the binary PPM reader the tests and `bench faces` load the real photos with.
@Suite struct PPMTests {
    static func bytes(_ header: String, _ pixels: [UInt8]) -> [UInt8] { Array(header.utf8) + pixels }

    @Test func readsAHeaderWithACommentAndThePixels() throws {
        let img = try RGBImage(ppm: Self.bytes("P6\n# made by hand\n2 1\n255\n", [255, 0, 0, 1, 2, 3]))
        #expect(img.width == 2 && img.height == 1 && img.pixels == [255, 0, 0, 1, 2, 3])
        #expect(img.rgb(x: 1, y: 0) == (1, 2, 3))
    }

    @Test func badFilesAreNamedNotCrashed() {
        #expect(throws: RGBImage.PPMError.self) { try RGBImage(ppm: Self.bytes("P3\n1 1\n255\n", [0, 0, 0])) }
        do {
            _ = try RGBImage(ppm: Self.bytes("P6\n2 2\n255\n", [0, 0, 0]))
            Issue.record("short pixel data was accepted")
        } catch { #expect(error.description == "PPM data: expected 12 bytes of pixels for 2x2, found 3") }
        do {
            _ = try RGBImage(ppm: Self.bytes("P6\n2 2\n65535\n", []))
            Issue.record("maxval 65535 was accepted")
        } catch { #expect(error.description.contains("maxval 255")) }
        do {
            _ = try RGBImage(ppm: Self.bytes("P6\n2", []))
            Issue.record("a cut header was accepted")
        } catch { #expect(error.description.contains("expected width, height and maxval")) }
        #expect(throws: RGBImage.PPMError.self) { try RGBImage(ppm: Self.bytes("P6\nx 2 255\n", [])) }
    }
}
