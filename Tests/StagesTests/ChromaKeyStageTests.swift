import Foundation
import GStreamerKit
import StageTesting
import Testing

@testable import Host
@testable import Stages

/// chromakey in real pipelines, against GStreamer's own `alpha` element on the same input.
@Suite(.serialized) struct ChromaKeyStageTests {
    static let source =
        "videotestsrc pattern=ball background-color=0xff00c000 foreground-color=0xffd8a080 num-buffers=1 ! video/x-raw,format=RGBA,width=320,height=240"

    static func run(_ description: String) throws -> [UInt8] {
        let out = ComposeStageTests.tmp("out.rgba")
        let s = try Session(description: "\(description) ! filesink location=\(out)")
        #expect(s.run() == 0, "\(s.errors)")
        return [UInt8](try #require(FileManager.default.contents(atPath: out)))
    }

    static func iou(_ a: [Bool], _ b: [Bool]) -> Double {
        var i = 0, u = 0
        for k in a.indices { if a[k] && b[k] { i += 1 }; if a[k] || b[k] { u += 1 } }
        return u == 0 ? 1 : Double(i) / Double(u)
    }

    @Test func matteAgainstGroundTruthSideBySideWithAlphaElement() throws {
        // Ground truth from the unkeyed frame: a pixel is subject when it is nearer the ball's colour than the green.
        let src = try Self.run(Self.source)
        let truth = (0..<(320 * 240)).map { i -> Bool in
            let (r, g, b) = (Int(src[i * 4]), Int(src[i * 4 + 1]), Int(src[i * 4 + 2]))
            let dFg = (r - 0xd8) * (r - 0xd8) + (g - 0xa0) * (g - 0xa0) + (b - 0x80) * (b - 0x80)
            let dBg = r * r + (g - 0xc0) * (g - 0xc0) + b * b
            return dFg < dBg
        }
        #expect(truth.filter { $0 }.count > 500)
        // Default similarity and smoothness: the edge pixels (videotestsrc's ball is anti-aliased) are unmixed.
        let ours = try Self.run("\(Self.source) ! chromakey color=#00c000")
        let theirs = try Self.run("\(Self.source) ! alpha method=green ! video/x-raw,format=RGBA")
        let oursIoU = Self.iou((0..<(320 * 240)).map { ours[$0 * 4 + 3] >= 128 }, truth)
        let theirsIoU = Self.iou((0..<(320 * 240)).map { theirs[$0 * 4 + 3] >= 128 }, truth)
        print("chromakey matte IoU \(oursIoU) vs alpha method=green \(theirsIoU)")
        #expect(oursIoU >= 0.99)
    }

    @Test func compositesOverABackgroundWithCompositor() throws {
        // Keyed ball over a red background, composed by GStreamer's compositor.
        // (A caps filter runs to the next '!', as in gst-launch: the compositor's chain goes last.)
        let out = try Self.run(
            "videotestsrc pattern=red num-buffers=1 ! video/x-raw,format=RGBA,width=320,height=240 ! c.sink_0  \(Self.source) ! chromakey ! c.sink_1  compositor name=c background=black ! videoconvert ! video/x-raw,format=RGBA,width=320,height=240"
        )
        let src = try Self.run(Self.source)
        var red = 0, ball = 0, checked = 0
        for i in stride(from: 0, to: 320 * 240, by: 7) {
            let isGreen = src[i * 4] < 10 && src[i * 4 + 1] > 180 && src[i * 4 + 2] < 10
            let isBall = src[i * 4] == 0xd8 && src[i * 4 + 1] == 0xa0 && src[i * 4 + 2] == 0x80
            guard isGreen || isBall else { continue }
            checked += 1
            if isGreen && out[i * 4] > 240 && out[i * 4 + 1] < 15 && out[i * 4 + 2] < 15 { red += 1 }
            if isBall && abs(Int(out[i * 4]) - 0xd8) < 4 && abs(Int(out[i * 4 + 1]) - 0xa0) < 4 { ball += 1 }
        }
        let greens = (0..<(320 * 240)).filter { $0 % 7 == 0 && src[$0 * 4] < 10 && src[$0 * 4 + 1] > 180 }.count
        #expect(red == greens)  // every green sample became the red background
        #expect(ball > 0 && red + ball == checked)
    }

    @Test func warnsWhenTheKeyIsCloseToTheSubject() throws {
        // A teal ball on green: kept, but flagged.
        let s = try Session(
            description:
                "videotestsrc pattern=ball background-color=0xff00c000 foreground-color=0xff20b090 num-buffers=3 ! video/x-raw,format=RGBA,width=320,height=240 ! chromakey name=k color=#00c000 ! fakesink"
        )
        #expect(s.run() == 0)
        let warnings = s.elementMessages.map(\.description).filter { $0.contains("viewfinder/chromakey-warning") }
        #expect(warnings.count == 1)  // rate-limited to one a second of stream time
        #expect(warnings.first?.contains("00c000") == true)
        let k = try #require(s.stage(named: "k") as? ChromaKeyStage)
        #expect((k.lastResult?.nearKey ?? 0) > 0.01)
    }

    @Test func keyChangesWhilePlayingTakeEffectOnTheNextFrame() throws {
        let info = try VideoInfo(format: "RGBA", width: 16, height: 8)
        let h = try StageHarness(kind: "chromakey", properties: [("color", "#00c000")], info: info)
        let green: [UInt8] = Array([[UInt8]](repeating: [0, 192, 0, 255], count: 16 * 8).joined())
        let alphaOf = { (f: VideoFrame) throws -> UInt8 in try f.planeBytes(plane: 0).bytes[3] }
        #expect(try alphaOf(h.push(green)) == 0)  // keyed
        try h.stages[0].stage.update("color", value: .color(.init(red: 1, green: 0, blue: 0, alpha: 1)))
        #expect(try alphaOf(h.push(green)) == 255)  // red key now: green is kept
        try h.stages[0].stage.update("value-min", value: .double(0.9))
        try h.stages[0].stage.update("color", value: .color(.init(red: 0, green: 0.75, blue: 0, alpha: 1)))
        #expect(try alphaOf(h.push(green)) == 255)  // too dark for value-min 0.9
    }

    @Test func pickAutoTakesTheBorderColour() throws {
        let matte = try Self.run("\(Self.source) ! chromakey pick=auto mode=matte")
        // Border pixels (green) are keyed: black in the matte.
        #expect(matte[0] == 0 && matte[(239 * 320 + 319) * 4] == 0)
        #expect((0..<(320 * 240)).filter { matte[$0 * 4] == 255 }.count > 500)
    }
}
