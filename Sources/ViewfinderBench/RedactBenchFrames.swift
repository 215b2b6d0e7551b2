import Foundation
import FrameAnalysis
import GStreamerKit
import Host
import Stages

/// `bench redact`'s frames and the two methods as the bench drives them.
extension Bench {
    /// The labelled photos of `reframePhotos` (three groups and a portrait) found in `testdata`, with their faces in the
    /// photo's pixels (`bench reframe` and `bench redact`).
    static func labelledPhotos(testdata: URL, labels: URL, bench: String) throws(HostError) -> [(String, RGBImage, [Box])] {
        struct Labels: Decodable {
            struct Face: Decodable { var x: Double, y: Double, width: Double, height: Double }
            struct Photo: Decodable { var name: String; var width: Int; var height: Int; var faces: [Face] }
            var photos: [Photo]
        }
        let parsed: Labels
        do { parsed = try JSONDecoder().decode(Labels.self, from: Data(contentsOf: labels)) } catch {
            throw HostError(.runtime, "bench \(bench): cannot read \(labels.path): \(error)")
        }
        return reframePhotos.compactMap { name in
            guard let p = parsed.photos.first(where: { $0.name == name }),
                let data = FileManager.default.contents(atPath: testdata.appendingPathComponent("faces/\(name).ppm").path),
                let photo = try? RGBImage(ppm: [UInt8](data))
            else { return nil }
            let sx = Double(photo.width) / Double(p.width), sy = Double(photo.height) / Double(p.height)
            return (name, photo, p.faces.map { Box(x: $0.x * sx, y: $0.y * sy, width: $0.width * sx, height: $0.height * sy) })
        }
    }

    /// One I420 frame of the virtual camera at `camera` (centre, width in photo pixels; 16:9) over `photo`, bilinear,
    /// BT.601 limited range; and the labelled faces it shows at least half of, clipped to the frame.
    static func renderI420(_ photo: RGBImage, camera: (cx: Double, cy: Double, w: Double), faces: [Box], info: VideoInfo)
        -> (bytes: [UInt8], faces: [Box])
    {
        let fw = info.width, fh = info.height
        let scale = Double(fw) / camera.w, left = camera.cx - camera.w / 2, top = camera.cy - camera.w * Double(fh) / Double(fw) / 2
        var out = [UInt8](repeating: 128, count: info.size)
        let ys = info.stride(plane: 0), us = info.stride(plane: 1), vs = info.stride(plane: 2)
        let uo = info.offset(plane: 1), vo = info.offset(plane: 2)
        for y in 0..<fh {
            let py = top + (Double(y) + 0.5) / scale
            for x in 0..<fw {
                let px = left + (Double(x) + 0.5) / scale
                let r = sample(photo, px, py, 0), g = sample(photo, px, py, 1), b = sample(photo, px, py, 2)
                out[y * ys + x] = UInt8(clamping: Int((16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255).rounded()))
            }
        }
        for y in 0..<(fh / 2) {
            let py = top + (Double(2 * y) + 1) / scale
            for x in 0..<(fw / 2) {
                let px = left + (Double(2 * x) + 1) / scale
                let r = sample(photo, px, py, 0), g = sample(photo, px, py, 1), b = sample(photo, px, py, 2)
                out[uo + y * us + x] = UInt8(clamping: Int((128 + (-37.797 * r - 74.203 * g + 112 * b) / 255).rounded()))
                out[vo + y * vs + x] = UInt8(clamping: Int((128 + (112 * r - 93.786 * g - 18.214 * b) / 255).rounded()))
            }
        }
        var visible: [Box] = []
        for l in faces {
            let b = Box(x: (l.x - left) * scale, y: (l.y - top) * scale, width: l.width * scale, height: l.height * scale)
            let x0 = max(0, b.x), y0 = max(0, b.y), x1 = min(Double(fw), b.x + b.width), y1 = min(Double(fh), b.y + b.height)
            guard x1 > x0, y1 > y0, b.width >= Double(redactMinFace) else { continue }
            let clipped = Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            if clipped.area >= 0.5 * b.area { visible.append(clipped) }
        }
        return (out, visible)
    }

    /// A decoded video frame: I420 bytes (packed strides as GStreamer lays them out), its layout, and RGB for the truth.
    struct DecodedFrame { var bytes: [UInt8]; var info: VideoInfo; var rgb: RGBImage }

