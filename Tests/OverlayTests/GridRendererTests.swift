import Testing

@testable import Overlay

@Suite struct GridRendererTests {
    /// White at alpha 0xc0: premultiplied, every byte is 0xc0.
    private static let white75 = RGBAColor(red8: 255, green8: 255, blue8: 255, alpha8: 0xc0)

    private func isWhite75(_ p: (b: UInt8, g: UInt8, r: UInt8, a: UInt8)) -> Bool {
        p.b == 0xc0 && p.g == 0xc0 && p.r == 0xc0 && p.a == 0xc0
    }

    private func coloredColumns(_ image: BGRAImage, row y: Int) -> [Int] {
        (0..<image.width).filter { image.alpha(x: $0, y: y) != 0 }
    }

    private func coloredRows(_ image: BGRAImage, column x: Int) -> [Int] {
        (0..<image.height).filter { image.alpha(x: x, y: $0) != 0 }
    }

    @Test(arguments: [(1280, 720), (320, 240), (321, 241), (1279, 719), (1920, 1080)])
    func thirdsFillExactColumnsAndRows(width: Int, height: Int) {
        let style = GridStyle(lines: [.thirds], color: Self.white75, width: 1)
        let image = GridRenderer.render(style, width: width, height: height)
        let xs = [Int(Double(width) / 3), Int(2 * Double(width) / 3)]
        let ys = [Int(Double(height) / 3), Int(2 * Double(height) / 3)]
        for x in xs {
            #expect((0..<height).allSatisfy { isWhite75(image.pixel(x: x, y: $0)) }, "column \(x)")
        }
        for y in ys {
            #expect((0..<width).allSatisfy { isWhite75(image.pixel(x: $0, y: y)) }, "row \(y)")
        }
        // Exactly one pixel wide, nothing else coloured.
        #expect(coloredColumns(image, row: 5) == xs)
        #expect(coloredRows(image, column: 5) == ys)
        #expect(image.countCovered() == 2 * height + 2 * width - 4)
        // The centre column is transparent except where it crosses the horizontal thirds.
        #expect(coloredRows(image, column: width / 2) == ys)
    }

    @Test func thirdsAt1080pWithDefaultWidthAreTwoPixelsOnTheThird() {
        let image = GridRenderer.render(GridStyle(lines: [.thirds], color: Self.white75), width: 1920, height: 1080)
        #expect(coloredColumns(image, row: 7) == [639, 640, 1279, 1280])
        #expect(coloredRows(image, column: 7) == [359, 360, 719, 720])
        #expect(isWhite75(image.pixel(x: 640, y: 360)))  // crossing not doubled
    }

