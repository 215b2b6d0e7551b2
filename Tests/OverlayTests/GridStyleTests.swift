import Testing

@testable import Overlay

@Suite struct GridStyleTests {
    @Test func defaults() {
        let style = GridStyle()
        #expect(style.lines == [.thirds])
        #expect(style.width == 2)
        #expect(style.color.hex == "#ffffffbf")
    }

    @Test(arguments: [
        (2.0, 1080, 2.0), (2.0, 720, 1.0), (2.0, 2160, 4.0), (2.0, 240, 1.0),
        (3.0, 720, 2.0), (3.0, 2160, 6.0), (0.0, 1080, 1.0), (1.5, 1080, 2.0),
    ])
    func lineWidthScalesWithHeight(width: Double, height: Int, expected: Double) {
        #expect(GridStyle(width: width).lineWidth(forHeight: height) == expected)
    }
}
