import Testing

@testable import Overlay

@Suite struct GuidanceRendererTests {
    static let (w, h) = (640, 360)

    /// The most opaque pixel in a 3x3 neighbourhood (antialiased 1-px lines straddle pixels).
    func strongest(_ img: BGRAImage, _ x: Int, _ y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        var best = img.pixel(x: x, y: y)
        for dy in -1...1 { for dx in -1...1 { let p = img.pixel(x: x + dx, y: y + dy); if p.a > best.a { best = p } } }
        return best
    }

    func drawing(well: Bool = false, score: Double = 0.5, advice: String = "move the subject left") -> GuidanceDrawing {
        GuidanceDrawing(
            subject: (0.5, 0.4, 0.2, 0.3), target: (1.0 / 3, 1.0 / 3), advice: advice, rule: "thirds",
            score: score, wellComposed: well, locked: false, grid: [])
    }

    @Test func boxColourFollowsTheVerdict() {
        let bad = GuidanceRenderer.render(drawing(), width: Self.w, height: Self.h)
        let good = GuidanceRenderer.render(drawing(well: true), width: Self.w, height: Self.h)
        // Left edge of the box: x = 320, mid-height of the box: y = 0.55 * 360 = 198.
        let b = strongest(bad, 320, 198), g = strongest(good, 320, 198)
        #expect(b.a > 120 && b.r > b.g && b.g > b.b)  // amber
        #expect(g.a > 120 && g.g > g.r && g.g > g.b)  // green
        // Inside the box: nothing drawn.
        #expect(bad.pixel(x: 380, y: 200).a == 0)
    }

    @Test func arrowRunsFromSubjectToTarget() {
        let img = GuidanceRenderer.render(drawing(advice: ""), width: Self.w, height: Self.h)
        // Subject centre (384, 198) -> target (213.3, 120): sample the middle of the segment.
        let mx = (384 + 213.3) / 2, my = (198 + 120) / 2.0
        #expect(strongest(img, Int(mx), Int(my)).a > 150)
        // Well away from the segment: transparent.
        #expect(img.pixel(x: Int(mx), y: Int(my) + 40).a == 0)
        // Well composed: no arrow.
        let good = GuidanceRenderer.render(drawing(well: true, advice: ""), width: Self.w, height: Self.h)
        #expect(strongest(good, Int(mx), Int(my)).a == 0)
    }

    @Test func adviceSitsOnABackdropAtTheBottom() {
        let img = GuidanceRenderer.render(drawing(), width: Self.w, height: Self.h)
        let bottom = img.countCovered(x: 0, y: Self.h - 40, width: Self.w, height: 40)
        let none = GuidanceRenderer.render(drawing(advice: ""), width: Self.w, height: Self.h).countCovered(
            x: 0, y: Self.h - 40, width: Self.w, height: 40)
        #expect(bottom > 2000)
        #expect(none == 0)
    }

    @Test func scoreBarLengthIsTheScore() {
        let half = GuidanceRenderer.render(drawing(score: 0.5, advice: ""), width: Self.w, height: Self.h)
        // Find the bar: the first row under the label whose pixel at x = pad + 2 is opaque amber.
        let pad = max(10, 36 * Double(Self.h) / 1080) / 2
        let barW = max(40, 300 * Double(Self.h) / 1080)
        var row = -1
        for y in 0..<80 {
            let p = half.pixel(x: Int(pad) + 2, y: y)
            if p.a > 200 && p.r > p.b + 100 { row = y; break }
        }
        #expect(row > 0)
        let filled = half.pixel(x: Int(pad + barW * 0.25), y: row + 1)
        let empty = half.pixel(x: Int(pad + barW * 0.75), y: row + 1)
        #expect(filled.r > 150)
        #expect(empty.r < 20 && empty.a > 100)  // the dark backdrop only
    }

    @Test func linesScaleWithHeight() {
        #expect(GuidanceRenderer.lineWidth(height: 1080) == 3)
        #expect(GuidanceRenderer.lineWidth(height: 360) == 1)
        #expect(GuidanceRenderer.lineWidth(height: 2160) == 6)
    }
}
