import Foundation
import TestSupport
import Testing

/// `viewfinder launch` with real elements, checked with ffprobe and gst-launch-1.0.
@Suite(.serialized, .tags(.process), .tier) struct LaunchTests {
    @Test func nonLive90FramesKeepCountAndTimestamps() throws {
        let d = Tools.tempDir()
        let ours = d.appendingPathComponent("grid.mp4").path
        let ref = d.appendingPathComponent("ref.mp4").path
        let src = "videotestsrc num-buffers=90 ! video/x-raw,width=640,height=360,framerate=30/1"
        let r = try Tools.run(
            Tools.viewfinder, ["launch", "\(src) ! grid lines=thirds ! videoconvert ! x264enc ! mp4mux ! filesink location=\(ours)"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("90 in, 90 out, 0 dropped"))
        // The same source straight into the encoder with gst-launch-1.0 gives the reference timestamps.
        let g = try Tools.run(
            "/usr/bin/gst-launch-1.0",
            ["-q"] + "\(src) ! videoconvert ! x264enc ! mp4mux ! filesink location=\(ref)".split(separator: " ").map(String.init))
        #expect(g.code == 0)
        #expect(try Tools.ffprobeFrames(ours) == 90)
        let a = try Tools.ffprobeVideoFrames(ours).map(\.pts), b = try Tools.ffprobeVideoFrames(ref).map(\.pts)
        #expect(a.count == 90)
        #expect(a == b)
        #expect(abs((a.last ?? 0) - 89.0 / 30.0) < 0.002)
    }

    @Test(.tags(.live)) func liveSourceIntoEncoderFinishesWithoutDeadlock() throws {
        let d = Tools.tempDir()
        let out = d.appendingPathComponent("live.mp4").path
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch",
                "videotestsrc is-live=true num-buffers=60 ! video/x-raw,width=640,height=360,framerate=30/1 ! grid ! videoconvert ! x264enc tune=zerolatency ! mp4mux ! filesink location=\(out)",
            ], timeout: 60)
        #expect(r.code == 0, "\(r.err)")
        let frames = try Tools.ffprobeFrames(out)
        #expect(frames >= 57 && frames <= 60)  // >= 95 %
    }

    @Test(arguments: ["I420", "NV12", "RGBA", "BGRA", "RGBx", "BGRx", "YUY2", "UYVY", "Y444"])
    func gridPixelsOnBlack(format: String) throws {
        let d = Tools.tempDir()
        let out = d.appendingPathComponent("grid.png").path
        let r = try Tools.vf(
            "launch",
            "videotestsrc pattern=black num-buffers=1 ! video/x-raw,format=\(format),width=1280,height=720 ! grid lines=thirds color=#ffffffff width=3 ! videoconvert ! pngenc ! filesink location=\(out)"
        )
        #expect(r.code == 0, "\(r.err)")
        let img = try Tools.luma(of: out)
        #expect(img.width == 1280 && img.height == 720)
        #expect(Tools.columnMean(img, x: 1280 / 3) > 200)
        #expect(Tools.columnMean(img, x: 2 * 1280 / 3) > 200)
        #expect(Tools.columnMean(img, x: 640) < 90)  // only the horizontal lines cross it
        #expect(Tools.columnMean(img, x: 100) < 90)
    }

    /// `viewfinder launch ... 2>&1 | head -1`: once the reader is gone, writing the summary (or any
    /// warning) to stderr fails; the run must still end normally, not die of SIGPIPE or a trap.
    @Test func closedStandardErrorDoesNotKillTheRun() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Tools.viewfinder)
        p.arguments = ["launch", "videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120 ! grid ! fakesink"]
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        p.standardError = pipe
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationReason == .exit)
        #expect(p.terminationStatus == 0)
    }

    @Test func teeAfterStageFeedsTwoEncoders() throws {
        let d = Tools.tempDir()
        let a = d.appendingPathComponent("a.mp4").path, b = d.appendingPathComponent("b.mkv").path
        let r = try Tools.vf(
            "launch",
            "videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240 ! grid ! tee name=t t. ! queue ! videoconvert ! x264enc ! mp4mux ! filesink location=\(a) t. ! queue ! videoconvert ! jpegenc ! matroskamux ! filesink location=\(b)"
        )
        #expect(r.code == 0, "\(r.err)")
        #expect(try Tools.ffprobeFrames(a) == 30)
        #expect(try Tools.ffprobeFrames(b) == 30)
    }

    @Test func stageBetweenQueuesAndTwoStagesInARow() throws {
        let d = Tools.tempDir()
        let a = d.appendingPathComponent("q.mp4").path, b = d.appendingPathComponent("two.mp4").path
        let r1 = try Tools.vf(
            "launch",
            "videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240 ! queue ! grid ! queue ! videoconvert ! x264enc ! mp4mux ! filesink location=\(a)"
        )
        #expect(r1.code == 0, "\(r1.err)")
        #expect(try Tools.ffprobeFrames(a) == 30)
        let r2 = try Tools.vf(
            "launch", "--print-expanded",
            "videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240 ! grid lines=thirds ! grid lines=diagonals ! videoconvert ! x264enc ! mp4mux ! filesink location=\(b)"
        )
        #expect(r2.code == 0, "\(r2.err)")
        #expect(try Tools.ffprobeFrames(b) == 30)
        // Adjacent stages run fused in one worker: two segments, one group of two stages.
        #expect(r2.out.contains("grid0 (grid lines=thirds) -> grid1 (grid lines=diagonals)"))
        #expect(!r2.out.contains("[2]"))
        #expect(r2.err.contains("stage grid0: 30 frames") && r2.err.contains("stage grid1: 30 frames"))
    }

    @Test(.tags(.live)) func snapshotIntervalGivesCleanJPEGs() throws {
        let d = Tools.tempDir()
        let r = try Tools.vf(
            "launch",
            "videotestsrc is-live=true pattern=black num-buffers=90 ! video/x-raw,width=640,height=360,framerate=30/1 ! grid color=#ffffffff width=4 ! snapshot name=s interval=1 ! fakesink  s.snapshot ! queue ! jpegenc ! multifilesink location=\(d.path)/shot-%05d.jpg",
            timeout: 60)
        #expect(r.code == 0, "\(r.err)")
        let shots = Tools.files(in: d, suffix: ".jpg")
        #expect(shots == ["shot-00000.jpg", "shot-00001.jpg", "shot-00002.jpg"])
        for s in shots {
            let img = try Tools.luma(of: d.appendingPathComponent(s).path, decoder: "jpegdec")
            #expect(img.width == 640 && img.height == 360)
            // Clean: no grid line at the thirds, the frame is black throughout.
            #expect(Tools.columnMean(img, x: 213) < 30)
            #expect(Tools.columnMean(img, x: 426) < 30)
        }
    }

    @Test func snapshotDefaultBranchWritesToLocation() throws {
        let d = Tools.tempDir()
        let r = try Tools.vf(
            "launch",
            "videotestsrc num-buffers=20 ! video/x-raw,width=320,height=240 ! snapshot at=2,5,9 location=\(d.path)/auto-%02d.jpg ! fakesink"
        )
        #expect(r.code == 0, "\(r.err)")
        #expect(Tools.files(in: d, suffix: ".jpg") == ["auto-00.jpg", "auto-01.jpg", "auto-02.jpg"])
        let probe = try Tools.run("/usr/bin/gst-discoverer-1.0", [d.appendingPathComponent("auto-01.jpg").path])
        #expect(probe.out.contains("Width: 320") && probe.out.contains("Height: 240"))
        // jifmux wrote the stage's tags as EXIF; exiftool reads them back.
        let exif = try Tools.run(
            "/usr/bin/exiftool",
            ["-s", "-DateTimeOriginal", "-ImageDescription", "-Software", d.appendingPathComponent("auto-01.jpg").path])
        #expect(exif.out.contains("ImageDescription                : Viewfinder snapshot 2 by snapshot0 (at) at frame 5"))
        #expect(exif.out.contains("Software                        : Viewfinder"))
        let year = Calendar.current.component(.year, from: Date())
        #expect(exif.out.contains("DateTimeOriginal                : \(year):"))
    }

    @Test func mirroredPreviewUnmirroredCleanPhoto() throws {
        let d = Tools.tempDir()
        let preview = d.appendingPathComponent("preview.gray").path
        // smpte bars: light grey on the left, dark/blue on the right — easy to tell mirrored from not.
        let r = try Tools.vf(
            "launch",
            "videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,width=320,height=240 ! snapshot name=s at=0 ! ringlight width=60 opacity=100 preset=pure-white ! videoflip video-direction=horiz ! videoconvert ! video/x-raw,format=GRAY8 ! filesink location=\(preview)  s.snapshot ! queue ! jpegenc ! filesink location=\(d.path)/photo.jpg"
        )
        #expect(r.code == 0, "\(r.err)")
        let photo = try Tools.luma(of: d.appendingPathComponent("photo.jpg").path, decoder: "jpegdec")
        let prev = try #require(FileManager.default.contents(atPath: preview)).map { Int($0) }
        #expect(photo.width == 320 && prev.count == 320 * 240)
        let col = { (x: Int) in (40..<120).map { prev[$0 * 320 + x] }.reduce(0, +) / 80 }
        // Photo: unmirrored (left bar light, right bar dark) and without the ring (the dark right edge stays dark).
        #expect(Tools.columnMean(photo, x: 30) > Tools.columnMean(photo, x: 290) + 60)
        #expect(Tools.columnMean(photo, x: 318) < 80)
        // Preview: mirrored (the light bar is now on the right) and lit by the white ring, even over the dark bar.
        #expect(col(290) > col(30) + 60)
        #expect(col(1) >= 230 && col(30) < 80)
    }

    @Test func ringlightBeforeSnapshotInOneGroupKeepsThePhotoClean() throws {
        let d = Tools.tempDir()
        let r = try Tools.vf(
            "launch",
            "videotestsrc pattern=black num-buffers=1 ! video/x-raw,width=320,height=240 ! ringlight opacity=100 width=120 ! snapshot name=s at=0 ! fakesink  s.snapshot ! queue ! jpegenc ! filesink location=\(d.path)/photo.jpg"
        )
        #expect(r.code == 0, "\(r.err)")
        let photo = try Tools.luma(of: d.appendingPathComponent("photo.jpg").path, decoder: "jpegdec")
        #expect(photo.width == 320)
        #expect(Tools.columnMean(photo, x: 2) < 30)  // no white ring in the photo
    }

    @Test(.tags(.live)) func progressPrintsALiveLine() throws {
        let r = try Tools.vf(
            "launch", "--progress",
            "videotestsrc is-live=true num-buffers=75 ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! fakesink", timeout: 30)
        #expect(r.code == 0)
        #expect(r.err.contains("\r["))
        #expect(r.err.contains(" fps"))
    }

    @Test func descriptionSplitOverArgumentsLikeGstLaunch() throws {
        let d = Tools.tempDir()
        let out = d.appendingPathComponent("with space.mp4").path
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch", "videotestsrc", "num-buffers=10", "!", "grid", "lines=golden", "!", "videoconvert", "!",
                "x264enc", "!", "mp4mux", "!", "filesink", "location=\(out)",
            ])
        #expect(r.code == 0, "\(r.err)")
        #expect(try Tools.ffprobeFrames(out) == 10)
    }
}

