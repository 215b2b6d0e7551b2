import GStreamerKit
import StageTesting
import Testing

@testable import Stages

@Suite struct RinglightStageTests {
    static func rgbaPixel(_ f: VideoFrame, _ x: Int, _ y: Int) throws -> [Int] {
        let p = try f.planeBytes(plane: 0)
        return (0..<3).map { Int(p.bytes[y * p.rowBytes + x * 4 + $0]) }
    }

    @Test func whiteBorderAtOpacityOnRGBAInsideUntouched() throws {
        let h = try StageHarness(kind: "ringlight", info: VideoInfo(format: "RGBA", width: 640, height: 360))
        let f = try h.push()
        // 40 px at 1080p is 13 px at 360p; white at 80 % over black is 204.
        #expect(RinglightStage.borderWidth(40, height: 360) == 13)
        for (x, y) in [(0, 0), (5, 180), (12, 180), (634, 200), (320, 5), (320, 354)] {
            #expect(try Self.rgbaPixel(f, x, y).allSatisfy { abs($0 - 204) <= 2 }, "border at \(x),\(y)")
        }
        for (x, y) in [(13, 180), (320, 180), (626, 180), (320, 13), (320, 346)] {
            #expect(try Self.rgbaPixel(f, x, y) == [0, 0, 0], "inside at \(x),\(y)")
        }
    }

    @Test func presetColourAndOpacityOnI420() throws {
        let h = try StageHarness(
            kind: "ringlight", properties: [("preset", "golden-hour"), ("opacity", "50"), ("width", "120")],
            info: VideoInfo(format: "I420", width: 640, height: 360))
        let f = try h.push()
        let y = try f.planeBytes(plane: 0)
        // golden-hour #ffc56b at 50 % over black (Y 16): Y of the colour (BT.601 limited) is
        // 16 + (65.481*1 + 128.553*0.773 + 24.966*0.420) = 191.0, so the blend gives (16 + 191) / 2 = 103.5.
        let border = Int(y.bytes[180 * y.rowBytes + 10]), inside = Int(y.bytes[180 * y.rowBytes + 320])
        #expect(abs(border - 104) <= 2, "Y \(border)")
        #expect(inside == 16)
        // 120 px at 1080p is 40 px at 360p: x = 39 is border, x = 40 is not.
        #expect(abs(Int(y.bytes[180 * y.rowBytes + 39]) - 104) <= 2)
        #expect(Int(y.bytes[180 * y.rowBytes + 40]) == 16)
    }

    @Test func customColourWhilePlayingAndDisable() throws {
        let h = try StageHarness(
            kind: "ringlight", properties: [("opacity", "100")], info: VideoInfo(format: "RGBA", width: 320, height: 180))
        #expect(try Self.rgbaPixel(h.push(), 2, 90) == [255, 255, 255])
        try h.stages[0].stage.update("color", value: .color(.init(red: 1, green: 0, blue: 0, alpha: 1)))
        #expect(try Self.rgbaPixel(h.push(), 2, 90) == [255, 0, 0])
        try h.stages[0].stage.update("enabled", value: .bool(false))
        let off = try h.push()
        #expect(h.overlays(ofFrame: off.index).isEmpty)
        #expect(try Self.rgbaPixel(off, 2, 90) == [0, 0, 0])
    }

    @Test func badValuesNameTheProperty() {
        #expect(throws: StageError.self) { try StageHarness.values(kind: "ringlight", name: "r", properties: [("width", "5")]) }
        #expect(throws: StageError.self) { try StageHarness.values(kind: "ringlight", name: "r", properties: [("preset", "neon")]) }
    }
}
