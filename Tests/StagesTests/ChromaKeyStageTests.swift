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
        // #00c000 against the default #00ff00 key: 34 chroma units, keyed by the automatic similarity (40), kept at 10.
        try h.stages[0].stage.update("value-min", value: .double(0.15))
        try h.stages[0].stage.update("color", value: .color(.init(red: 0, green: 1, blue: 0, alpha: 1)))
        #expect(try alphaOf(h.push(green)) == 0)
        try h.stages[0].stage.update("similarity", value: .double(10))
        #expect(try alphaOf(h.push(green)) == 255)
    }

    /// The four 4-byte orders key alike: the same frame in RGBA, BGRA, ARGB and ABGR gives the same matte and the
    /// same kept colours (spill included), each in its own byte order.
    @Test func everyByteOrderKeysTheSameMatte() throws {
        // A subject on green with a soft, green-tinged edge: grey-blue square, 2 px of mixed pixels around it.
        let w = 24, h = 16
        var rgba: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                let inside = x >= 8 && x < 16 && y >= 4 && y < 12
                let rim = !inside && x >= 7 && x < 17 && y >= 3 && y < 13
                rgba += inside ? [90, 100, 140, 255] : rim ? [45, 150, 70, 255] : [0, 200, 0, 255]
            }
        }
        var results: [[UInt8]] = []
        for (format, order) in [("RGBA", [0, 1, 2, 3]), ("BGRA", [2, 1, 0, 3]), ("ARGB", [3, 0, 1, 2]), ("ABGR", [3, 2, 1, 0])] {
            let info = try VideoInfo(format: format, width: w, height: h)
            let harness = try StageHarness(kind: "chromakey", properties: [("pick", "auto")], info: info)
            // Bytes in this format's order: byte j of a pixel holds RGBA channel order[j].
            let bytes = (0..<(w * h)).flatMap { i in order.map { rgba[i * 4 + $0] } }
            let out = try harness.push(bytes).planeBytes(plane: 0).bytes
            // Back to RGBA for comparing.
            results.append((0..<(w * h)).flatMap { i in (0..<4).map { c in out[i * 4 + order.firstIndex(of: c)!] } })
        }
        #expect(results.allSatisfy { $0 == results[0] })
        let alpha = stride(from: 3, to: results[0].count, by: 4).map { results[0][$0] }
        #expect(alpha[0] == 0 && alpha[8 * w + 12] == 255)  // screen keyed, subject kept
        #expect(alpha[8 * w + 7] > 0 && alpha[8 * w + 7] < 255)  // the rim: a mix
    }

    @Test func pickAutoTakesTheBorderColour() throws {
        let matte = try Self.run("\(Self.source) ! chromakey pick=auto mode=matte")
        // Border pixels (green) are keyed: black in the matte.
        #expect(matte[0] == 0 && matte[(239 * 320 + 319) * 4] == 0)
        #expect((0..<(320 * 240)).filter { matte[$0 * 4] == 255 }.count > 500)
    }

    /// pick-x/pick-y in the description mean pick=point, as setting them while playing does; an explicit pick wins.
    @Test func pickXAloneMeasuresThePoint() throws {
        // Left half blue, right half green: a point on the left keys the blue.
        let info = try VideoInfo(format: "RGBA", width: 32, height: 16)
        let bytes: [UInt8] = (0..<(32 * 16)).flatMap { i -> [UInt8] in i % 32 < 16 ? [20, 40, 200, 255] : [0, 200, 0, 255] }
        let alphaAt = { (f: VideoFrame, x: Int) throws -> UInt8 in try f.planeBytes(plane: 0).bytes[(8 * 32 + x) * 4 + 3] }
        let point = try StageHarness(kind: "chromakey", properties: [("pick-x", "0.2")], info: info).push(bytes)
        #expect(try alphaAt(point, 3) == 0 && alphaAt(point, 28) == 255)
        let explicit = try StageHarness(kind: "chromakey", properties: [("pick", "none"), ("pick-x", "0.2")], info: info).push(bytes)
        #expect(try alphaAt(explicit, 3) == 255 && alphaAt(explicit, 28) == 0)  // the colour, #00ff00
    }

    /// pick=auto on a frame with no screen keeps `color` and measures again a second later, not every frame.
    @Test func pickAutoMeasuresAgainOnceASecondUntilAScreenIsFound() throws {
        let info = try VideoInfo(format: "RGBA", width: 32, height: 16)
        let h = try StageHarness(kind: "chromakey", properties: [("pick", "auto"), ("color", "#ff0000")], info: info)
        let grey = [UInt8](Array([[UInt8]](repeating: [128, 128, 128, 255], count: 32 * 16).joined()))
        let blue = [UInt8](Array([[UInt8]](repeating: [20, 40, 200, 255], count: 32 * 16).joined()))
        let alpha = { (f: VideoFrame) throws -> UInt8 in try f.planeBytes(plane: 0).bytes[3] }
        #expect(try alpha(h.push(grey, pts: 0)) == 255)  // no screen on the border: the colour (red) is the key
        #expect(try alpha(h.push(blue, pts: 500_000_000)) == 255)  // half a second later: not measured again
        #expect(try alpha(h.push(blue, pts: 1_000_000_000)) == 0)  // a second later: the blue screen is found
    }
}
