import Foundation
import TestSupport
import Testing

/// pipelines/record-clean-stream-overlay.pipeline through the real binary: one description, the guidance burned
/// into one output (the HLS stream) and the clean video in the other (out/clean.mkv), both decoded by ffmpeg and
/// checked pixel by pixel; and how the host splits the description (the tee after the first stage group).
@Suite(.serialized, .tags(.process), .tier) struct BurnedInOrCleanTests {
    static let pipeline = Tools.root.appendingPathComponent("pipelines/record-clean-stream-overlay.pipeline").path
    static let width = 1280, height = 720

    /// Every frame of `input` as 8-bit luma (ffmpeg, full range: black is 0), `width` x `height` each.
    static func lumaFrames(_ input: String) throws -> [[UInt8]] {
        let raw = Tools.tempDir().appendingPathComponent("frames.gray").path
        let r = try Tools.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", input, "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw], timeout: 60)
        guard r.code == 0, let data = FileManager.default.contents(atPath: raw) else { return [] }
        let size = width * height
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<($0 + size)]) }
    }

    /// Mean luma of column `x` (all rows) and of row `y` (all columns) of one frame.
    static func column(_ f: [UInt8], _ x: Int) -> Double {
        Double((0..<height).map { Int(f[$0 * width + x]) }.reduce(0, +)) / Double(height)
    }
    static func row(_ f: [UInt8], _ y: Int) -> Double { Double((0..<width).map { Int(f[y * width + $0]) }.reduce(0, +)) / Double(width) }
    /// The brightest of columns `x-2...x+2` (the line's exact column depends on rounding; the encoder may soften it).
    static func lineColumn(_ f: [UInt8], _ x: Int) -> Double { (x - 2...x + 2).map { column(f, $0) }.max() ?? 0 }
    static func lineRow(_ f: [UInt8], _ y: Int) -> Double { (y - 2...y + 2).map { row(f, $0) }.max() ?? 0 }

    /// The shipped file expands with the tee in the segment after the passthrough group (not in the source
    /// segment, which a camera loss restarts): compose feeds on one branch, the clean encoder on the other.
    @Test func theSplitSitsAfterTheFirstStageGroup() throws {
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out/hls-overlay"), withIntermediateDirectories: true)
        let r = try Tools.run(Tools.viewfinder, ["run", Self.pipeline, "--dry-run"], cwd: d)
        #expect(r.code == 0, "\(r.err)")
        let segments = r.out.split(separator: "\n").filter { $0.hasPrefix("  [") && $0.contains("] ") }.map(String.init)
        let source = try #require(segments.first { $0.contains("videotestsrc") })
        #expect(!source.contains("tee"), "\(source)")
        #expect(source.hasSuffix("appsink name=vf_passthrough0_sink"), "\(source)")
        let split = try #require(segments.first { $0.contains("tee name=split") }, "\(r.out)")
        #expect(split.contains("appsrc name=vf_passthrough0_src"), "\(split)")
        #expect(split.contains("appsink name=vf_compose_sink"), "\(split)")
        #expect(split.contains("location=out/clean.mkv"), "\(split)")
        let stream = try #require(segments.first { $0.contains("appsrc name=vf_compose_src") }, "\(r.out)")
        #expect(stream.contains("hlssink2"), "\(stream)")
    }

    /// ~3 s of a black live source: the stream (HLS segments) has compose's thirds lines at x = 1/3, 2/3 and
    /// y = 1/3, 2/3 of the frame; the recording has the source's black there; both hold the same frames (+-2).
    @Test func theStreamHasTheGuidanceAndTheRecordingIsClean() throws {
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out/hls-overlay"), withIntermediateDirectories: true)
        let frames = 90
        // --queue lossless: with the default (leaky when live) a loaded machine drops frames at a stage's input,
        // compose's more often than passthrough's, and the counts would measure the load, not the split.
        let vf = try Tools.run(
            Tools.viewfinder,
            [
                "run", Self.pipeline, "--queue", "lossless", "--set", "videotestsrc.num-buffers=\(frames)", "--set",
                "videotestsrc.pattern=black",
                "--set", "streamenc.speed-preset=ultrafast", "--set", "recordenc.speed-preset=ultrafast",
            ],
            cwd: d, timeout: 30)
        #expect(!vf.hung && vf.code == 0, "exit \(vf.code): \(vf.err)")
        let clean = try Self.lumaFrames(d.appendingPathComponent("out/clean.mkv").path)
        let playlist = d.appendingPathComponent("out/hls-overlay/index.m3u8").path
        let text = (try? String(contentsOfFile: playlist, encoding: .utf8)) ?? ""
        #expect(text.contains("#EXT-X-ENDLIST"), "\(text)")
        let stream = try Self.lumaFrames(playlist)
        #expect(clean.count == frames, "clean: \(clean.count) frames")
        #expect(abs(stream.count - clean.count) <= 2, "stream \(stream.count) frames, clean \(clean.count)")
        for (i, f) in [(0, stream.first), (1, stream.dropFirst(stream.count / 2).first), (2, stream.last)] {
            let f = try #require(f)
            for x in [Self.width / 3, 2 * Self.width / 3] { #expect(Self.lineColumn(f, x) > 60, "stream frame \(i) column \(x)") }
            for y in [Self.height / 3, 2 * Self.height / 3] { #expect(Self.lineRow(f, y) > 60, "stream frame \(i) row \(y)") }
            // Away from the lines: the black source.
            #expect(Self.column(f, Self.width / 2) < 30, "stream frame \(i) centre column")
        }
        for (i, f) in [(0, clean.first), (1, clean.dropFirst(clean.count / 2).first), (2, clean.last)] {
            let f = try #require(f)
            for x in [Self.width / 3, 2 * Self.width / 3] { #expect(Self.lineColumn(f, x) < 10, "clean frame \(i) column \(x)") }
            for y in [Self.height / 3, 2 * Self.height / 3] { #expect(Self.lineRow(f, y) < 10, "clean frame \(i) row \(y)") }
            #expect(f.allSatisfy { $0 < 10 }, "clean frame \(i) is the black source everywhere")
        }
    }
}
