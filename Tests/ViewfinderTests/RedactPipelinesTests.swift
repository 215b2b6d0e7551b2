import Foundation
import TestSupport
import Testing

/// The shipped per-output redaction pipelines through the real binary, a real RTSP client (gst-launch-1.0 rtspsrc) and
/// ffmpeg reading the recording: the output that must hide faces has every labelled face of the group photo covered,
/// the other keeps them as the camera saw them.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct RedactPipelinesTests {
    /// family.jpg's four labelled faces (Tests/FrameAnalysisTests/Fixtures/face_labels.json, 1920x1280) in the
    /// pipelines' 1280x720 frame.
    static let faces: [(x: Int, y: Int, w: Int, h: Int)] = [(963, 291, 141, 174), (726, 468, 114, 156), (579, 267, 132, 174), (1275, 384, 135, 153)]
        .map { (x: $0.0 * 1280 / 1920, y: $0.1 * 720 / 1280, w: $0.2 * 1280 / 1920, h: $0.3 * 720 / 1280) }
    static let width = 1280, height = 720

    /// Mean absolute difference of horizontal neighbours inside `f` of a packed GRAY8 frame: the detail.
    static func detail(_ luma: ArraySlice<UInt8>, _ f: (x: Int, y: Int, w: Int, h: Int)) -> Double {
        let base = luma.startIndex
        var sum = 0, n = 0
        for y in f.y..<(f.y + f.h) {
            for x in f.x..<(f.x + f.w - 1) {
                sum += abs(Int(luma[base + y * width + x]) - Int(luma[base + y * width + x + 1])); n += 1
            }
        }
        return Double(sum) / Double(max(1, n))
    }

    /// Each labelled face's detail in each GRAY8 frame of `data`, as a share of the photo's own.
    static func ratios(_ data: [UInt8], source: [UInt8]) -> [[Double]] {
        let size = width * height
        let reference = faces.map { detail(source[0..<size], $0) }
        return stride(from: 0, to: data.count - size + 1, by: size).map { start in
            faces.indices.map { detail(data[start..<(start + size)], faces[$0]) / max(1, reference[$0]) }
        }
    }

    /// The photo as the pipelines scale it, GRAY8.
    static func source() throws -> [UInt8] {
        let out = Tools.tempDir().appendingPathComponent("family.gray")
        let r = try Tools.run(
            "/usr/bin/gst-launch-1.0",
            ["-q", "filesrc", "location=\(Tools.root.appendingPathComponent(".testdata/faces/family.jpg").path)", "!", "jpegdec", "!",
             "videoconvert", "!", "videoscale", "add-borders=false", "!", "video/x-raw,width=1280,height=720,format=GRAY8", "!",
             "filesink", "location=\(out.path)"], timeout: 30)
        try #require(r.code == 0, "\(r.err)")
        return [UInt8](try Data(contentsOf: out))
    }

    /// Runs `pipelines/NAME.pipeline` in a scratch directory with its rtspserve `server` on a free port; decodes 20 frames
    /// of the RTSP output as GRAY8, stops the run with Ctrl-C, and decodes the last 20 frames of `recording` likewise.
    static func run(_ name: String, server: String, path: String, recording: String) throws -> (stream: [UInt8], file: [UInt8]) {
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: d.appendingPathComponent(".testdata"), withDestinationURL: Tools.root.appendingPathComponent(".testdata"))
        let port = Int(Tools.freePort())
        let (p, o, e) = try Tools.start(
            Tools.viewfinder, ["run", Tools.root.appendingPathComponent("pipelines/\(name).pipeline").path, "--set", "\(server).port=\(port)"],
            cwd: d)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let url = "rtsp://127.0.0.1:\(port)\(path)"
        #expect(RTSPServeCommandTests.waitFor("rtsp: \(url)\n", in: e, process: p, timeout: 60), "no URL printed")
        // Frames 30-49 the client decodes (past the first second: redact has analysed; the stream has settled).
        let c = try Tools.run(
            "/usr/bin/gst-launch-1.0",
            ["-q", "rtspsrc", "location=\(url)", "protocols=tcp", "latency=100", "!", "rtph264depay", "!", "h264parse", "!", "avdec_h264",
             "!", "videoconvert", "!", "video/x-raw,format=GRAY8", "!", "identity", "eos-after=51", "!", "multifilesink",
             "location=\(d.path)/frame%02d.gray"], timeout: 90)
        var stream: [UInt8] = []
        for i in 30..<50 { stream += (try? Data(contentsOf: d.appendingPathComponent(String(format: "frame%02d.gray", i)))).map { [UInt8]($0) } ?? [] }
        #expect(stream.count == 20 * width * height, "client: \(c.code) \(c.err)")
        kill(p.processIdentifier, SIGINT)
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(!r.hung && r.code == 0, "exit \(r.code): \(r.err)")
        let file = d.appendingPathComponent("file.gray")
        let probe = try Tools.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-sseof", "-1", "-i", d.appendingPathComponent(recording).path, "-frames:v", "20", "-f", "rawvideo",
             "-pix_fmt", "gray", file.path], timeout: 60)
        #expect(probe.code == 0, "ffmpeg: \(probe.err)")
        return (stream, (try? [UInt8](Data(contentsOf: file))) ?? [])
    }

    @Test func theStreamHidesEveryFaceAndTheRecordingKeepsThem() throws {
        let source = try Self.source()
        let (stream, file) = try Self.run("redact-stream-record-clean", server: "stream", path: "/redacted", recording: "out/clean.mkv")
        let streamed = Self.ratios(stream, source: source), recorded = Self.ratios(file, source: source)
        #expect(streamed.count == 20 && recorded.count >= 10)
        #expect(streamed.allSatisfy { $0.allSatisfy { $0 < 0.35 } }, "detail left per face in the stream: \(streamed.prefix(3))")
        #expect(recorded.allSatisfy { $0.allSatisfy { $0 > 0.7 } }, "detail per face in the recording: \(recorded.prefix(3))")
    }

    @Test func theRecordingHidesEveryFaceAndThePreviewKeepsThem() throws {
        let source = try Self.source()
        let (stream, file) = try Self.run("redact-record-preview-clean", server: "preview", path: "/preview", recording: "out/redacted.mkv")
        let previewed = Self.ratios(stream, source: source), recorded = Self.ratios(file, source: source)
        #expect(previewed.count == 20 && recorded.count >= 10)
        #expect(previewed.allSatisfy { $0.allSatisfy { $0 > 0.7 } }, "detail per face in the preview: \(previewed.prefix(3))")
        #expect(recorded.allSatisfy { $0.allSatisfy { $0 < 0.35 } }, "detail left per face in the recording: \(recorded.prefix(3))")
    }
}
