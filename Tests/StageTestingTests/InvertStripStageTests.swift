import GStreamerKit
import StageTesting
import Stages
import Testing

/// The proof: a stage written only against `Stages`, tested through `StageTesting` alone —
/// frames in, pixels and messages out, no pipeline started.
@Suite struct InvertStripStageTests {
    static let info = try! VideoInfo(format: "I420", width: 64, height: 48, fpsN: 30, fpsD: 1)

    static func stage(_ assignments: [(String, String)]) throws -> InvertStripStage {
        try InvertStripStage(
            name: "inv", properties: PropertyValues(specs: InvertStripStage.descriptor.properties, assignments: assignments, stage: "inv"))
    }

    /// Luma = x + 2y (a ramp), chroma neutral.
    static func ramp() -> [UInt8] {
        var b = StageHarness.blackBytes(info)
        for y in 0..<info.height { for x in 0..<info.width { b[y * info.stride(plane: 0) + x] = UInt8(x + 2 * y) } }
        return b
    }

    @Test func theStripIsInvertedAndNothingElse() throws {
        let h = try StageHarness(stage: try Self.stage([("top", "4"), ("rows", "8")]), name: "inv", info: Self.info)
        let out = try h.push(Self.ramp())
        let y = try out.planeBytes(plane: 0), u = try out.planeBytes(plane: 1)
        #expect(y.bytes[5 * y.rowBytes + 10] == 255 - UInt8(10 + 2 * 5))  // inside the strip
        #expect(y.bytes[4 * y.rowBytes + 0] == 255 - 8)  // its first row
        #expect(y.bytes[11 * y.rowBytes + 63] == 255 - UInt8(63 + 22))  // its last row
        #expect(y.bytes[3 * y.rowBytes + 10] == 16)  // above: untouched
        #expect(y.bytes[12 * y.rowBytes + 10] == 34)  // below: untouched
        #expect(u.bytes.allSatisfy { $0 == 128 })  // chroma untouched
        #expect(out.pts == 0)
    }

    @Test func aMessageEveryNFramesDecodesToItsType() throws {
        let h = try StageHarness(stage: try Self.stage([("every", "3")]), name: "inv", info: Self.info)
        try h.push(count: 7)
        #expect(h.messages(InvertedMessage.self) == [InvertedMessage(frames: 3), InvertedMessage(frames: 6)])
        #expect(h.messages.map(\.source) == ["inv", "inv"])
        #expect(h.frames().map(\.pts) == (0..<7).map { UInt64($0) * 33_333_333 })
    }
}
