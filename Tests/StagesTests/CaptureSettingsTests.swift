import FrameAnalysis
import Testing

@testable import Stages

@Suite struct CaptureSettingsTests {
    @Test func choicesListTheWordsInspectShowsInOrder() {
        #expect(SelfTimerChoice.allCases.map(\.rawValue) == ["0", "3", "5", "10"])
        #expect(SelfTimerChoice.allCases.map(\.seconds) == [0, 3, 5, 10])
        #expect(CropChoice.allCases.map(\.rawValue) == ["none", "3:4", "4:3", "1:1", "16:9"])
        #expect(CropChoice.none.aspect == nil)
        #expect(CropChoice.portrait.aspect?.description == "3:4")
        #expect(CropChoice.wide.aspect?.description == "16:9")
        #expect(OrientationChoice.allCases.first?.rawValue == "rotate-0")
        #expect(OrientationChoice.allCases.last?.rawValue == "flip-rotate-270")
        #expect(OrientationChoice.allCases.count == 8)
    }

    @Test func readsTypedValues() throws {
        let p = try PropertyValues(
            specs: CaptureSettings.specs,
            assignments: [
                ("timer", "5"), ("crop", "1:1"), ("ring-mb", "2"),
                ("orientation", "rotate-90"), ("delay", "0.5"),
            ], stage: "cap")
        let s = CaptureSettings(p)
        #expect(s.timer == 5)
        #expect(s.crop?.description == "1:1")
        #expect(s.ringBytes == 2 << 20)
        #expect(s.orientation == "rotate-90")
        #expect(s.delay == 0.5)
        #expect(s.directory == "photos")
    }

    @Test func updateTakesPlayingPropertiesOnly() throws {
        var s = CaptureSettings(try PropertyValues(specs: CaptureSettings.specs, assignments: [], stage: "cap"))
        let known19 = try s.update("timer", value: .choice("10"), stage: "capture")
        #expect(known19)
        #expect(s.timer == 10)
        let known20 = try s.update("overlay", value: .bool(false), stage: "capture")
        #expect(known20)
        #expect(s.overlay == false)
        let known21 = try s.update("directory", value: .string("x"), stage: "capture")
        #expect(!known21)
        let known22 = try s.update("interval", value: .double(1), stage: "capture")
        #expect(!known22)
    }
}
