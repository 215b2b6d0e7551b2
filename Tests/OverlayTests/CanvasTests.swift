import Testing

@testable import Overlay

@Suite struct CanvasTests {
    private static let translucentRed = RGBAColor(red8: 255, green8: 0, blue8: 0, alpha8: 0x80)

    private func columns(_ image: BGRAImage, row y: Int) -> [Int] {
        (0..<image.width).filter { image.alpha(x: $0, y: y) != 0 }
    }

    @Test func newCanvasIsTransparentAndPacked() {
        let image = Canvas(width: 17, height: 9).image()
        #expect(image.width == 17 && image.height == 9)
        #expect(image.stride == 17 * 4)
        #expect(image.pixels.count == 17 * 4 * 9)
        #expect(image.isFullyTransparent)
    }

    @Test func fillThenClear() {
        let canvas = Canvas(width: 8, height: 8)
        canvas.fill(.white)
        let p = canvas.image().pixel(x: 7, y: 7)
        #expect(p.b == 255 && p.g == 255 && p.r == 255 && p.a == 255)
        canvas.clear()
        #expect(canvas.image().isFullyTransparent)
    }

    @Test func fillRectStoresPremultipliedColour() {
        let canvas = Canvas(width: 20, height: 20)
        canvas.fillRect(x: 5, y: 5, width: 10, height: 4, color: Self.translucentRed)
        let image = canvas.image()
        let p = image.pixel(x: 6, y: 6)
        #expect(p.b == 0 && p.g == 0 && p.r == 0x80 && p.a == 0x80)
        #expect(image.countCovered() == 40)
        #expect(image.alpha(x: 15, y: 6) == 0 && image.alpha(x: 6, y: 9) == 0)
    }

    @Test(arguments: [
        (10.7, 1.0, [10]), (10.0, 1.0, [10]), (10.7, 2.0, [10, 11]), (10.2, 2.0, [9, 10]),
        (10.7, 3.0, [9, 10, 11]), (10.5, 4.0, [9, 10, 11, 12]), (10.7, 0.3, [10]), (10.7, 1.6, [10, 11]),
    ])
    func verticalLinePlacement(x: Double, width: Double, expected: [Int]) {
        let canvas = Canvas(width: 24, height: 6)
        canvas.strokeVerticalLine(x: x, from: 0, to: 6, color: .white, width: width)
        let image = canvas.image()
        for y in 0..<6 {
            #expect(columns(image, row: y) == expected)
        }
        #expect(image.pixel(x: expected[0], y: 3).a == 255)
    }

    @Test func horizontalLinePlacementMatchesVertical() {
        let canvas = Canvas(width: 6, height: 24)
        canvas.strokeHorizontalLine(y: 10.2, from: 1, to: 5, color: .white, width: 2)
        let image = canvas.image()
        let rows = (0..<24).filter { image.alpha(x: 3, y: $0) != 0 }
        #expect(rows == [9, 10])
        #expect(image.countCovered() == 8)
    }

    @Test func strokeLineIsAntialiasedAndPassesThroughMidpoint() {
        let canvas = Canvas(width: 100, height: 100)
        canvas.strokeLine(from: (0, 0), to: (100, 100), color: .white, width: 2)
        let image = canvas.image()
        #expect(image.alpha(x: 50, y: 50) > 0xc0)
        #expect(image.alpha(x: 10, y: 10) > 0xc0)
        #expect(image.alpha(x: 80, y: 20) == 0)
        // Antialiasing leaves partially covered pixels next to the line.
        let partial = image.pixels.enumerated().filter { $0.offset % 4 == 3 && $0.element > 0 && $0.element < 255 }
        #expect(!partial.isEmpty)
    }

    @Test func strokeRectOutlinesOnly() {
        let canvas = Canvas(width: 40, height: 40)
        canvas.strokeRect(x: 10, y: 10, width: 20, height: 20, color: .white, lineWidth: 2)
        let image = canvas.image()
        #expect(image.alpha(x: 10, y: 20) == 255)
        #expect(image.alpha(x: 29, y: 30) == 255)
        #expect(image.alpha(x: 20, y: 20) == 0)
        #expect(image.alpha(x: 5, y: 5) == 0)
    }

    @Test func strokePathClosedTriangle() {
        let canvas = Canvas(width: 50, height: 50)
        canvas.strokePath(points: [(10, 10), (40, 10), (10, 40)], closed: true, color: .white, width: 2)
        let image = canvas.image()
        #expect(image.alpha(x: 25, y: 10) == 255)  // top edge
        #expect(image.alpha(x: 10, y: 25) == 255)  // left edge
        #expect(image.alpha(x: 25, y: 25) > 0)  // closing hypotenuse
        #expect(image.alpha(x: 17, y: 17) == 0)  // inside
    }

