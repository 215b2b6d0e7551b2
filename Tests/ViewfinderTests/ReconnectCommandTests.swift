import Foundation
import TestSupport
import Testing

/// `--reconnect` with real network sources: an SRT camera served by a second process (gst-launch-1.0, SRT
/// listener) that the test kills and starts again, Viewfinder as the SRT caller recording an MP4 and serving
/// RTSP to a gst-launch-1.0 viewer; then the recording is decoded by ffmpeg/ffprobe and its pixels checked.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct ReconnectCommandTests {
    /// The camera: a live SMPTE test pattern, H.264 in MPEG-TS, SRT listener on `port`.
    static func camera(port: Int, width: Int = 320, height: Int = 240) throws -> Process {
        let (p, _, _) = try Tools.start(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "videotestsrc", "is-live=true", "pattern=smpte", "!", "video/x-raw,width=\(width),height=\(height),framerate=30/1", "!",
                "x264enc", "tune=zerolatency", "speed-preset=ultrafast", "key-int-max=15", "!", "mpegtsmux", "!",
                "srtsink", "uri=srt://127.0.0.1:\(port)?mode=listener", "wait-for-connection=false",
            ])
        return p
    }

    /// Viewfinder: SRT caller -> compose -> an MP4 recording (and, with `rtspPort`, an RTSP output), `-m` so the
    /// source messages come on stdout.
    static func viewfinder(srtPort: Int, mp4: String, rtspPort: Int?) throws -> (Process, URL, URL) {
        var d =
            "srtsrc uri=srt://127.0.0.1:\(srtPort)?mode=caller ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! compose ! tee name=t "
            + "t. ! queue ! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! mp4mux ! filesink location=\(mp4)"
        if let rtspPort {
            d +=
                " t. ! queue leaky=downstream max-size-buffers=30 ! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! rtph264pay ! rtspserve port=\(rtspPort) path=/live"
        }
        return try Tools.start(Tools.viewfinder, ["launch", "-m", d])
    }

    /// The `viewfinder/source` lines printed with -m: state and the fields after it.
    static func sourceMessages(_ out: String) -> [[String: String]] {
        out.split(separator: "\n").filter { $0.contains("viewfinder/source ") }.map { line in
            var f: [String: String] = [:]
            // key=value or key="a quoted value"
            for m in String(line).matches(of: /([a-z-]+)=(?:"([^"]*)"|(\S+))/) {
                f[String(m.1)] = String(m.2 ?? m.3 ?? "")
            }
            return f
        }
    }

    /// Waits until `file` (stdout of a child) contains `text`; the seconds it took, nil after `timeout`.
    static func waitFor(_ text: String, in file: URL, timeout: Double) -> Double? {
        let t0 = Date()
        while Date().timeIntervalSince(t0) < timeout {
            if let s = try? String(contentsOf: file, encoding: .utf8), s.contains(text) { return Date().timeIntervalSince(t0) }
            usleep(50_000)
        }
        return nil
    }

    /// Every frame of `mp4` as 8-bit luma (ffmpeg), with its presentation time (ffprobe).
    static func frames(_ mp4: String) throws -> (pts: [Double], luma: [[UInt8]], width: Int, height: Int) {
        let times = try Tools.ffprobeVideoFrames(mp4)
        guard let first = times.first else { return ([], [], 0, 0) }
        let raw = mp4 + ".gray"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let r = try Tools.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", mp4, "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw], timeout: 60)
        guard r.code == 0, let data = FileManager.default.contents(atPath: raw) else { return ([], [], 0, 0) }
        let size = first.width * first.height
        let bytes = [UInt8](data)
        let luma = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
        return (times.map(\.pts), luma, first.width, first.height)
    }

    /// Every JPEG in `dir` (in name order) decoded at 320x180 by ffmpeg: its luma and the share of its pixels that are
    /// green (green over red and blue by 40 or more: nothing on the slate is).
    static func rgbFrames(in dir: URL) throws -> [(luma: [UInt8], greenShare: Double)] {
        let raw = dir.appendingPathComponent("frames.rgb").path
        let r = try Tools.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-framerate", "30", "-i", dir.appendingPathComponent("%05d.jpg").path, "-vf", "scale=320:180", "-pix_fmt", "rgb24",
             "-f", "rawvideo", raw], timeout: 120)
        guard r.code == 0, let data = FileManager.default.contents(atPath: raw) else { return [] }
        let bytes = [UInt8](data), size = 320 * 180 * 3
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { start in
            var luma = [UInt8](repeating: 0, count: 320 * 180)
            var green = 0
            for i in 0..<(320 * 180) {
                let r = Int(bytes[start + 3 * i]), g = Int(bytes[start + 3 * i + 1]), b = Int(bytes[start + 3 * i + 2])
                luma[i] = UInt8((299 * r + 587 * g + 114 * b) / 1000)
                if g >= r + 40 && g >= b + 40 { green += 1 }
            }
            return (luma, Double(green) / Double(320 * 180))
        }
    }

    /// The largest step between consecutive presentation times (s), -1 for fewer than two.
    static func largestGap(_ times: [Double]) -> Double {
        let pts = times.sorted()
        return zip(pts, pts.dropFirst()).map { $1 - $0 }.max() ?? -1
    }

    /// What a frame shows: the SMPTE pattern (its first bar, 75 % white, is bright at the top left), the slate
    /// (dark grey with white text in the middle band), or something else.
    enum Kind: Equatable { case live, slate, other }
    static func kind(_ f: [UInt8], width w: Int, height h: Int) -> Kind {
        func mean(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Double {
            var s = 0
            for y in y0..<y1 { for x in x0..<x1 { s += Int(f[y * w + x]) } }
            return Double(s) / Double((x1 - x0) * (y1 - y0))
        }
        let bar = mean(w / 40, h / 4, w / 10, h / 2)
        let corner = mean(w - w / 10, h - h / 10, w - 2, h - 2)
        let middle = (h * 2 / 5..<h * 3 / 5).flatMap { y in (w / 4..<w * 3 / 4).map { f[y * w + $0] } }
        if bar > 150 { return .live }
        if abs(bar - 40) < 15 && abs(corner - 40) < 15 && (middle.max() ?? 0) > 190 { return .slate }
        return .other
    }

    /// The camera is killed for 5 s and started again: the recording goes on through the outage with no hole
    /// (no gap over 2 frame durations), slate frames in it and live frames after; the RTSP viewer that was
    /// watching stays connected and decodes live frames again; the messages tell lost / retrying / restored.
    @Test func anSRTCameraKilledForFiveSecondsComesBack() throws {
        let srtPort = Int(Tools.freePort(udp: true)), rtspPort = Int(Tools.freePort())
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("out.mp4").path
        let seen = dir.appendingPathComponent("viewer")
        try FileManager.default.createDirectory(at: seen, withIntermediateDirectories: true)
        var cam = try Self.camera(port: srtPort)
        defer { if cam.isRunning { kill(cam.processIdentifier, SIGKILL) } }
        usleep(800_000)
        let (vf, o, e) = try Self.viewfinder(srtPort: srtPort, mp4: mp4, rtspPort: rtspPort)
        defer { if vf.isRunning { kill(vf.processIdentifier, SIGKILL) } }
        #expect(Self.waitFor("rtsp://127.0.0.1:\(rtspPort)/live", in: e, timeout: 15) != nil)
        let (viewer, _, viewerErr) = try Tools.start(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "rtspsrc", "location=rtsp://127.0.0.1:\(rtspPort)/live", "protocols=tcp", "!", "rtph264depay", "!", "h264parse", "!",
                "avdec_h264", "!", "videoconvert", "!", "jpegenc", "!", "multifilesink", "location=\(seen.path)/%05d.jpg",
            ])
        defer { if viewer.isRunning { kill(viewer.processIdentifier, SIGKILL) } }
        sleep(3)
        let beforeKill = Tools.files(in: seen, suffix: ".jpg").count
        kill(cam.processIdentifier, SIGKILL)
        cam.waitUntilExit()
        sleep(5)
        let duringOutage = Tools.files(in: seen, suffix: ".jpg").count
        cam = try Self.camera(port: srtPort)
        let back = Date()
        // stderr is written unbuffered (stdout, where -m prints, may lag behind).
        let restoredAfter = Self.waitFor("' restored after", in: e, timeout: 25)
        let returnToLive = Date().timeIntervalSince(back)
        sleep(3)
        let afterReturn = Tools.files(in: seen, suffix: ".jpg").count
        let viewerAlive = viewer.isRunning
        kill(vf.processIdentifier, SIGINT)
        let r = Tools.finish(vf, o, e, timeout: 15)
        kill(viewer.processIdentifier, SIGKILL)
        viewer.waitUntilExit()

        #expect(!r.hung && r.code == 0, "exit \(r.code): \(r.err.suffix(1500))")
        #expect(restoredAfter != nil, "not restored: \(r.err.suffix(1500))")
        print("ReconnectCommandTests: live frames at the output \(String(format: "%.2f", returnToLive)) s after the camera came back")
        let m = Self.sourceMessages(r.out)
        #expect(m.filter { $0["state"] == "lost" }.count == 1, "\(m)")
        #expect(m.filter { $0["state"] == "restored" }.count == 1, "\(m)")
        #expect(m.contains { $0["state"] == "retrying" && $0["attempt"] == "1" && $0["retry-in"] == "1" }, "\(m)")
        // Lost by silence (the caller reconnects on its own, quietly) or by srtsrc's error, whichever comes first.
        #expect(m.first?["element"] == "srtsrc0" && (m.first?["reason"].map { $0.contains("no frame") || $0.contains("srtsrc0") } ?? false), "\(m)")
        // The viewer decoded before, during (the slate) and after the outage, without reconnecting.
        #expect(viewerAlive, "the RTSP viewer left: \((try? String(contentsOf: viewerErr, encoding: .utf8)) ?? "")")
        #expect(beforeKill > 30 && duringOutage > beforeKill + 60 && afterReturn > duringOutage + 45, "\(beforeKill) \(duringOutage) \(afterReturn)")
        // What the RTSP viewer decoded through the outage: whole slate frames, no green (a half-filled or mis-strided
        // frame decodes green where its chroma is missing), from its first slate frame to its last.
        let viewed = try Self.rgbFrames(in: seen)
        let viewedKinds = viewed.map { Self.kind($0.luma, width: 320, height: 180) }
        let firstViewedSlate = try #require(viewedKinds.firstIndex(of: .slate), "the viewer saw no slate")
        let lastViewedSlate = try #require(viewedKinds.lastIndex(of: .slate))
        let notSlate = (firstViewedSlate...lastViewedSlate).filter { viewedKinds[$0] != .slate }
        #expect(notSlate.isEmpty, "viewer frames \(notSlate.prefix(10)) between its first and last slate frames are no slate")
        let green = (firstViewedSlate...lastViewedSlate).filter { viewed[$0].greenShare > 0.01 }
        #expect(green.isEmpty, "viewer slate frames with green: \(green.prefix(10).map { ($0, viewed[$0].greenShare) })")
        if let last = Tools.files(in: seen, suffix: ".jpg").dropLast(3).last {
            let img = try Tools.luma(of: seen.appendingPathComponent(last).path, decoder: "jpegdec")
            #expect(Self.kind(img.pixels, width: img.width, height: img.height) == .live, "the viewer's last frame \(last)")
        }

        // The recording: no hole, slate frames in the outage, live before and after.
        let f = try Self.frames(mp4)
        #expect(f.luma.count == f.pts.count && f.pts.count > 300, "\(f.pts.count) frames, \(f.luma.count) decoded")
        let gap = Self.largestGap(f.pts)
        #expect(gap <= 2.0 / 30 + 0.002, "largest gap \(gap) s")
        let kinds = f.luma.map { Self.kind($0, width: f.width, height: f.height) }
        let firstSlate = try #require(kinds.firstIndex(of: .slate), "no slate frame")
        let lastSlate = try #require(kinds.lastIndex(of: .slate))
        #expect(kinds[..<firstSlate].allSatisfy { $0 == .live } && firstSlate > 60)
        #expect(kinds[(lastSlate + 1)...].allSatisfy { $0 == .live } && kinds.count - lastSlate > 60)
        // The slate covers the outage from the last live frame (backfilled over the silence before the loss was
        // declared) to the first live frame after the return: the 5 s the camera was away and more.
        let slates = kinds.filter { $0 == .slate }.count
        #expect(slates >= 145 && kinds[firstSlate...lastSlate].allSatisfy { $0 == .slate }, "\(slates) slate frames: \(kinds[firstSlate...lastSlate].filter { $0 != .slate }.count) others among them")
    }

    /// The camera gone for 40 s: the delays double from 1 s and stop at the 30 s cap (1, 2, 4, 8, 16, 30), every
    /// failed attempt is counted, and the source comes back at the attempt after its return; the recording has
    /// no hole.
    @Test func anSRTCameraGoneForFortySecondsReachesTheCapAndComesBack() throws {
        let srtPort = Int(Tools.freePort(udp: true))
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("out.mp4").path
        var cam = try Self.camera(port: srtPort)
        defer { if cam.isRunning { kill(cam.processIdentifier, SIGKILL) } }
        usleep(800_000)
        let (vf, o, e) = try Self.viewfinder(srtPort: srtPort, mp4: mp4, rtspPort: nil)
        defer { if vf.isRunning { kill(vf.processIdentifier, SIGKILL) } }
        sleep(3)
        kill(cam.processIdentifier, SIGKILL)
        cam.waitUntilExit()
        sleep(40)
        cam = try Self.camera(port: srtPort)
        // The attempt after the return comes at most 30 s later.
        let restored = Self.waitFor("' restored after", in: e, timeout: 40)
        sleep(2)
        kill(vf.processIdentifier, SIGINT)
        let r = Tools.finish(vf, o, e, timeout: 15)
        #expect(!r.hung && r.code == 0, "exit \(r.code): \(r.err.suffix(1500))")
        #expect(restored != nil, "not restored: \(r.err.suffix(2000))")
        let m = Self.sourceMessages(r.out)
        let retries = m.filter { $0["state"] == "retrying" }
        #expect(retries.map { $0["retry-in"] ?? "" }.prefix(6) == ["1", "2", "4", "8", "16", "30"], "\(retries)")
        #expect(retries.map { Int($0["attempt"] ?? "") ?? 0 } == Array(1...retries.count))
        let back = try #require(m.last { $0["state"] == "restored" })
        // The outage counts from the loss (up to 2 s of silence after the kill) to the first attempt after the return.
        #expect(back["attempt"] == "\(retries.count)" && (Double(back["outage"] ?? "") ?? 0) >= 37, "\(back)")
        #expect(m.filter { $0["state"] == "lost" }.count == 1)
        // Each failed attempt says so on stderr, naming the source.
        #expect(r.err.components(separatedBy: "source 'srtsrc0': attempt").count - 1 >= retries.count)
        let pts = try Tools.ffprobeVideoFrames(mp4).map(\.pts)
        let gap = Self.largestGap(pts)
        #expect(pts.count > 40 * 30 && gap <= 2.0 / 30 + 0.002, "\(pts.count) frames, largest gap \(gap) s")
    }

    /// A caller whose listener never comes: each attempt fails with the element's error, and with
    /// `--reconnect-attempts 2` the run ends (exit 1) naming the source and the option, not hanging.
    @Test func anUnreachableCallerGivesUpAfterTheAttempts() throws {
        let port = Int(Tools.freePort(udp: true))
        let r = try Tools.run(
            Tools.viewfinder,
            [
                "launch", "--reconnect-attempts", "2",
                "srtsrc uri=srt://127.0.0.1:\(port)?mode=caller ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! compose ! fakesink",
            ], timeout: 60)
        #expect(!r.hung && r.code == 1, "exit \(r.code): \(r.err)")
        #expect(r.err.contains("source 'srtsrc0' lost (no frame in the first 10 s)"), "\(r.err)")
        #expect(r.err.contains("not back after 2 attempts (--reconnect-attempts 2)"), "\(r.err)")
        #expect(r.err.contains("source 'srtsrc0': attempt 2"), "\(r.err)")
    }

    /// Bad uses of the options are refused before anything runs (exit 2), naming the option and what it needs.
    @Test func badReconnectUsesAreRefusedBeforeTheRun() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notLive = try Tools.run(
            Tools.viewfinder, ["launch", "--reconnect", "videotestsrc num-buffers=5 ! compose ! multifilesink location=\(dir.path)/f%d.raw"])
        #expect(notLive.code == 2 && notLive.err.contains("--reconnect: no live source before the first stage"), "\(notLive.err)")
        #expect(Tools.files(in: dir, suffix: ".raw").isEmpty)
        let noStage = try Tools.run(Tools.viewfinder, ["launch", "--reconnect", "videotestsrc is-live=true num-buffers=5 ! fakesink"])
        #expect(noStage.code == 2 && noStage.err.contains("--reconnect: the description has no Viewfinder stage"), "\(noStage.err)")
        let negative = try Tools.run(
            Tools.viewfinder, ["launch", "--reconnect-attempts", "-1", "videotestsrc is-live=true num-buffers=5 ! compose ! fakesink"])
        #expect(negative.code == 2 && negative.err.contains("--reconnect-attempts"), "\(negative.err)")
        // A file that ends still ends the run (not watched by default).
        let file = try Tools.run(Tools.viewfinder, ["launch", "videotestsrc num-buffers=5 ! compose ! fakesink"])
        #expect(file.code == 0 && !file.err.contains("lost"), "\(file.err)")
    }

    /// The camera comes back at another size (640x480 instead of 320x240): the new caps are negotiated like any
    /// change mid-stream (the stage reconfigures, jpegenc takes the new size), the placeholders had the old size.
    @Test func aCameraBackAtAnotherSizeIsNegotiated() throws {
        let srtPort = Int(Tools.freePort(udp: true))
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var cam = try Self.camera(port: srtPort)
        defer { if cam.isRunning { kill(cam.processIdentifier, SIGKILL) } }
        usleep(800_000)
        let (vf, o, e) = try Tools.start(
            Tools.viewfinder,
            [
                "launch",
                "srtsrc uri=srt://127.0.0.1:\(srtPort)?mode=caller ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! compose ! videoconvert "
                    + "! jpegenc ! multifilesink location=\(dir.path)/%05d.jpg",
            ])
        defer { if vf.isRunning { kill(vf.processIdentifier, SIGKILL) } }
        sleep(3)
        kill(cam.processIdentifier, SIGKILL)
        cam.waitUntilExit()
        sleep(3)
        cam = try Self.camera(port: srtPort, width: 640, height: 480)
        let restored = Self.waitFor("' restored after", in: e, timeout: 25)
        sleep(2)
        kill(vf.processIdentifier, SIGINT)
        let r = Tools.finish(vf, o, e, timeout: 15)
        #expect(!r.hung && r.code == 0, "exit \(r.code): \(r.err.suffix(1500))")
        #expect(restored != nil, "\(r.err.suffix(1500))")
        let files = Tools.files(in: dir, suffix: ".jpg")
        #expect(files.count > 150, "\(files.count) frames")
        func look(_ f: String) throws -> (Kind, Int, Int) {
            let img = try Tools.luma(of: dir.appendingPathComponent(f).path, decoder: "jpegdec")
            return (Self.kind(img.pixels, width: img.width, height: img.height), img.width, img.height)
        }
        let first = try look(try #require(files.first)), last = try look(try #require(files.last))
        #expect(first.0 == .live && first.1 == 320 && first.2 == 240, "\(first)")
        #expect(last.0 == .live && last.1 == 640 && last.2 == 480, "\(last)")
        // In between (every 15th frame looked at): the slate, at the old size.
        let sampled = try stride(from: 0, to: files.count, by: 15).map { try look(files[$0]) }
        #expect(sampled.contains { $0.0 == .slate && $0.1 == 320 && $0.2 == 240 }, "\(sampled)")
        #expect(sampled.allSatisfy { $0.0 != .other }, "\(sampled)")
    }

    /// The same with an RTSP camera (another viewfinder serving `rtspserve`, killed for 4 s): rtspsrc's error is the
    /// loss, the attempts fail with "Could not open resource" until the camera is back, and the recording has no hole.
    @Test func anRTSPCameraKilledComesBack() throws {
        let camPort = Int(Tools.freePort())
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mp4 = dir.appendingPathComponent("out.mp4").path
        let camera =
            "videotestsrc is-live=true pattern=smpte ! video/x-raw,width=320,height=240,framerate=30/1 ! videoconvert "
            + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! rtph264pay ! rtspserve port=\(camPort) path=/cam"
        var (cam, _, camErr) = try Tools.start(Tools.viewfinder, ["launch", camera])
        defer { if cam.isRunning { kill(cam.processIdentifier, SIGKILL) } }
        #expect(Self.waitFor("rtsp://127.0.0.1:\(camPort)/cam", in: camErr, timeout: 15) != nil)
        let (vf, o, e) = try Tools.start(
            Tools.viewfinder,
            [
                "launch", "-m",
                "rtspsrc location=rtsp://127.0.0.1:\(camPort)/cam latency=100 ! rtph264depay ! h264parse ! avdec_h264 ! videoconvert ! compose "
                    + "! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! mp4mux ! filesink location=\(mp4)",
            ])
        defer { if vf.isRunning { kill(vf.processIdentifier, SIGKILL) } }
        sleep(4)
        kill(cam.processIdentifier, SIGKILL)
        cam.waitUntilExit()
        #expect(Self.waitFor("' lost (rtspsrc0: ", in: e, timeout: 10) != nil)
        sleep(4)
        (cam, _, camErr) = try Tools.start(Tools.viewfinder, ["launch", camera])
        let restored = Self.waitFor("' restored after", in: e, timeout: 30)
        sleep(2)
        kill(vf.processIdentifier, SIGINT)
        let r = Tools.finish(vf, o, e, timeout: 15)
        #expect(!r.hung && r.code == 0, "exit \(r.code): \(r.err.suffix(1500))")
        #expect(restored != nil, "\(r.err.suffix(2000))")
        let m = Self.sourceMessages(r.out)
        #expect(m.first?["state"] == "lost" && m.first?["element"] == "rtspsrc0", "\(m)")
        #expect(m.filter { $0["state"] == "restored" }.count == 1, "\(m)")
        let pts = try Tools.ffprobeVideoFrames(mp4).map(\.pts)
        let gap = Self.largestGap(pts)
        #expect(pts.count > 12 * 30 && gap <= 2.0 / 30 + 0.002, "\(pts.count) frames, largest gap \(gap) s")
    }
}
