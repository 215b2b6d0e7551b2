import Overlay
import Testing

@Suite struct StatusLabelTests {
    @Test func marginGrowsWithTheFrameFromFourPixels() {
        #expect(StatusLabel.margin(height: 120) == 4)
        #expect(StatusLabel.margin(height: 720) == 12)
    }

    @Test func labelFitsTheFrameWidthLessTheMargin() {
        let white = RGBAColor(red: 1, green: 1, blue: 1, alpha: 1)
        let short = StatusLabel.labelImage("ready", width: 640, height: 480, color: white)
        #expect(short.width > 10 && short.width < 200)
        #expect(short.height > 0 && short.height <= 480)
        let long = StatusLabel.labelImage(String(repeating: "looking for a subject ", count: 20), width: 160, height: 120, color: white)
        #expect(long.width == 160 - StatusLabel.margin(height: 120))
    }

    @Test func countdownDigitIsCentred() {
        let d = StatusLabel.countdownImage(3, width: 640, height: 480)
        #expect(d.image.height > 100 && d.image.height <= 480)
        #expect(d.x == (640 - d.image.width) / 2)
        #expect(d.y == (480 - d.image.height) / 2)
    }
}