    @Test func fillPolygonAndCircle() {
        let canvas = Canvas(width: 50, height: 50)
        canvas.fillPolygon(points: [(0, 0), (20, 0), (0, 20)], color: .white)
        canvas.fillCircle(center: (35, 35), radius: 5, color: .white)
        let image = canvas.image()
        #expect(image.alpha(x: 3, y: 3) == 255)
        #expect(image.alpha(x: 18, y: 18) == 0)
        #expect(image.alpha(x: 35, y: 35) == 255)
        #expect(image.alpha(x: 35, y: 42) == 0)
    }

    @Test func strokeCircleAndArc() {
        let canvas = Canvas(width: 60, height: 60)
        canvas.strokeCircle(center: (30, 30), radius: 20, color: .white, width: 2)
        var image = canvas.image()
        #expect(image.alpha(x: 30, y: 30) == 0)
        #expect(image.alpha(x: 50, y: 30) > 0x80)
        #expect(image.alpha(x: 30, y: 10) > 0x80)
        canvas.clear()
        // Angles grow clockwise on screen: 0...π/2 is the bottom-right quarter.
        canvas.strokeArc(center: (30, 30), radius: 20, startAngle: 0, endAngle: Double.pi / 2, color: .white, width: 2)
        image = canvas.image()
        #expect(image.alpha(x: 44, y: 44) > 0x40)
        #expect(image.countCovered(x: 0, y: 0, width: 60, height: 29) == 0)
        #expect(image.countCovered(x: 0, y: 0, width: 29, height: 60) == 0)
    }

    @Test func textRendersInsideItsExtentOnly() {
        let canvas = Canvas(width: 320, height: 240)
        let x = 40.0, y = 60.0
        let size = canvas.drawText("Viewfinder 123", x: x, y: y, fontSize: 24, color: .white, backdrop: nil)
        #expect(size.width > 100 && size.width < 300)
        #expect(size.height >= 24 && size.height < 48)
        let image = canvas.image()
        let inside = image.countCovered(
            x: Int(x), y: Int(y), width: Int(size.width.rounded(.up)),
            height: Int(size.height.rounded(.up)))
        #expect(inside > 200)
        #expect(inside == image.countCovered(), "ink found outside the returned extent")
        // Fully opaque white glyph pixels exist (stems are wider than a pixel).
        #expect(image.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element == 255 })
        #expect(canvas.measureText("Viewfinder 123", fontSize: 24) == size)
    }

    @Test func backdropFillsPaddedRoundedBoxBehindText() {
        let canvas = Canvas(width: 320, height: 240)
        let backdrop = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.5)
        let plain = canvas.measureText("Hi", fontSize: 20)
        let size = canvas.drawText("Hi", x: 20, y: 30, fontSize: 20, color: .yellow, backdrop: backdrop)
        #expect(size == canvas.measureText("Hi", fontSize: 20, backdrop: true))
        #expect(size.width == plain.width + 10 && size.height == plain.height + 10)  // padding 5 a side
        let image = canvas.image()
        // Top padding row, centre: backdrop colour only (black at alpha 0x80, premultiplied).
        let p = image.pixel(x: 20 + Int(size.width / 2), y: 32)
        #expect(p.b == 0 && p.g == 0 && p.r == 0 && p.a == 0x80)
        // Rounded corner: the very corner pixel stays clear.
        #expect(image.alpha(x: 20, y: 30) == 0)
        // Yellow text pixels exist over the backdrop (premultiplied yellow: b = 0, r = g > 0x80).
        let yellowish = (0..<Int(size.height)).contains { dy in
            (0..<Int(size.width)).contains { dx in
                let q = image.pixel(x: 20 + dx, y: 30 + dy)
                return q.b == 0 && q.r > 0xc0 && q.g > 0xc0 && q.a == 255
            }
        }
        #expect(yellowish)
        let inside = image.countCovered(x: 20, y: 30, width: Int(size.width), height: Int(size.height))
        #expect(inside == image.countCovered())
    }

    @Test func multilineTextIsTaller() {
        let canvas = Canvas(width: 10, height: 10)
        let one = canvas.measureText("line", fontSize: 16)
        let two = canvas.measureText("line\nline", fontSize: 16)
        #expect(two.height > one.height * 1.8)
        #expect(two.width == one.width)
    }
}
