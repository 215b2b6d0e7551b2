import Testing

@testable import FrameAnalysis

@Suite struct SobelTests {
    @Test func aVerticalStepHasItsGradientOnTheStepOnly() {
        // 8x6: columns 0-3 at 10, 4-7 at 60.
        let g = GrayImage(width: 8, height: 6, pixels: (0..<48).map { $0 % 8 < 4 ? 10 : 60 })
        let s = Sobel(g)
        // Columns 3 and 4 see the step: (1 + 2 + 1) * 50 = 200 across, nothing down.
        #expect(s.gx[2 * 8 + 3] == 200 && s.gx[2 * 8 + 4] == 200 && s.gx[2 * 8 + 2] == 0)
        #expect(s.gy.allSatisfy { $0 == 0 })
        // Interior 6x4 = 24 pixels, 8 on the step: mean 8 * 200 / 24.
        #expect(s.count == 24 && s.magnitudeSum == 1600)
        // A margin of 2 leaves 4x2 pixels, 4 on the step.
        let m = Sobel(g, marginX: 2, marginY: 2)
        #expect(m.count == 8 && m.magnitudeSum == 800 && m.gx[0] == 0)
    }
}
