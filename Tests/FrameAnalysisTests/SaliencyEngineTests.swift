import Foundation
import Testing

@testable import FrameAnalysis

@Suite struct SaliencyEngineTests {
    /// One bright disc (r = 14 px, value 250) on a 2x2-block noise texture (100 ± 30), 320x180.
    static func discFrame(cx: Double, cy: Double) -> (RGBImage, Box) {
        var g = CompositionTestFrames.texture(width: 320, height: 180)
        CompositionTestFrames.disc(&g, cx: cx, cy: cy, r: 14, value: 250)
        return (CompositionTestFrames.rgb(g), Box(x: cx - 14, y: cy - 14, width: 28, height: 28))
    }

    static func contains(_ outer: Box, _ inner: Box) -> Bool {
        outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.width >= inner.x + inner.width
            && outer.y + outer.height >= inner.y + inner.height
    }

    @Test func brightObjectOnTextureIsTheSalientRegion() {
        let (frame, disc) = Self.discFrame(cx: 230, cy: 70)
        let found = SaliencyEngine().detect(in: frame)
        #expect(found.count == 1)
        let r = try! #require(found.first)
        #expect(r.kind == .salient)
        // Measured: region (195, 35) 70x70 around the disc (216, 56) 28x28 -- the whole disc, widened by
        // the map's Gaussian (σ 2.5 map px = 12.5 px here) on each side.
        #expect(Self.contains(r.box, disc))
        #expect(r.box.width <= 3 * disc.width && r.box.height <= 3 * disc.height)
        #expect(abs(r.box.center.x - 230) <= 8 && abs(r.box.center.y - 70) <= 8)
        #expect(r.confidence > 0.3 && r.confidence <= 1)
    }

    @Test func regionFollowsTheObject() {
        for (cx, cy) in [(60.0, 50.0), (160.0, 120.0), (270.0, 140.0)] {
            let (frame, disc) = Self.discFrame(cx: cx, cy: cy)
            let r = try! #require(SaliencyEngine().detect(in: frame).first)
            #expect(Self.contains(r.box, disc), "disc at \(cx),\(cy): region \(r.box)")
            #expect(r.box.width <= 3 * disc.width && r.box.height <= 3 * disc.height, "region \(r.box)")
        }
    }

    @Test func mapIs64PixelsWideKeepsAspectAndPeaksOnTheObject() {
        let (frame, _) = Self.discFrame(cx: 230, cy: 70)
        let map = SaliencyEngine().saliencyMap(frame)
        #expect(map.width == 64 && map.height == 36)
        #expect(map.pixels.max() == 255 && map.pixels.min() == 0)
        let peak = map.pixels.firstIndex(of: 255)!
        // The disc is at (230, 70) -> map (46, 14); the peak lies on it.
        #expect(abs(peak % 64 - 46) <= 3 && abs(peak / 64 - 14) <= 3)
    }

    @Test func featurelessFrameHasNoRegion() {
        let flat = RGBImage(width: 160, height: 90, pixels: [UInt8](repeating: 128, count: 160 * 90 * 3))
        #expect(SaliencyEngine().detect(in: flat).isEmpty)
        #expect(SaliencyEngine().saliencyMap(flat).pixels.allSatisfy { $0 == 0 })
    }

    /// astronaut.png (scikit-image, 512x512): the astronaut fills roughly the left two thirds; the map
    /// was rendered to PNG and inspected: with colour it lights the orange suit, badge and helmet; the
    /// region found is (80, 192) 384x296, the suit from the collar down plus the helmet she holds.
    @Test func astronautRegionIsOnThePerson() throws {
        let image = try TestImages.rgb("astronaut")
        let r = try #require(SaliencyEngine().detect(in: image).first)
        let person = Box(x: 0, y: 0, width: 341, height: 512)
        let inter = Box(
            x: max(r.box.x, 0), y: max(r.box.y, 0),
            width: min(r.box.x + r.box.width, person.width) - max(r.box.x, 0),
            height: min(r.box.y + r.box.height, person.height) - max(r.box.y, 0)
        ).area
        #expect(person.x...(person.x + person.width) ~= r.box.center.x)  // centre on the person
        #expect(inter / r.box.area >= 0.6)  // mostly the person
        #expect(r.box.iou(person) >= 0.3)
        #expect(r.box.area < 0.6 * 512 * 512)  // not the whole frame
    }

    @Test func lumaOnlyVariantFollowsThePaper() throws {
        // Without colour planes the map is the paper's luma-only method: still finds the disc.
        let (frame, disc) = Self.discFrame(cx: 100, cy: 100)
        let r = try #require(SaliencyEngine(opponentColour: false).detect(luma: frame.gray).first)
        #expect(Self.contains(r.box, disc))
        #expect(r.box.width <= 3 * disc.width && r.box.height <= 3 * disc.height)
    }
}
