import Foundation
import GStreamerKit
import StageTesting
import Testing

@testable import FrameAnalysis
@testable import Stages

/// `redact` on a real group photo (multi_face, five labelled faces) through the stage harness: the first frame is
/// covered whole (nothing analysed yet), a frame after the first analysis has every labelled face covered and the
/// picture elsewhere untouched, and with the detector starved (frames coming faster than it analyses) no frame shows
/// a face.
@Suite(.serialized, .tags(.evaluation), .tier) struct RedactStageTests {
    /// The photo as I420 (`info`'s planes and strides) and its labelled faces.
    static func photo() throws -> (info: VideoInfo, bytes: [UInt8], faces: [Box], luma: [UInt8]) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let labels = try FaceLabelSet.load(root.appendingPathComponent("Tests/FrameAnalysisTests/Fixtures/face_labels.json"))
        let photo = try #require(labels.photos.first { $0.name == "multi_face" })
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(".testdata/faces/multi_face.ppm").path) else {
            throw StageError(.usage, "multi_face.ppm is missing: run launch/testdata")
        }
        let rgb = try RGBImage(ppm: [UInt8](data))
        let w = rgb.width & ~1, h = rgb.height & ~1
        let info = try VideoInfo(format: "I420", width: w, height: h)
        var bytes = [UInt8](repeating: 128, count: info.size)
        var luma = [UInt8](repeating: 0, count: w * h)
        func px(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let i = (y * rgb.width + x) * 3
            return (Double(rgb.pixels[i]), Double(rgb.pixels[i + 1]), Double(rgb.pixels[i + 2]))
        }
        let ys = info.stride(plane: 0), us = info.stride(plane: 1), vs = info.stride(plane: 2)
        let uo = info.offset(plane: 1), vo = info.offset(plane: 2)
        for y in 0..<h {
            for x in 0..<w {
                let (r, g, b) = px(x, y)
                let v = UInt8(clamping: Int((16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255).rounded()))
                bytes[y * ys + x] = v
                luma[y * w + x] = v
            }
        }
        for y in 0..<(h / 2) {
            for x in 0..<(w / 2) {
                var r = 0.0, g = 0.0, b = 0.0
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let p = px(2 * x + dx, 2 * y + dy)
                    r += p.0 / 4; g += p.1 / 4; b += p.2 / 4
                }
                bytes[uo + y * us + x] = UInt8(clamping: Int((128 + (-37.797 * r - 74.203 * g + 112 * b) / 255).rounded()))
                bytes[vo + y * vs + x] = UInt8(clamping: Int((128 + (112 * r - 93.786 * g - 18.214 * b) / 255).rounded()))
            }
        }
        return (info, bytes, photo.faces, luma)
    }

    /// Mean absolute difference between horizontal neighbours of `luma` (packed, `width` wide) inside `b`: the detail.
    static func detail(_ luma: [UInt8], width: Int, in b: Box) -> Double {
        var sum = 0, n = 0
        for y in Int(b.y)..<Int(b.y + b.height) {
            for x in Int(b.x)..<(Int(b.x + b.width) - 1) { sum += abs(Int(luma[y * width + x]) - Int(luma[y * width + x + 1])); n += 1 }
        }
        return n > 0 ? Double(sum) / Double(n) : 0
    }

    /// The output frame's luma, packed.
    static func luma(_ frame: VideoFrame) throws -> [UInt8] {
        let p = try frame.planeBytes(plane: 0)
        var out = [UInt8]()
        for y in 0..<frame.info.height { out += p.bytes[(y * p.rowBytes)..<(y * p.rowBytes + frame.info.width)] }
        return out
    }

    /// Whether each face's detail is under a third of what it was: covered.
    static func everyFaceCovered(_ out: [UInt8], source: [UInt8], width: Int, faces: [Box]) -> [Double] {
        faces.map { f in detail(out, width: width, in: f) / max(1, detail(source, width: width, in: f)) }
    }

    @Test func theFirstFrameIsCoveredWholeThenEveryFaceAndNothingElse() throws {
        let (info, bytes, faces, source) = try Self.photo()
        let h = try StageHarness(kind: "redact", properties: [("mode", "blur"), ("sync", "false")], info: info)
        try h.open()
        defer { h.close() }
        let stage = try #require(h.stage(RedactStage.self))
        // Frame 0: nothing analysed yet: covered whole (the sky's detail gone too).
        let first = try Self.luma(try h.push(bytes))
        let sky = Box(x: 700, y: 20, width: 250, height: 120)
        #expect(Self.detail(first, width: info.width, in: sky) < 0.5 * Self.detail(source, width: info.width, in: sky))
        #expect(Self.everyFaceCovered(first, source: source, width: info.width, faces: faces).allSatisfy { $0 < 0.34 })
        // The first analysis done: the next frame has every labelled face covered, the sky as it was.
        stage.awaitAnalyses()
        let second = try Self.luma(try h.push(bytes))
        let ratios = Self.everyFaceCovered(second, source: source, width: info.width, faces: faces)
        #expect(ratios.allSatisfy { $0 < 0.34 }, "detail left per face: \(ratios)")
        var same = 0, n = 0
        for y in Int(sky.y)..<Int(sky.y + sky.height) {
            for x in Int(sky.x)..<Int(sky.x + sky.width) { n += 1; if second[y * info.width + x] == source[y * info.width + x] { same += 1 } }
        }
        #expect(same == n, "\(n - same) sky samples changed")
        #expect(h.messages(named: RedactMessage.structureName).map { $0.bool("behind") } == [false])
    }

    @Test func inSyncAFaceIsCoveredOnTheVeryFrameTheDetectorSeesIt() throws {
        let (info, bytes, faces, source) = try Self.photo()
        let h = try StageHarness(kind: "redact", properties: [("mode", "pixelate"), ("detect-every", "3")], info: info)
        try h.open()
        defer { h.close() }
        // Frames 0-2 a room with nobody (noise: texture a cover would smooth; frame 0 detected, nothing found, nothing
        // covered), frame 3 the group walks in: detected on that frame.
        var rng = SystemRandomNumberGenerator()
        var empty = [UInt8](repeating: 128, count: info.size)
        for i in 0..<(info.stride(plane: 0) * info.height) { empty[i] = UInt8.random(in: 16...235, using: &rng) }
        let emptyLuma = (0..<info.height).flatMap { y in empty[(y * info.stride(plane: 0))..<(y * info.stride(plane: 0) + info.width)] }
        for _ in 0..<3 {
            let out = try Self.luma(try h.push(empty))
            #expect(out == emptyLuma, "a frame with nobody was covered")
        }
        let arrived = try Self.luma(try h.push(bytes))
        let ratios = Self.everyFaceCovered(arrived, source: source, width: info.width, faces: faces)
        #expect(ratios.allSatisfy { $0 < 0.34 }, "detail left per face on the first frame with faces: \(ratios)")
        // Frames 4-5 by tracking, 6 detected again: covered; no message (never behind).
        for _ in 0..<3 {
            let out = try Self.luma(try h.push(bytes))
            #expect(Self.everyFaceCovered(out, source: source, width: info.width, faces: faces).allSatisfy { $0 < 0.34 })
        }
        #expect(h.messages(named: RedactMessage.structureName).isEmpty)
        #expect(h.stage(RedactStage.self)?.summary()?.contains("7 frames, 3 analyses") == true, "\(h.stage(RedactStage.self)?.summary() ?? "")")
    }

    @Test func syncedTheDetectorIsNeverBehindHoweverFarApartItLooks() throws {
        let (info, bytes, faces, source) = try Self.photo()
        // One detection a second (detect-every 30) and max-delay 0.2: the frames between are covered by the tracks,
        // not whole (the sky stays), and every face stays covered.
        let h = try StageHarness(kind: "redact", properties: [("detect-every", "30"), ("max-delay", "0.2"), ("mode", "fill")], info: info)
        try h.open()
        defer { h.close() }
        let sky = Box(x: 700, y: 20, width: 250, height: 120)
        for _ in 0..<20 {
            let out = try Self.luma(try h.push(bytes))
            #expect(Self.detail(out, width: info.width, in: sky) == Self.detail(source, width: info.width, in: sky))
            #expect(Self.everyFaceCovered(out, source: source, width: info.width, faces: faces).allSatisfy { $0 < 0.34 })
        }
        #expect(h.messages(named: RedactMessage.structureName).isEmpty)
    }

    @Test func aStarvedDetectorLeaksNoFace() throws {
        let (info, bytes, faces, source) = try Self.photo()
        // After a first analysis the detector is starved (each analysis waits 2 s): the faces are carried for
        // max-delay (0.2 s, 6 frames at 30 fps), then the whole frame is covered, and no frame shows a face.
        let h = try StageHarness(kind: "redact", properties: [("max-delay", "0.2"), ("mode", "fill"), ("sync", "false")], info: info)
        try h.open()
        defer { h.close() }
        let stage = try #require(h.stage(RedactStage.self))
        _ = try h.push(bytes)
        stage.awaitAnalyses()
        stage.stall.withLock { $0 = 2 }
        var worst = 0.0, whole = 0
        for _ in 0..<20 {
            let out = try Self.luma(try h.push(bytes))
            worst = max(worst, Self.everyFaceCovered(out, source: source, width: info.width, faces: faces).max() ?? 1)
            if Set(out).count == 1 { whole += 1 }
        }
        #expect(worst < 0.34, "a face kept \(Int(worst * 100)) % of its detail")
        // Frames 1-6 by the tracks (analysed at 0), 7-20 whole.
        #expect(whole == 14, "\(whole) frames covered whole")
        let said = h.messages(named: RedactMessage.structureName).compactMap { $0.bool("behind") }
        #expect(said == [false, true], "\(said)")
        stage.stall.withLock { $0 = 0 }
    }

    /// The photo decoded by GStreamer straight into `format` (jpegdec ! videoconvert), with its layout.
    static func photo(in format: String, width: Int, height: Int) throws -> (info: VideoInfo, bytes: [UInt8]) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent(".testdata/faces/multi_face.jpg").path
        let pipeline = try Pipeline.parse(
            "filesrc location=\(path) ! jpegdec ! videoconvert ! videoscale ! video/x-raw,format=\(format),width=\(width),height=\(height) ! appsink name=s")
        let sink = try #require(pipeline.appSink(named: "s"))
        sink.configure(maxBuffers: 1, drop: false)
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        for _ in 0..<100 {
            if case .sample(let b, let caps, _) = sink.pull(timeout: 100_000_000), let info = caps?.videoInfo { return (info, b.bytes()) }
        }
        throw StageError(.stream, "no \(format) frame decoded")
    }

    /// Component `c` of `bytes` (a frame of `info`) at full resolution samples, packed.
    static func component(_ c: Int, of bytes: [UInt8], _ info: VideoInfo) -> [UInt8] {
        let l = info.colourComponents[c], base = info.offset(plane: l.plane), stride = info.stride(plane: l.plane)
        let w = info.width >> l.horizontalSub, h = info.height >> l.verticalSub
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { out[y * w + x] = bytes[base + y * stride + x * l.pixelStride + l.offset] } }
        return out
    }

    /// Packed (YUY2, UYVY), semi-planar (NV21) and RGB formats, alpha or padding included, are covered in place: every
    /// labelled face loses its detail in the first component (Y or R), the sky is byte for byte the source, and alpha
    /// stays opaque.
    @Test(arguments: ["YUY2", "UYVY", "NV21", "RGBA", "BGRx", "xBGR", "RGB"]) func everyEightBitLayoutIsCovered(format: String) throws {
        let (i420, _, faces, _) = try Self.photo()
        let (info, bytes) = try Self.photo(in: format, width: i420.width, height: i420.height)
        #expect(info.colourComponents.count == 3)
        let h = try StageHarness(kind: "redact", properties: [("mode", "blur")], info: info)
        try h.open()
        defer { h.close() }
        let out = try h.push(bytes)
        let written = out.buffer.bytes()
        let source = Self.component(0, of: bytes, info), result = Self.component(0, of: written, info)
        let ratios = Self.everyFaceCovered(result, source: source, width: info.width, faces: faces)
        #expect(ratios.allSatisfy { $0 < 0.34 }, "\(format): detail left per face \(ratios)")
        let sky = Box(x: 700, y: 20, width: 250, height: 120)
        #expect(Self.detail(result, width: info.width, in: sky) == Self.detail(source, width: info.width, in: sky))
        for c in 1..<3 {
            let a = Self.component(c, of: bytes, info), b = Self.component(c, of: written, info)
            #expect(a != b, "\(format): component \(c) untouched")
        }
        if format == "RGBA" {
            #expect(stride(from: 3, to: written.count, by: 4).allSatisfy { written[$0] == 255 }, "alpha changed")
        }
    }
}
