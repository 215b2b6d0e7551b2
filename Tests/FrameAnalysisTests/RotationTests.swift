import Testing

@testable import FrameAnalysis

/// In-plane rotation of images and the mapping of points and boxes between the two frames.
@Suite struct RotationTests {
    @Test func quarterTurnMovesTheTopRightCornerToTheTopLeft() {
        // Counter-clockwise as displayed (y down): the point right of the centre goes up.
        let r = Rotation(degrees: 90, width: 5, height: 5)
        let p = r.forward(x: 4, y: 2)
        #expect(abs(p.x - 2) < 1e-9 && abs(p.y - 0) < 1e-9)
        let q = r.inverse(x: p.x, y: p.y)
        #expect(abs(q.x - 4) < 1e-9 && abs(q.y - 2) < 1e-9)
    }

    @Test func rotatingAnImageMovesItsContentLikeTheMapping() {
        var g = GrayImage(width: 9, height: 9, value: 0)
        g[8, 4] = 200
        let rotated = g.rotated(degrees: 90)
        #expect(rotated[4, 0] == 200)
        #expect(rotated.pixels.filter { $0 > 0 }.count == 1)
        let rgb = RGBImage(width: 9, height: 9, pixels: (0..<243).map { $0 % 3 == 0 ? (($0 / 3) == 40 ? 250 : 0) : 0 })
        #expect(rgb.rotated(degrees: 90).rgb(x: 4, y: 4).r == 250)  // the centre stays put
        #expect(g.rotated(degrees: 0) == g)
    }

    @Test func boxesMapBackByTheirCentres() {
        let r = Rotation(degrees: 20, width: 640, height: 480)
        let box = Box(x: 72, y: 91, width: 39, height: 39)
        let there = r.forward(box)
        #expect(there.width == 39 && there.height == 39)
        let back = r.inverse(there)
        #expect(abs(back.x - box.x) < 1e-9 && abs(back.y - box.y) < 1e-9)
        // The centre (91.5 - 0.5, 110.5 - 0.5) rotated 20 degrees about (319.5, 239.5).
        let c = r.forward(x: 91, y: 110)
        #expect(abs(there.x + 19.5 - 0.5 - c.x) < 1e-9 && abs(there.y + 19.5 - 0.5 - c.y) < 1e-9)
    }

    @Test func bilinearSamplingInterpolates() {
        // A horizontal ramp rotated by 180 degrees is the reversed ramp.
        let ramp = GrayImage(width: 8, height: 3, pixels: (0..<24).map { UInt8(($0 % 8) * 30) })
        let turned = ramp.rotated(degrees: 180)
        for x in 0..<8 { #expect(turned[x, 1] == UInt8((7 - x) * 30)) }
    }
}