    /// Up to `frames` frames of `path`, I420 and RGB.
    static func decodeI420(_ path: String, frames: Int) throws(HostError) -> [DecodedFrame] {
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline.parse(
                "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! video/x-raw,format=I420 ! tee name=t "
                    + "t. ! queue ! appsink name=yuv sync=false t. ! queue ! videoconvert ! video/x-raw,format=RGB ! appsink name=rgb sync=false")
        } catch { throw HostError(.runtime, "bench redact: \(error)") }
        guard let yuv = pipeline.appSink(named: "yuv"), let rgb = pipeline.appSink(named: "rgb") else {
            throw HostError(.runtime, "bench redact: no appsink")
        }
        yuv.configure(maxBuffers: 4, drop: false); rgb.configure(maxBuffers: 4, drop: false)
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        var out: [DecodedFrame] = []
        let deadline = Date().addingTimeInterval(300)
        func pull(_ s: AppSink) -> (Buffer, VideoInfo)? {
            while Date() < deadline {
                switch s.pull(timeout: 100_000_000) {
                case .sample(let b, let caps, _): if let info = caps?.videoInfo { return (b, info) }
                case .eos, .stopped: return nil
                case .timeout: continue
                }
            }
            return nil
        }
        while out.count < frames, let (y, info) = pull(yuv), let (c, cinfo) = pull(rgb) {
            let stride = cinfo.stride(plane: 0), w = cinfo.width, h = cinfo.height, raw = c.bytes()
            var pixels = [UInt8]()
            pixels.reserveCapacity(w * h * 3)
            for r in 0..<h { pixels += raw[(r * stride)..<(r * stride + w * 3)] }
            out.append(DecodedFrame(bytes: y.bytes(), info: info, rgb: RGBImage(width: w, height: h, pixels: pixels)))
        }
        return out
    }

    /// The video's truth: the cnn when installed (the detector redact itself uses, at full size on every frame), else the
    /// verified face cascades.
    static func truthDetector() throws(HostError) -> (name: String, engine: any DetectionEngine) {
        if let cnn = try? CNNFaceEngine(threads: 1, minFace: redactMinFace) { return ("the cnn", cnn) }
        do { return ("the face cascades", try FaceEngine(minFace: redactMinFace, verify: true)) } catch {
            throw HostError(.runtime, "bench redact: no face detector for the video's truth: \(error)")
        }
    }

    /// The `redact` stage (its defaults) driven as its stage group drives it: `process` on each frame, timed.
    final class RedactRunner: StageContext, @unchecked Sendable {
        let stage: any Stage
        let info: VideoInfo, caps: Caps
        var stageName: String { "redact" }

        init(info: VideoInfo) throws(HostError) {
            do {
                stage = try StageRegistry.make(kind: "redact", name: "redact", assignments: [])
                try stage.open()
                try stage.configure(info)
                caps = try Caps(info.capsString)
            } catch { throw HostError(.runtime, "bench redact: \(error)") }
            self.info = info
        }

        func run(_ bytes: [UInt8], frame n: Int) throws(HostError) -> (luma: [UInt8], ms: Double) {
            let buffer = Buffer(bytes: bytes)
            buffer.pts = UInt64(n) * 1_000_000_000 / 30; buffer.duration = 1_000_000_000 / 30
            let frame = VideoFrame(buffer: buffer, info: info, caps: caps, segment: Segment(), index: n)
            var failure: (any Error)?
            let ms = milliseconds {
                do { try stage.process(frame, context: self) } catch { failure = error }
            }
            if let failure { throw HostError(.runtime, "bench redact: \(failure)") }
            return (try luma(of: frame), ms)
        }

        func luma(of frame: VideoFrame) throws(HostError) -> [UInt8] {
            do { return Bench.packedLuma(try frame.planeBytes(plane: 0), width: info.width, height: info.height) } catch {
                throw HostError(.runtime, "bench redact: \(error)")
            }
        }

        func push(_ frame: VideoFrame, on output: String) -> Bool { false }
        func push(_ tags: TagList, on output: String) -> Bool { false }
        func push(event: MessageStructure, on output: String) -> Bool { false }
        func post(_ message: MessageStructure) {}
    }

    /// `appsrc ! DESCRIPTION ! appsink` (I420 in and out), one frame at a time: pushed, pulled, timed in between.
    final class ElementRunner {
        let pipeline: Pipeline, source: AppSource, sink: AppSink
        let info: VideoInfo, caps: Caps

        init(_ description: String, info: VideoInfo) throws(HostError) {
            do {
                pipeline = try Pipeline.parse("appsrc name=src format=time ! \(description) ! appsink name=sink sync=false")
                caps = try Caps(info.capsString)
            } catch { throw HostError(.runtime, "bench redact: \(error)") }
            guard let source = pipeline.appSource(named: "src"), let sink = pipeline.appSink(named: "sink") else {
                throw HostError(.runtime, "bench redact: no appsrc/appsink")
            }
            self.source = source; self.sink = sink; self.info = info
            source.configure(live: false, maxBuffers: 2, minLatency: 0)
            source.setCaps(caps)
            sink.configure(maxBuffers: 2, drop: false)
            pipeline.setState(.playing)
        }

        func run(_ bytes: [UInt8], frame n: Int) throws(HostError) -> (luma: [UInt8], ms: Double) {
            let buffer = Buffer(bytes: bytes)
            buffer.pts = UInt64(n) * 1_000_000_000 / 30; buffer.duration = 1_000_000_000 / 30
            var result: Buffer?
            let deadline = Date().addingTimeInterval(30)
            let ms = milliseconds {
                source.push(buffer, caps: caps, segment: Segment())
                while result == nil && Date() < deadline {
                    if case .sample(let b, _, _) = sink.pull(timeout: 50_000_000) { result = b }
                }
            }
            guard let result else { throw HostError(.runtime, "bench redact: no frame back from '\(pipeline)' within 30 s") }
            let frame = VideoFrame(buffer: result, info: info, caps: caps, segment: Segment(), index: n)
            do { return (Bench.packedLuma(try frame.planeBytes(plane: 0), width: info.width, height: info.height), ms) } catch {
                throw HostError(.runtime, "bench redact: \(error)")
            }
        }

        func stop() { pipeline.setState(.null) }
    }

    /// A plane's rows without their padding.
    static func packedLuma(_ p: (bytes: [UInt8], rowBytes: Int, rows: Int), width: Int, height: Int) -> [UInt8] {
        guard p.rowBytes != width else { return Array(p.bytes.prefix(width * height)) }
        var out = [UInt8]()
        out.reserveCapacity(width * height)
        for y in 0..<min(height, p.rows) { out += p.bytes[(y * p.rowBytes)..<(y * p.rowBytes + width)] }
        return out
    }
}
