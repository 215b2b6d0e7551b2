import Foundation
import Timing

/// Still images decoded and encoded by GStreamer's own elements (decodebin, videoscale, pngenc, jpegenc),
/// for share cards and other one-off pictures.
public enum ImageFile {
    /// Decodes `path` (any format decodebin reads) scaled to `width` x `height`, as BGRA rows.
    public static func decodeBGRA(_ path: String, width: Int, height: Int) throws(GStreamerError) -> (pixels: [UInt8], stride: Int) {
        let p = try Pipeline.parse(
            "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! videoscale ! video/x-raw,format=BGRA,width=\(width),height=\(height),pixel-aspect-ratio=1/1 ! appsink name=vf_image sync=false"
        )
        defer { p.setState(.null) }
        guard let sink = p.appSink(named: "vf_image") else { throw GStreamerError(.library, "no appsink in the decoder") }
        p.setState(.playing)
        let bus = p.bus
        let real = SystemClock.shared
        let deadline = real.now + 20
        while real.now < deadline {
            if let m = bus.pop(), case .error(let text, _) = m.kind {
                throw GStreamerError(.stream, "cannot decode '\(path)': \(text) (\(m.source))")
            }
            switch sink.pull(timeout: 50_000_000) {
            case .sample(let buffer, let caps, let segment):
                guard let caps, let info = caps.videoInfo else { throw GStreamerError(.stream, "decoded '\(path)' without caps") }
                let frame = VideoFrame(buffer: buffer, info: info, caps: caps, segment: segment, index: 0)
                let plane = try frame.planeBytes(plane: 0)
                return (plane.bytes, plane.rowBytes)
            case .eos: throw GStreamerError(.stream, "'\(path)' holds no picture")
            case .timeout, .stopped: continue
            }
        }
        throw GStreamerError(.stream, "decoding '\(path)' timed out")
    }

    /// Encodes BGRA rows into `path` with pngenc (`.png`) or jpegenc (anything else), through a temp
    /// file renamed into place, so a failure leaves nothing half-written.
    public static func encodeBGRA(_ pixels: [UInt8], width: Int, height: Int, stride: Int, to path: String, quality: Int = 92)
        throws(GStreamerError)
    {
        let png = path.lowercased().hasSuffix(".png")
        let tmp = FilePaths.join(FilePaths.directory(of: path), ".\(UUID().uuidString).tmp")
        do {
            try encode(
                pixels, width: width, height: height, stride: stride, encoder: encoder(png: png, quality: quality),
                sink: "filesink location=\(Pipeline.quoted(tmp))", what: "write '\(path)'", doing: "writing '\(path)'"
            ) { _ in }
        } catch {
            unlink(tmp)
            throw error
        }
        guard rename(tmp, path) == 0 else {
            unlink(tmp)
            throw GStreamerError(.stream, "cannot write '\(path)'")
        }
    }

    /// Encodes BGRA rows in memory: a PNG (`png`) or a JPEG of `quality`, the encoded file's bytes.
    public static func encodedBGRA(_ pixels: [UInt8], width: Int, height: Int, stride: Int, png: Bool = false, quality: Int = 92)
        throws(GStreamerError) -> Data
    {
        var data = Data()
        try encode(
            pixels, width: width, height: height, stride: stride, encoder: encoder(png: png, quality: quality),
            sink: "appsink name=vf_encoded sync=false", what: "encode the image", doing: "encoding the image"
        ) { sink in
            // The encoder's buffers (one for a still), read while the pipeline runs: appsink queues them.
            while case .sample(let b, _, _) = sink.pull(timeout: 0) { data.append(contentsOf: b.bytes()) }
        }
        guard !data.isEmpty else { throw GStreamerError(.stream, "encoding the image gave no bytes") }
        return data
    }

    private static func encoder(png: Bool, quality: Int) -> String { png ? "pngenc" : "jpegenc quality=\(quality)" }

    /// Runs `appsrc ! videoconvert ! ENCODER ! SINK` over one BGRA frame until end-of-stream (20 s at most);
    /// `drain` is called with the appsink named `vf_encoded` (when the sink is one) while waiting and once at
    /// the end. Errors read "cannot WHAT: ..." and "DOING timed out".
    private static func encode(
        _ pixels: [UInt8], width: Int, height: Int, stride: Int, encoder enc: String, sink: String, what: String, doing: String,
        drain: (AppSink) -> Void
    ) throws(GStreamerError) {
        let p = try Pipeline.parse("appsrc name=vf_image format=time ! videoconvert ! \(enc) ! \(sink)")
        defer { p.setState(.null) }
        guard let src = p.appSource(named: "vf_image") else { throw GStreamerError(.library, "no appsrc in the encoder") }
        let out = p.appSink(named: "vf_encoded")
        let info = try VideoInfo(format: "BGRA", width: width, height: height, fpsN: 0, fpsD: 1)
        let caps = try Caps(info.capsString)
        // Repack rows to GStreamer's stride for BGRA at this width.
        var bytes = [UInt8](repeating: 0, count: info.size)
        let dstStride = info.stride(plane: 0)
        for y in 0..<height {
            bytes.replaceSubrange((y * dstStride)..<(y * dstStride + width * 4), with: pixels[(y * stride)..<(y * stride + width * 4)])
        }
        src.setCaps(caps)
        p.setState(.playing)
        let buffer = Buffer(bytes: bytes)
        buffer.pts = 0
        src.push(buffer, caps: caps, segment: Segment())
        src.endOfStream()
        let bus = p.bus
        let real = SystemClock.shared
        let deadline = real.now + 20
        while real.now < deadline {
            if let out { drain(out) }
            guard let m = bus.pop(timeout: 50_000_000) else { continue }
            switch m.kind {
            case .eos:
                if let out { drain(out) }
                return
            case .error(let text, _):
                throw GStreamerError(.stream, "cannot \(what): \(text) (\(m.source))")
            default: continue
            }
        }
        throw GStreamerError(.stream, "\(doing) timed out")
    }
}