/// Options after the description, help, displays, truncated files and readable messages.
extension LaunchTests {
    @Test(arguments: [
        ["launch", "--help"], ["launch", "-h"], ["launch", "--quiet", "-h"], ["launch", "videotestsrc", "!", "fakesink", "--help"],
    ])
    func helpPrintsUsageAndExitsZero(args: [String]) throws {
        let r = try Tools.run(Tools.viewfinder, args)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("USAGE: viewfinder launch") && r.out.contains("--set <set>"), "\(r.out)")
    }

    @Test func optionsAfterTheDescriptionAreApplied() throws {
        let r = try Tools.vf("launch", "videotestsrc num-buffers=3 ! grid ! fakesink", "--set", "grid.lines=golden", "--dry-run")
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("grid0 (grid lines=golden)"), "\(r.out)")
        // Split over arguments like gst-launch-1.0, with every kind of option after it.
        let s = try Tools.run(
            Tools.viewfinder,
            [
                "launch", "videotestsrc", "num-buffers=3", "!", "grid", "!", "fakesink", "--set=grid.lines=center",
                "-m", "--quiet", "--queue", "lossless", "--queue-size", "3", "--print-expanded",
            ])
        #expect(s.code == 0, "\(s.err)")
        #expect(s.out.contains("grid0 (grid lines=center)"), "\(s.out)")
        #expect(!s.err.contains("frames:"), "--quiet after the description was applied: \(s.err)")
    }

    @Test func anUnknownOptionAfterTheDescriptionIsNamed() throws {
        let r = try Tools.vf("launch", "videotestsrc num-buffers=3 ! fakesink", "--foo")
        #expect(r.code == 2)
        #expect(r.err.contains("unknown option '--foo' for launch: options are --print-expanded, --dry-run,"), "\(r.err)")
        #expect(r.err.contains("(before or after the description)"))
        let v = try Tools.vf("launch", "videotestsrc num-buffers=3 ! fakesink", "--set")
        #expect(v.code == 2 && v.err.contains("option '--set' needs a value: --set target.prop=value"), "\(v.err)")
    }

    @Test func runTakesOptionsAfterTheFile() throws {
        let r = try Tools.vf("run", "pipelines/demo-file.pipeline", "--set", "grid.lines=golden", "--dry-run", cwd: Tools.root)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("(grid lines=golden"), "\(r.out)")
    }

    static var noDisplay: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        return env
    }

    @Test func autovideosinkWithoutADisplayIsAUsageError() throws {
        // gst-launch-1.0 crashes here (autovideosink falls back to DirectFB's dfbvideosink: SIGSEGV, exit 139).
        let r = try Tools.run(
            Tools.viewfinder, ["launch", "videotestsrc num-buffers=30 ! autovideosink"], environment: Self.noDisplay, timeout: 30)
        #expect(r.code == 2, "\(r.err)")
        #expect(
            r.err.contains(
                "viewfinder: autovideosink: no display (DISPLAY is not set): use fakesink, or encode to a file (videoconvert ! x264enc ! mp4mux ! filesink location=out.mp4), or run under Xvfb"
            ), "\(r.err)")
        var bad = Self.noDisplay
        bad["DISPLAY"] = ":219"
        let x = try Tools.run(
            Tools.viewfinder, ["launch", "videotestsrc num-buffers=30 ! ximagesink name=win"], environment: bad, timeout: 30)
        #expect(x.code == 2 && x.err.contains("win (ximagesink): cannot open the X display ':219'"), "\(x.err)")
        // --dry-run runs nothing, so it needs no display.
        let d = try Tools.run(Tools.viewfinder, ["launch", "--dry-run", "videotestsrc ! autovideosink"], environment: Self.noDisplay)
        #expect(d.code == 0 && d.out.contains("videotestsrc ! autovideosink"), "\(d.err)")
    }

    @Test(.tags(.live)) func autovideosinkUnderXvfbRuns() throws {
        let xvfb = "/usr/bin/Xvfb"
        guard FileManager.default.isExecutableFile(atPath: xvfb) else {
            Issue.record("Xvfb is not installed (launch/setup installs xvfb)"); return
        }
        let n = 200 + Int(getpid() % 100)
        let (server, o, e) = try Tools.start(xvfb, [":\(n)", "-screen", "0", "640x480x24", "-nolisten", "tcp"])
        defer { server.terminate(); _ = Tools.finish(server, o, e, timeout: 5) }
        var env = Self.noDisplay
        env["DISPLAY"] = ":\(n)"
        var r = Tools.Result(code: -1, out: "", err: "")
        for _ in 0..<50 {  // until the server accepts connections
            r = try Tools.run(Tools.viewfinder, ["launch", "videotestsrc num-buffers=10 ! autovideosink"], environment: env, timeout: 30)
            if !r.err.contains("cannot open the X display") { break }
            usleep(100_000)
        }
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("frames:"), "\(r.err)")
    }

    /// A 150-frame (5 s) file cut to half its size.
    static func truncated(_ mux: String, ext: String, in d: URL) throws -> (full: String, half: String) {
        let full = d.appendingPathComponent("full.\(ext)").path, half = d.appendingPathComponent("half.\(ext)").path
        let g = try Tools.run(
            "/usr/bin/gst-launch-1.0",
            ["-q"]
                + "videotestsrc num-buffers=150 ! video/x-raw,width=320,height=240,framerate=30/1 ! videoconvert ! x264enc ! \(mux) ! filesink location=\(full)"
                .split(separator: " ").map(String.init))
        #expect(g.code == 0, "\(g.err)")
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: half))
        return (full, half)
    }

    @Test(arguments: [("mp4mux faststart=true", "mp4"), ("matroskamux", "mkv")])
    func aTruncatedFileIsReported(mux: String, ext: String) throws {
        let d = Tools.tempDir()
        let (full, half) = try Self.truncated(mux, ext: ext, in: d)
        // GStreamer itself posts nothing about it: gst-launch-1.0 plays the half file with exit 0.
        let g = try Tools.run(
            "/usr/bin/gst-launch-1.0", ["filesrc", "location=\(half)", "!", "decodebin", "!", "videoconvert", "!", "fakesink"])
        #expect(g.code == 0 && !g.out.contains("WARNING") && !g.err.contains("WARNING"))
        for stage in ["", "grid ! "] {
            let r = try Tools.vf("launch", "filesrc location=\(half) ! decodebin ! videoconvert ! \(stage)fakesink")
            #expect(r.code == 0, "\(r.err)")
            #expect(
                r.err.contains("WARNING: input ended at 2.") && r.err.contains(" s of 5.0 s (truncated file?): filesrc0 location=\(half)"),
                "\(r.err)")
            let whole = try Tools.vf("launch", "filesrc location=\(full) ! decodebin ! videoconvert ! \(stage)fakesink")
            #expect(whole.code == 0 && !whole.err.contains("truncated"), "\(whole.err)")
        }
    }

    @Test func runtimeErrorsPrintTheWholeDebugText() throws {
        let d = Tools.tempDir()
        let (full, _) = try Self.truncated("matroskamux", ext: "mkv", in: d)
        let r = try Tools.vf("launch", "filesrc location=\(full) ! decodebin ! video/x-raw,format=RGB ! fakesink")
        #expect(r.code == 1)
        #expect(r.err.contains("ERROR from element matroskademux0 (matroskademux): Internal data stream error.\n  debug: "), "\(r.err)")
        #expect(r.err.contains("\n    streaming stopped, reason not-negotiated (-4)"), "\(r.err)")
    }

    @Test func messagesArePrintedReadably() throws {
        let d = Tools.tempDir()
        let r = try Tools.vf(
            "launch", "-m", "videotestsrc num-buffers=2 ! jpegenc ! multifilesink post-messages=true location=\(d.path)/%05d.jpg")
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out.contains(
                "multifilesink0: GstMultiFileSink filename=\(d.path)/00000.jpg index=0 timestamp=0 stream-time=0 running-time=0 duration=33333333"
            ), "\(r.out)")
        #expect(!r.out.contains("(string)"))
    }
}
