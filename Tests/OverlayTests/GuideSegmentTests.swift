import Overlay
import Testing

/// A rule's own guide lines (`GuideSegment`) drawn by `GridRenderer`.
@Suite struct GuideSegmentTests {
    static let color = RGBAColor(red: 1, green: 1, blue: 1, alpha: 0.5)

    static func axes(_ fractions: [Double]) -> [GuideSegment] {
        fractions.map { GuideSegment(x0: $0, y0: 0, x1: $0, y1: 1) } + fractions.map { GuideSegment(x0: 0, y0: $0, x1: 1, y1: $0) }
    }

    static let small: Double = 1 / (GoldenSpiral.phi * GoldenSpiral.phi)
    static let families: [(GridLine, [Double])] = [(.thirds, [1.0 / 3, 2.0 / 3]), (.golden, [small, 1 - small]), (.center, [0.5])]

    /// Full-frame guides at the thirds, phi and centre fractions give exactly the pixels of those grid families.
    @Test(arguments: [0, 1, 2])
    func fullFrameGuidesMatchTheGridFamilies(index: Int) {
        let (line, fractions) = Self.families[index]
        for (w, h) in [(640, 360), (1920, 1080), (333, 201)] {
            let family = GridRenderer.render(GridStyle(lines: [line], color: Self.color, width: 2), width: w, height: h)
            let guides = GridRenderer.render(
                GridStyle(lines: [], guides: Self.axes(fractions), color: Self.color, width: 2), width: w, height: h)
            #expect(family == guides, "\(line) at \(w)x\(h)")
        }
    }

    @Test func aSlantedGuideIsDrawnAlongItsPath() {
        let image = GridRenderer.render(
            GridStyle(lines: [], guides: [GuideSegment(x0: 0, y0: 0, x1: 1, y1: 1)], color: .white, width: 2),
            width: 200, height: 100)
        #expect(image.alpha(x: 100, y: 50) > 200)  // on the diagonal
        #expect(image.alpha(x: 100, y: 10) == 0)  // off it
        #expect(image.alpha(x: 20, y: 90) == 0)
    }

    @Test func fullLinesAreRecognised() {
        #expect(GuideSegment(x0: 0.4, y0: 1, x1: 0.4, y1: 0).isFullVertical)
        #expect(!GuideSegment(x0: 0.4, y0: 0.2, x1: 0.4, y1: 1).isFullVertical)
        #expect(GuideSegment(x0: 0, y0: 0.7, x1: 1, y1: 0.7).isFullHorizontal)
    }
}
