import Foundation
import TestSupport
import Testing

/// `stages`, `inspect`, `run FILE --set`, `bench bridge` through the real binary.
@Suite(.serialized, .tags(.process), .tier) struct CommandsTests {
    @Test func stagesListsEveryStage() throws {
        let r = try Tools.vf("stages")
        #expect(r.code == 0)
        for kind in ["grid", "compose", "capture", "snapshot", "ringlight", "chromakey", "reframe", "redact", "passthrough"] {
            #expect(r.out.contains("\n\(kind) ") || r.out.hasPrefix("\(kind) "))
        }
    }

    @Test func inspectShowsPropertiesLikeGstInspect() throws {
        let r = try Tools.vf("inspect", "grid")
        #expect(r.code == 0)
        #expect(r.out.contains("lines"))
        #expect(r.out.contains("Default: \"thirds\""))
        #expect(r.out.contains("Default: \"#ffffffc0\""))
        #expect(r.out.contains("0.5 - 40.0"))
        #expect(r.out.contains("changeable while playing"))
        let s = try Tools.vf("inspect", "snapshot")
        #expect(s.out.contains("snapshot: the clean frame"))
        #expect(s.out.contains("interval") && s.out.contains("Default: \"snapshot-%05d.jpg\""))
    }

    @Test func runPipelineFileWithOverrideAndAudio() throws {
        let d = Tools.tempDir()
        let file = d.appendingPathComponent("rec.pipeline")
        let out = d.appendingPathComponent("rec.mp4").path
        try """
        # A recording: video with a grid, plus a tone.
        videotestsrc pattern=ball num-buffers=60
          ! video/x-raw,width=320,height=240,framerate=30/1
          ! grid name=grid lines=golden   # overridden below
          ! videoconvert ! x264enc ! h264parse ! queue ! mp4mux name=mux ! filesink location=\(out)
        audiotestsrc num-buffers=86 ! audioconvert ! avenc_aac ! queue ! mux.
        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try Tools.vf("run", file.path, "--set", "grid.lines=thirds", "--print-expanded")
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("grid lines=thirds"))
        #expect(try Tools.ffprobeStreams(out).sorted() == ["audio", "video"])
        #expect(try Tools.ffprobeFrames(out) == 60)
    }

    @Test func shippedPipelinesExpand() throws {
        for name in [
            "demo", "demo-file", "record-mp4", "file-overlay", "snapshot", "compose", "selfie", "greenscreen", "greenscreen-photo",
            "capture", "photobooth", "demo-live", "rtsp-out", "srt-out", "srt-caller", "udp-out", "hls", "record-clean-stream-overlay",
            "srt-camera", "webrtc", "rtmp-out",
        ] {
            let path = Tools.root.appendingPathComponent("pipelines/\(name).pipeline").path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix("# \(name):"), "\(name) opens with what it does")
            #expect(text.contains("Needs:"))
        }
        // The capture pipelines expand: default photo and thumbnail branches after the stage.
        for name in ["capture", "photobooth"] {
            let d = Tools.tempDir()
            let r = try Tools.run(
                Tools.viewfinder, ["run", Tools.root.appendingPathComponent("pipelines/\(name).pipeline").path, "--dry-run"], cwd: d)
            #expect(r.code == 0, "\(r.err)")
            #expect(r.out.contains("jpegenc") && r.out.contains("jifmux") && r.out.contains("videoscale"), "\(r.out)")
        }
        // demo-file really runs (headless) and writes a playable MP4.
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out"), withIntermediateDirectories: true)
        let r = try Tools.run(
            Tools.viewfinder,
            ["run", Tools.root.appendingPathComponent("pipelines/demo-file.pipeline").path, "--set", "videotestsrc.num-buffers=30"], cwd: d)
        #expect(r.code == 0, "\(r.err)")
        #expect(try Tools.ffprobeFrames(d.appendingPathComponent("out/demo.mp4").path) == 30)
    }

    @Test(arguments: [
        (["bench", "bridge", "--frames", "0"], "bad value '0' for --frames"),
        (["bench", "capture", "--rounds", "0"], "bad value '0' for --rounds"),
        (["bench", "faces", "--video", "/etc"], "'/etc' is a directory"),
        (["bench", "controls"], "unknown benchmark 'controls': expected bridge, compose, plugin, faces, chromakey, capture, control, latency, streams, rtsp, cameras, analysis, clips, reframe or redact"),
        (["bench", "cameras", "17"], "bad camera count '17' for bench cameras: expected 1 - 16"),
        (["bench", "streams"], "bench streams needs a count: expected e.g. 'bench streams 2', or --max"),
        (["bench", "streams", "0"], "bad stream count '0' for bench streams: expected 1 - 64"),
        (["bench", "latency", "3"], "unexpected '3' after 'bench latency': only bench streams and bench cameras take a count"),
        (["bench", "latency", "--max"], "--max is for bench streams only"),
        (["bench", "latency", "--seconds", "0"], "bad value '0.0' for --seconds: expected 0.5 - 3600"),
        (["bench", "bridge", "--seconds", "5"], "--seconds is for bench latency, bench streams, bench rtsp, bench cameras and bench clips only"),
        (["bench", "faces", "--photos", "0"], "bad value '0' for --photos: expected 1 - 1000"),
        (["bench", "bridge", "--photos", "3"], "--photos is for bench faces only"),
        (["bench", "streams", "2", "--photos", "3"], "--photos is for bench faces only"),
    ])
    func benchRefusesBadArguments(args: [String], message: String) throws {
        let r = try Tools.run(Tools.viewfinder, args, timeout: 60)
        #expect(r.code == 2)
        #expect(r.err.contains(message), "\(r.err)")
        #expect(r.out.isEmpty, "nothing is measured: \(r.out)")
    }

    /// Tiny runs (10 frames, 3 labelled photos, 1 round): the report's lines and sane figures, not a benchmark
    /// (launch/bench runs those). The recall goals on all 39 photos are asserted on the library function itself:
    /// FaceRecallTests.everyEngineOnTheRealPhotos.
    @Test func benchFacesAndComposePrintTheirFigures() throws {
        let video = Tools.root.appendingPathComponent(".testdata/vtest.avi").path
        try #require(FileManager.default.fileExists(atPath: video), "run launch/testdata")
        let f = try Tools.run(
            Tools.viewfinder, ["bench", "faces", "--frames", "10", "--photos", "3", "--video", video], cwd: Tools.root, timeout: 300)
        #expect(f.code == 0, "\(f.err)")
        // "frames agreeing A/B": every compared frame agrees (both engines run OpenCV's cascade at the same settings).
        let line = try #require(f.out.split(separator: "\n").first { $0.contains("frames agreeing") })
        let counts = line.split(separator: " ").last!.split(separator: "/").compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] == counts[1] && counts[1] >= 9, "\(line)")
        #expect(f.out.split(separator: "\n").contains { $0.hasPrefix("facedetect ") && $0.contains("ratio") })
        // Recall on the first 3 labelled photos, one line per engine: the verified cascade makes no false face.
        #expect(f.out.contains("face recall on the first 3 of the labelled real photos"), "\(f.out)")
        let verified = try #require(f.out.split(separator: "\n").first { $0.hasPrefix("  cascade+verify: recall ") }, "\(f.out)")
        #expect(verified.contains(", 0 false faces in 3 photos"), "\(verified)")
        // The cnn engine's line: measured when launch/fetch-yuface installed it, else why not.
        let yuface = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(
            ".cache/viewfinder/yuface-2023.5.1/yuface/libfacedetection.so")
        if FileManager.default.fileExists(atPath: yuface.path) && ProcessInfo.processInfo.environment["VIEWFINDER_YUFACE_DIR"] == nil {
            let cnn = try #require(f.out.split(separator: "\n").first { $0.hasPrefix("cnn (YuNet") })
            #expect(cnn.contains(" fps, ") && cnn.contains("frames agreeing with facedetect"), "\(cnn)")
            let recall = try #require(f.out.split(separator: "\n").first { $0.hasPrefix("  cnn: recall ") })
            let value = Double(recall.split(separator: " ")[2]) ?? 0
            #expect(value >= 0.95, "\(recall)")
            #expect(f.out.contains("  auto: recall "), "\(f.out)")
        } else {
            #expect(f.out.contains("cnn: not measured: the YuNet face detector"), "\(f.out)")
        }
        // The people engine's line (OpenCV's HOG, linked): vtest's walkers are found in most frames.
        let people = try #require(f.out.split(separator: "\n").first { $0.hasPrefix("people (HOG") }, "\(f.out)")
        let seen = people.split(separator: " ").last!.split(separator: "/").compactMap { Int($0) }
        #expect(people.contains(" fps, ") && seen.count == 2 && seen[1] >= 9 && seen[0] >= seen[1] / 2, "\(people)")
        let k = try Tools.vf("bench", "chromakey", "--frames", "10", timeout: 180)
        #expect(k.code == 0, "\(k.err)")
        #expect(k.out.split(separator: "\n").last?.contains("ratio") == true)
        let c = try Tools.vf("bench", "compose", "--frames", "30", timeout: 180)
        #expect(c.code == 0, "\(c.err)")
        #expect(c.out.contains("per 1080p frame"))
        // 30 frames (1 s) at 5 photos/s: 5 photos each side.
        let p = try Tools.vf("bench", "capture", "--frames", "30", "--rounds", "1", timeout: 180)
        #expect(p.code == 0, "\(p.err)")
        #expect(p.out.contains("(5 photos)") && p.out.contains("(5 photos + thumbnails"), "\(p.out)")
        #expect(p.out.split(separator: "\n").last?.contains("ratio") == true)
    }

    @Test func benchBridgeIsZeroCopyAndPrintsRatioLast() throws {
        let r = try Tools.vf("bench", "bridge", "--frames", "40", "--rounds", "1", timeout: 120)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.last?.contains("ratio") == true)
        #expect(r.out.contains("zero-copy: 0 buffer copies; 40/40 buffers reached fakesink with the very memory"))
    }
}