    @Test func goldenColumnsAtPhiFractions() {
        let (w, h) = (1280, 720)
        let image = GridRenderer.render(GridStyle(lines: [.golden], color: Self.white75, width: 1), width: w, height: h)
        let small = 1 / (GoldenSpiral.phi * GoldenSpiral.phi)  // 0.381966...
        let xs = [Int(Double(w) * small), Int(Double(w) * (1 - small))]
        let ys = [Int(Double(h) * small), Int(Double(h) * (1 - small))]
        #expect(xs == [488, 791] && ys == [275, 444])
        #expect(coloredColumns(image, row: 3) == xs)
        #expect(coloredRows(image, column: 3) == ys)
        for x in xs { #expect((0..<h).allSatisfy { isWhite75(image.pixel(x: x, y: $0)) }) }
        for y in ys { #expect((0..<w).allSatisfy { isWhite75(image.pixel(x: $0, y: y)) }) }
        // Neither a third nor the centre.
        #expect(image.alpha(x: 426, y: 3) == 0 && image.alpha(x: 640, y: 3) == 0)
    }

    @Test func lineThicknessScalesWithHeight() {
        let style = GridStyle(lines: [.thirds], color: Self.white75, width: 3)
        let small = GridRenderer.render(style, width: 640, height: 720)
        let large = GridRenderer.render(style, width: 640, height: 2160)
        // 3 px at 1080p -> 2 px at 720p, 6 px at 2160p; two vertical lines per row.
        #expect(coloredColumns(small, row: 10).count == 2 * 2)
        #expect(coloredColumns(large, row: 10).count == 2 * 6)
        #expect(coloredRows(large, column: 10).count == 2 * 6)
        // The 6-px band straddles the third: columns 210...215 for 640/3 = 213.3.
        #expect(Array(coloredColumns(large, row: 10).prefix(6)) == Array(210...215))
    }

    @Test func centerLinesAreFullLength() {
        let (w, h) = (1280, 720)
        let image = GridRenderer.render(GridStyle(lines: [.center], color: Self.white75, width: 1), width: w, height: h)
        #expect(coloredColumns(image, row: 0) == [w / 2])
        #expect(coloredRows(image, column: 0) == [h / 2])
        #expect((0..<h).allSatisfy { isWhite75(image.pixel(x: w / 2, y: $0)) })
        #expect((0..<w).allSatisfy { isWhite75(image.pixel(x: $0, y: h / 2)) })
    }

    @Test func crosshairIsShortAndCentred() {
        let (w, h) = (1280, 720)
        let image = GridRenderer.render(GridStyle(lines: [.crosshair], color: Self.white75, width: 1), width: w, height: h)
        let length = GridRenderer.crosshairLength(width: w, height: h)
        #expect(length == 29)  // 4% of 720 = 28.8
        #expect(isWhite75(image.pixel(x: w / 2, y: h / 2)))
        let rows = coloredRows(image, column: w / 2)
        let cols = coloredColumns(image, row: h / 2)
        #expect(rows.count >= 28 && rows.count <= 30)
        #expect(cols.count >= 28 && cols.count <= 30)
        #expect(rows.first! >= h / 2 - 15 && rows.last! <= h / 2 + 15)
        #expect(image.countCovered() == rows.count + cols.count - 1)
        #expect(image.alpha(x: w / 2, y: 10) == 0)
    }

    @Test func diagonalsCrossAtTheCentrePixel() {
        let (w, h) = (1280, 720)
        let image = GridRenderer.render(GridStyle(lines: [.diagonals], color: .white, width: 2), width: w, height: h)
        #expect(image.alpha(x: w / 2, y: h / 2) > 0x80)
        #expect(image.alpha(x: w / 4, y: h / 4) > 0x80)
        // The anti-diagonal crosses column 3w/4 at y = h/4, one or two pixels thick.
        // (The main diagonal crosses the same column at 3h/4.)
        let rows = coloredRows(image, column: 3 * w / 4).filter { image.alpha(x: 3 * w / 4, y: $0) > 0x80 && $0 < h / 2 }
        #expect(!rows.isEmpty && rows.allSatisfy { abs($0 - h / 4) <= 2 })
        #expect(image.alpha(x: w / 2, y: 10) == 0)
        #expect(image.alpha(x: 10, y: h / 2) == 0)
    }

    @Test func noneAndEmptyDrawNothing() {
        #expect(GridRenderer.render(GridStyle(lines: [.none]), width: 64, height: 48).isFullyTransparent)
        #expect(GridRenderer.render(GridStyle(lines: []), width: 64, height: 48).isFullyTransparent)
    }

    @Test func drawComposesOntoExistingCanvas() {
        let canvas = Canvas(width: 90, height: 60)
        canvas.fillRect(x: 0, y: 0, width: 5, height: 5, color: .red)
        GridRenderer.draw(GridStyle(lines: [.thirds], color: .white, width: 1), on: canvas)
        let image = canvas.image()
        #expect(image.pixel(x: 1, y: 1).r == 255 && image.pixel(x: 1, y: 1).b == 0)
        #expect(image.alpha(x: 30, y: 40) == 255)
    }

    /// Coloured pixels in each quadrant, in the order top-left, top-right, bottom-left, bottom-right.
    private func quadrantCounts(_ image: BGRAImage) -> [Int] {
        let hw = image.width / 2, hh = image.height / 2
        return [(0, 0), (hw, 0), (0, hh), (hw, hh)].map {
            image.countCovered(x: $0.0, y: $0.1, width: hw, height: hh)
        }
    }

    @Test(arguments: [
        (GridLine.spiralTopLeft, 0), (.spiralTopRight, 1), (.spiralBottomLeft, 2), (.spiralBottomRight, 3),
    ])
    func spiralEyeLiesInTheNamedQuadrant(line: GridLine, quadrant: Int) {
        for (w, h) in [(1280, 720), (240, 320)] {
            let image = GridRenderer.render(GridStyle(lines: [line], color: .white, width: 2), width: w, height: h)
            let eye = line.spiral!.eye(width: Double(w), height: Double(h))
            let expectedX = quadrant % 2 == 0 ? GoldenSpiral.eyeFraction : 1 - GoldenSpiral.eyeFraction
            let expectedY = quadrant < 2 ? GoldenSpiral.eyeFraction : 1 - GoldenSpiral.eyeFraction
            #expect(abs(eye.x - expectedX * Double(w)) < 1e-6 && abs(eye.y - expectedY * Double(h)) < 1e-6)
            // Dense region: a box of 1/8 of each side around the eye holds many coloured pixels; the same
            // box mirrored into the other three quadrants holds far fewer.
            let bw = w / 8, bh = h / 8
            func boxCount(_ cx: Double, _ cy: Double) -> Int {
                image.countCovered(x: Int(cx) - bw / 2, y: Int(cy) - bh / 2, width: bw, height: bh)
            }
            let mirrors = [
                (eye.x, eye.y), (Double(w) - eye.x, eye.y), (eye.x, Double(h) - eye.y),
                (Double(w) - eye.x, Double(h) - eye.y),
            ]
            let atEye = boxCount(eye.x, eye.y)
            for m in mirrors.dropFirst() {
                #expect(atEye > 2 * boxCount(m.0, m.1), "\(line) \(w)x\(h)")
            }
            // The eye quadrant holds the most coloured pixels overall.
            let counts = quadrantCounts(image)
            #expect(counts.firstIndex(of: counts.max()!) == quadrant, "\(line) \(w)x\(h): \(counts)")
        }
    }

    @Test func spiralTopLeftLargestArcPassesThroughExpectedPoints() {
        // Canonical first arc: centre (φ-1, 0), radius 1, from the top-right corner to (φ-1, 1).
        let (w, h) = (1280.0, 720.0)
        let image = GridRenderer.render(GridStyle(lines: [.spiralTopLeft], color: .white, width: 3), width: Int(w), height: Int(h))
        let phi = GoldenSpiral.phi
        let mid = ((phi - 1 + 0.5.squareRoot()) / phi * w, 0.5.squareRoot() * h)  // arc at 45°
        #expect(image.alpha(x: Int(mid.0), y: Int(mid.1)) > 0x80)
        // It touches the bottom edge (tangentially) at x = (φ-1)/φ · w = 0.382 w.
        #expect(image.alpha(x: Int((phi - 1) / phi * w) + 3, y: Int(h) - 1) > 0x80)
        // The bottom-right corner region is outside the arc and empty.
        #expect(image.countCovered(x: Int(w) - 60, y: Int(h) - 60, width: 60, height: 60) == 0)
    }

    @Test func spiralsAreAntialiased() {
        let image = GridRenderer.render(GridStyle(lines: [.spiralBottomRight], color: .white, width: 2), width: 320, height: 240)
        #expect(image.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element > 0 && $0.element < 0xff })
    }
}
