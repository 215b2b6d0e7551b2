import Foundation
import TestSupport
import TestTags
import Testing

/// `reframe` through the real binary: a 16:9 frame with a real portrait far off-centre becomes a 9:16 output framing
/// the person from the first frame (cut-analysis: the first frame is analysed at once), and without cut-analysis
/// starts on the default window (black here) and cuts to the person when the first analysis comes back; an input whose size changes mid-stream
/// renegotiates the output; a bad shape is refused before anything runs.
@Suite(.serialized, .tags(.process), .tier) struct ReframeCommandTests {
    static let photo = Tools.root.appendingPathComponent(".testdata/faces/obama.jpg").path

    /// Mean luma of a decoded image, and the mean luma of its columns.
    static func lumaMean(_ file: String) throws -> Double {
        let img = try Tools.luma(of: file)
        guard img.width > 0 else { return -1 }
        return Double(img.pixels.reduce(0) { $0 + Int($1) }) / Double(img.pixels.count)
    }

    @Test(arguments: [true, false]) func aPortraitFarLeftIsFramedInTheVerticalOutput(cutAnalysis: Bool) throws {
        let d = Tools.tempDir()
        // A 480x600 portrait at x = 40 of a black 1920x1080 frame: the default 9:16 window (x 656...1264) is all black.
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch",
                "filesrc location=\(Self.photo) ! jpegdec ! videoconvert ! videoscale ! video/x-raw,width=480,height=600 "
                    + "! imagefreeze num-buffers=60 ! videobox left=-40 right=-1400 top=-240 bottom=-240 fill=black ! videoconvert "
                    + "! video/x-raw,format=I420,framerate=30/1 ! compose overlay=false ! reframe width=360 height=640 "
                    + "cut-analysis=\(cutAnalysis) ! videoconvert ! pngenc ! multifilesink location=f%03d.png",
            ], cwd: d, timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        let frames = Tools.files(in: d, suffix: ".png")
        #expect(frames.count == 60)
        let first = try Tools.luma(of: d.appendingPathComponent("f000.png").path)
        #expect(first.width == 360 && first.height == 640)
        // With cut-analysis the first frame is the person already; without, the default window's black until compose's
        // first analysis (after its 1 s warm-up) comes back.
        if cutAnalysis {
            #expect(try Self.lumaMean(d.appendingPathComponent("f000.png").path) > 30)
            #expect(Tools.columnMean(first, x: 180) > 50)
        } else {
            #expect(try Self.lumaMean(d.appendingPathComponent("f000.png").path) < 3)
        }
        // The person fills the frame (the window cut, not panned, to them: one cut).
        let last = try Tools.luma(of: d.appendingPathComponent("f059.png").path)
        #expect(last.width == 360 && last.height == 640)
        #expect(try Self.lumaMean(d.appendingPathComponent("f059.png").path) > 30)
        #expect(r.err.contains("reframe0: 1 cut,"), "\(r.err)")
        // The person down the middle (measured: 65 of 255); the eyes on the upper third line take the window above the
        // photo's top edge, so the top rows are the canvas's black (measured: 0).
        #expect(Tools.columnMean(last, x: 180) > 50)
        #expect(last.pixels.prefix(360 * 4).allSatisfy { $0 < 20 })
    }

    @Test func anInputSizeChangeRenegotiatesTheOutput() throws {
        let d = Tools.tempDir()
        // Two PNGs of different sizes, one after the other: pngdec sends new caps between them.
        for (i, size) in [(0, "640x360"), (1, "1280x720")] {
            let r = try Tools.run(
                "/usr/bin/gst-launch-1.0",
                [
                    "-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=\(size.split(separator: "x")[0]),height=\(size.split(separator: "x")[1])",
                    "!", "pngenc", "!", "filesink", "location=\(d.appendingPathComponent("in\(i).png").path)",
                ])
            #expect(r.code == 0)
        }
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch",
                "multifilesrc location=in%d.png index=0 stop-index=1 caps=image/png,framerate=30/1 ! pngdec ! videoconvert "
                    + "! video/x-raw,format=I420 ! reframe aspect=1:1 ! videoconvert ! pngenc ! multifilesink location=out%d.png",
            ], cwd: d, timeout: 60)
        #expect(r.code == 0, "\(r.err)")
        // aspect=1:1 without a size: the input's height, square.
        let a = try Tools.luma(of: d.appendingPathComponent("out0.png").path), b = try Tools.luma(of: d.appendingPathComponent("out1.png").path)
        #expect(a.width == 360 && a.height == 360)
        #expect(b.width == 720 && b.height == 720)
    }

    @Test func aBadShapeIsRefusedBeforeAnythingRuns() throws {
        let d = Tools.tempDir()
        let bad = try Tools.run(Tools.viewfinder, ["launch", "videotestsrc ! reframe aspect=9x16 ! fakesink", "--dry-run"], cwd: d)
        #expect(bad.code == 2)
        #expect(bad.err.contains("bad aspect '9x16': expected W:H such as 9:16 or 1:1"), "\(bad.err)")
        let clash = try Tools.run(
            Tools.viewfinder, ["launch", "videotestsrc ! reframe aspect=1:1 width=1080 height=1920 ! fakesink", "--dry-run"], cwd: d)
        #expect(clash.code == 2)
        #expect(clash.err.contains("width=1080 height=1920 is not aspect=1:1"), "\(clash.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path).isEmpty)
    }
}

/// pipelines/reframe-vertical.pipeline as shipped (a live source: the serial pass): the clean landscape recording and
/// the 9:16 stream, received by ffmpeg as an SRT caller and copied without decoding (`-c copy`).
@Suite(.serialized, .tags(.live, .network, .process), .tier) struct ReframePipelineTests {
    @Test func theVerticalStreamIs720x1280AndTheRecordingStaysLandscape() throws {
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out"), withIntermediateDirectories: true)
        let port = Tools.freePort(udp: true)
        let frames = 150
        let (p, o, e) = try Tools.start(
            Tools.viewfinder,
            [
                "run", Tools.root.appendingPathComponent("pipelines/reframe-vertical.pipeline").path, "--set", "videotestsrc0.num-buffers=\(frames)",
                "--set", "srtsink0.uri=srt://127.0.0.1:\(port)?mode=listener",
            ], cwd: d)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        let client = d.appendingPathComponent("client.ts").path
        // The listener is up once the pipeline plays (later on a loaded machine): call until it answers.
        var caller = try Tools.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=caller", "-c", "copy", "-f", "mpegts", "-y", client], timeout: 30)
        for _ in 0..<8 where p.isRunning && (try? Tools.ffprobeVideoFrames(client).count) ?? 0 == 0 {
            usleep(500_000)
            caller = try Tools.run(
                "/usr/bin/ffmpeg", ["-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=caller", "-c", "copy", "-f", "mpegts", "-y", client], timeout: 30)
        }
        let vf = Tools.finish(p, o, e, timeout: 30)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let stream = try Tools.ffprobeVideoFrames(client)
        #expect(stream.count >= 30, "the caller got \(stream.count) frames: \(caller.err)")
        #expect(stream.allSatisfy { $0.width == 720 && $0.height == 1280 })
        let recording = try Tools.ffprobeVideoFrames(d.appendingPathComponent("out/landscape.mkv").path)
        #expect(Double(recording.count) >= 0.9 * Double(frames), "\(recording.count) frames recorded: \(vf.err)")
        #expect(recording.allSatisfy { $0.width == 1280 && $0.height == 720 })
    }
}
