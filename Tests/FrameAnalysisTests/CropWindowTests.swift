import Testing

@testable import FrameAnalysis

/// `CropWindow`'s limits: a crop of the frame, or past it by at most `pad` of the output (bars).
@Suite struct CropWindowTests {
    let nine16 = 9.0 / 16

    @Test func aWindowThatFitsStaysInsideTheFrame() {
        // 300 px wide (533 tall) over 1280x720, asked at the top-left corner: moved in, not resized, no bars.
        let w = CropWindow(cx: 0, cy: 0, width: 300, aspect: nine16, pad: 0.2).clamped(frameWidth: 1280, frameHeight: 720)
        #expect(w.left == 0 && w.top == 0 && w.width == 300)
        #expect(!w.hasBars(frameWidth: 1280, frameHeight: 720))
    }

    @Test func aWindowTallerThanTheFrameIsCentredOnItWithBarsWithinPad() {
        // The widest crop of 1280x720 at 9:16 is 405 wide; pad 0.2 allows 405 / 0.8 = 506.25 (bars: 20 % of the height).
        let w = CropWindow(cx: 200, cy: 50, width: 450, aspect: nine16, pad: 0.2)
        #expect(w.maxWidth(frameWidth: 1280, frameHeight: 720) == 506.25)
        let c = w.clamped(frameWidth: 1280, frameHeight: 720)
        #expect(c.width == 450 && c.cx == 225 && c.cy == 360)
        #expect(c.top == 360 - 400 && c.bottom == 760 && c.hasBars(frameWidth: 1280, frameHeight: 720))
        // Wider than pad allows: shrunk to the limit; the bars are then exactly pad of the output's height.
        let big = CropWindow(cx: 640, cy: 360, width: 900, aspect: nine16, pad: 0.2).clamped(frameWidth: 1280, frameHeight: 720)
        #expect(big.width == 506.25 && abs((big.height - 720) / big.height - 0.2) < 1e-12)
        // pad 0: the widest crop, as before bars existed.
        let none = CropWindow(cx: 640, cy: 360, width: 450, aspect: nine16).clamped(frameWidth: 1280, frameHeight: 720)
        #expect(none.width == 405 && !none.hasBars(frameWidth: 1280, frameHeight: 720))
    }

    @Test func aWindowWiderThanAPortraitFrameIsCentredAcrossIt() {
        // 16:9 out of a 720x1280 phone frame: the widest crop is 720 wide; pad 0.2 allows 900 (pillarbox... here bars
        // left and right), centred on x, free along y.
        let w = CropWindow(cx: 100, cy: 2000, width: 800, aspect: 16.0 / 9, pad: 0.2).clamped(frameWidth: 720, frameHeight: 1280)
        #expect(w.cx == 360 && w.width == 800 && w.bottom == 1280)
        #expect(w.padded(frameWidth: 720, frameHeight: 1280).width == 900)
    }

    @Test func theDefaultWindowHasNoBars() {
        let w = CropWindow.widest(aspect: nine16, frameWidth: 1920, frameHeight: 1080, pad: 0.2)
        #expect(w.width == 607.5 && w.height == 1080 && !w.hasBars(frameWidth: 1920, frameHeight: 1080))
        #expect(CropWindow(cx: 0, cy: 0, width: 1, aspect: 1, pad: 3).pad == 0.5)
    }
}
