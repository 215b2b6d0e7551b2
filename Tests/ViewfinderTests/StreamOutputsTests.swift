import Foundation
import TestSupport
import Testing

/// The shipped stream-out pipelines (srt-out, srt-caller, udp-out, hls, rtmp-out) through the real binary, received by
/// real clients (ffmpeg, gst-launch-1.0, ffprobe; for RTMP a private nginx, `RTMPServer`) on loopback. Ports are free
/// ones, set with `--set`; children are killed with SIGKILL when a test ends early (children of the test runner ignore
/// SIGTERM).
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct StreamOutputsTests {
    /// A UDP port nothing is bound to right now (bound to 0, read back, closed). SRT and RTP both run over UDP.
    static func freeUDPPort() -> Int {
        Int(Tools.freePort(udp: true))
    }

    /// The path of a shipped pipeline file.
    static func pipeline(_ name: String) -> String { Tools.root.appendingPathComponent("pipelines/\(name).pipeline").path }

    /// `viewfinder run PIPELINE` with a short live source (`frames` buffers) and the fastest encoder preset.
    static func runArguments(_ name: String, frames: Int, _ sets: [String]) -> [String] {
        var args = ["run", pipeline(name), "--set", "videotestsrc.num-buffers=\(frames)", "--set", "x264enc.speed-preset=ultrafast"]
        for s in sets { args += ["--set", s] }
        return args
    }

    /// A live 320x240 source through grid and x264enc, teed to a Matroska recording and (queue, MPEG-TS) to srtsink
    /// `uri=SRT` (with whatever properties follow the uri in `srt`).
    static func teedSRT(frames: Int, recording: String, srt: String) -> String {
        "videotestsrc is-live=true num-buffers=\(frames) ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! videoconvert"
            + " ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! tee name=t t. ! queue ! h264parse ! matroskamux"
            + " ! filesink location=\(recording) t. ! queue ! h264parse config-interval=-1 ! mpegtsmux alignment=7 ! srtsink uri=\(srt) latency=125"
    }

    /// The frames the host let through to the encoder, from its summary line `frames: N in, M out, ...`.
    static func framesOut(_ err: String) -> Int? {
        guard let line = err.split(separator: "\n").first(where: { $0.hasPrefix("frames: ") }) else { return nil }
        let words = line.split(separator: " ")
        guard let i = words.firstIndex(of: "out,"), i > 0 else { return nil }
        return Int(words[i - 1])
    }

    /// Frames decoded by an `ffmpeg -f framemd5 -` run: one `0, ...` line per video frame.
    static func framemd5Count(_ out: String) -> Int { out.split(separator: "\n").filter { $0.hasPrefix("0,") }.count }

    /// srt-out: Viewfinder listens; ffmpeg calls in and decodes (almost) every frame sent while it was connected.
    /// The frames dropped before the connection are not counted: the test sets wait-for-connection=true (the
    /// shipped file has false, so that a run nobody watches still ends on EOS or the first Ctrl-C).
    @Test func srtListenerServesAnFFmpegCaller() throws {
        let port = Self.freeUDPPort()
        let (p, o, e) = try Tools.start(
            Tools.viewfinder, Self.runArguments("srt-out", frames: 150, ["srtsink.uri=srt://127.0.0.1:\(port)?mode=listener", "srtsink.wait-for-connection=true"]))
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        usleep(1_500_000)  // the listener binds when the pipeline starts; no line is printed for it
        let ff = try Tools.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=caller", "-f", "framemd5", "-"], timeout: 20)
        let vf = Tools.finish(p, o, e, timeout: 10)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let sent = try #require(Self.framesOut(vf.err), "no frames line: \(vf.err)")
        let decoded = Self.framemd5Count(ff.out)
        #expect(sent > 0)
        #expect(Double(decoded) >= 0.95 * Double(sent), "ffmpeg decoded \(decoded) of \(sent): \(ff.err)")
        #expect(ff.out.contains("#dimensions 0: 1280x720"), "\(ff.out.prefix(500))")
    }

    /// A caller that stops reading (SIGSTOP) costs only its own frames: a second caller still decodes most of the
    /// stream and the run keeps its pace (300 frames at 30 fps in well under 13 s), so nothing upstream waits for it.
    @Test func aStoppedSRTCallerDoesNotStallAnother() throws {
        let port = Self.freeUDPPort()
        let (p, o, e) = try Tools.start(
            Tools.viewfinder, Self.runArguments("srt-out", frames: 300, ["srtsink.uri=srt://127.0.0.1:\(port)?mode=listener", "srtsink.wait-for-connection=true"]))
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let t0 = Date()
        usleep(1_500_000)
        let url = "srt://127.0.0.1:\(port)?mode=caller"
        let (slow, so, se) = try Tools.start("/usr/bin/ffmpeg", ["-v", "error", "-i", url, "-f", "framemd5", "-"])
        defer { if slow.isRunning { kill(slow.processIdentifier, SIGKILL) } }
        usleep(500_000)
        kill(slow.processIdentifier, SIGSTOP)
        let good = try Tools.run("/usr/bin/ffmpeg", ["-v", "error", "-i", url, "-f", "framemd5", "-"], timeout: 20)
        let vf = Tools.finish(p, o, e, timeout: 10)
        let elapsed = Date().timeIntervalSince(t0)
        kill(slow.processIdentifier, SIGKILL)
        _ = Tools.finish(slow, so, se, timeout: 2)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let sent = try #require(Self.framesOut(vf.err), "no frames line: \(vf.err)")
        let decoded = Self.framemd5Count(good.out)
        #expect(Double(decoded) >= 0.8 * Double(sent), "the reading caller decoded \(decoded) of \(sent)")
        #expect(elapsed < 13, "the run took \(elapsed) s")
    }

    /// An SRT listener teed beside a recording that waits for its first caller (wait-for-connection=true blocks
    /// srtsink until one comes): the recording does not wait with it. The queue before srtsink drops while it is
    /// blocked; before, the full queue blocked the tee and the recording lost every frame until the caller came
    /// (measured: 117 frames in, 42 recorded). The caller that comes after 4 s decodes the stream.
    @Test func anSRTListenerWaitingForItsCallerHoldsNoRecording() throws {
        let port = Self.freeUDPPort()
        let d = Tools.tempDir()
        let frames = 300
        let (p, o, e) = try Tools.start(
            Tools.viewfinder,
            ["launch", Self.teedSRT(frames: frames, recording: "\(d.path)/rec.mkv", srt: "srt://127.0.0.1:\(port)?mode=listener wait-for-connection=true")])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        usleep(4_000_000)
        let caller = try Tools.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=caller", "-f", "framemd5", "-"], timeout: 30)
        let vf = Tools.finish(p, o, e, timeout: 30)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let recorded = try Tools.ffprobeFrames("\(d.path)/rec.mkv")
        #expect(Double(recorded) >= 0.95 * Double(frames), "the recording has \(recorded) of \(frames) frames: \(vf.err)")
        #expect(Self.framemd5Count(caller.out) >= 60, "the caller decoded \(Self.framemd5Count(caller.out)) frames: \(caller.err)")
    }

    /// An SRT caller teed beside a recording, whose listener goes away for 5 s and comes back: GStreamer 1.22's
    /// srtsink reconnects by itself and resumes (the second listener decodes the stream), and the recording never
    /// waits for it.
    @Test func anSRTCallerWhoseListenerLeavesHoldsNothingAndResumes() throws {
        let port = Self.freeUDPPort()
        let d = Tools.tempDir()
        let url = "srt://127.0.0.1:\(port)?mode=listener"
        func listener(_ name: String) throws -> (Process, URL, URL) {
            try Tools.start("/usr/bin/ffmpeg", ["-v", "error", "-i", url, "-c", "copy", "-f", "mpegts", "-y", d.appendingPathComponent(name).path])
        }
        let first = try listener("first.ts")
        defer { if first.0.isRunning { kill(first.0.processIdentifier, SIGKILL) } }
        usleep(500_000)
        let frames = 450
        let (p, o, e) = try Tools.start(
            Tools.viewfinder, ["launch", Self.teedSRT(frames: frames, recording: "\(d.path)/rec.mkv", srt: "srt://127.0.0.1:\(port)?mode=caller")])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        usleep(3_000_000)
        kill(first.0.processIdentifier, SIGKILL)
        usleep(5_000_000)
        let second = try listener("second.ts")
        defer { if second.0.isRunning { kill(second.0.processIdentifier, SIGKILL) } }
        let vf = Tools.finish(p, o, e, timeout: 30)
        usleep(500_000)
        kill(second.0.processIdentifier, SIGINT)
        _ = Tools.finish(second.0, second.1, second.2, timeout: 5)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let recorded = try Tools.ffprobeFrames("\(d.path)/rec.mkv")
        #expect(Double(recorded) >= 0.95 * Double(frames), "the recording has \(recorded) of \(frames) frames: \(vf.err)")
        let resumed = try Tools.ffprobeFrames(d.appendingPathComponent("second.ts").path)
        #expect(resumed >= 60, "the second listener got \(resumed) frames: \(vf.err)")
        // Told once each way (srtsink's warning at every attempt is counted, not printed).
        #expect(vf.err.components(separatedBy: "viewfinder: output srtsink0 (srtsink) lost its peer").count == 2, "\(vf.err)")
        #expect(vf.err.contains("viewfinder: output srtsink0 (srtsink) sends again after"), "\(vf.err)")
        #expect(!vf.err.contains("WARNING from element srtsink0"), "\(vf.err)")
    }

    /// srt-caller: an ffmpeg listener is started first; Viewfinder calls it and the listener decodes the stream.
    @Test func srtCallerReachesAnFFmpegListener() throws {
        let port = Self.freeUDPPort()
        let (l, lo, le) = try Tools.start(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=listener", "-f", "framemd5", "-"])
        defer { if l.isRunning { kill(l.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        let vf = try Tools.run(
            Tools.viewfinder, Self.runArguments("srt-caller", frames: 150, ["srtsink.uri=srt://127.0.0.1:\(port)?mode=caller"]),
            timeout: 20)
        let ff = Tools.finish(l, lo, le, timeout: 5)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        #expect(!ff.hung, "the listener did not see the end of the stream: \(ff.err)")
        let sent = try #require(Self.framesOut(vf.err), "no frames line: \(vf.err)")
        let decoded = Self.framemd5Count(ff.out)
        #expect(sent > 0)
        #expect(Double(decoded) >= 0.95 * Double(sent), "ffmpeg decoded \(decoded) of \(sent): \(ff.err)")
    }

    /// srt-caller with nobody listening: the run ends within seconds with an error naming srtsink, no hang.
    @Test func srtCallerWithoutAListenerFailsNamingTheElement() throws {
        let port = Self.freeUDPPort()
        let t0 = Date()
        let vf = try Tools.run(
            Tools.viewfinder, Self.runArguments("srt-caller", frames: 300, ["srtsink.uri=srt://127.0.0.1:\(port)?mode=caller"]),
            timeout: 15)
        #expect(!vf.hung && vf.code == 1, "exit \(vf.code): \(vf.err)")
        #expect(vf.err.contains("ERROR from element srtsink0 (srtsink): Failed to write to SRT socket"), "\(vf.err)")
        #expect(Date().timeIntervalSince(t0) < 10)
    }

    /// udp-out: a gst-launch RTP receiver decodes 60 frames of 1280x720 H.264 (its fakesink ends the run).
    @Test func udpRTPReachesAGstReceiver() throws {
        let port = Self.freeUDPPort()
        let (r, ro, re) = try Tools.start(
            "/usr/bin/gst-launch-1.0",
            ["-v", "udpsrc", "port=\(port)", "caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96",
             "!", "rtph264depay", "!", "h264parse", "!", "avdec_h264", "!", "fakesink", "num-buffers=60"])
        defer { if r.isRunning { kill(r.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        let vf = try Tools.run(Tools.viewfinder, Self.runArguments("udp-out", frames: 150, ["udpsink.port=\(port)"]), timeout: 20)
        let rx = Tools.finish(r, ro, re, timeout: 3)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        #expect(!rx.hung && rx.code == 0, "receiver: \(rx.err) \(rx.out.suffix(1000))")
        #expect(rx.out.contains("Got EOS from element \"pipeline0\""), "\(rx.out.suffix(1000))")
        #expect(
            rx.out.split(separator: "\n").contains {
                $0.contains("fakesink0.GstPad:sink: caps = video/x-raw") && $0.contains("width=(int)1280, height=(int)720")
            }, "\(rx.out.suffix(1000))")
    }

    /// hls: every segment in the playlist is readable, opens with a keyframe and lasts at most the target duration
    /// (+0.5 s), both by the playlist's EXTINF and by ffprobe.
    @Test func hlsSegmentsStartWithKeyframesWithinTheTargetDuration() throws {
        let d = Tools.tempDir()
        try FileManager.default.createDirectory(at: d.appendingPathComponent("out/hls"), withIntermediateDirectories: true)
        let vf = try Tools.run(Tools.viewfinder, Self.runArguments("hls", frames: 180, []), cwd: d, timeout: 20)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let playlist = try String(contentsOf: d.appendingPathComponent("out/hls/index.m3u8"), encoding: .utf8)
        let lines = playlist.split(separator: "\n").map(String.init)
        #expect(lines.contains("#EXT-X-TARGETDURATION:2"), "\(playlist)")
        #expect(lines.contains("#EXT-X-ENDLIST"), "\(playlist)")
        let durations = lines.filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).prefix { $0 != "," }) }
        let segments = lines.filter { $0.hasSuffix(".ts") }
        #expect(segments.count >= 3 && segments.count == durations.count, "\(playlist)")
        #expect(durations.allSatisfy { $0 <= 2.5 }, "\(durations)")
        for name in segments {
            let file = d.appendingPathComponent("out/hls/\(name)").path
            let first = try Tools.run(
                "/usr/bin/ffprobe",
                ["-v", "error", "-select_streams", "v", "-read_intervals", "%+#1", "-show_entries", "frame=key_frame,pict_type",
                 "-of", "csv=p=0", file])
            let fields = first.out.split(separator: "\n").first.map { $0.split(separator: ",").map(String.init) } ?? []
            #expect(first.code == 0 && fields.prefix(2) == ["1", "I"], "\(name): \(first.out) \(first.err)")
            let length = try Tools.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])
            let seconds = Double(length.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            #expect(seconds > 0 && seconds <= 2.5, "\(name): \(seconds) s")
            #expect(try Tools.ffprobeFrames(file) > 0, "\(name) decodes")
        }
        // Frames in = frames in the segments: nothing lost at the cuts.
        let total = try segments.map { try Tools.ffprobeFrames(d.appendingPathComponent("out/hls/\($0)").path) }.reduce(0, +)
        #expect(total == 180, "\(total) frames in \(segments.count) segments")
    }

    /// ffprobe's `-count_frames` view of a file's streams: codec_type, codec_name, pix_fmt, profile, width, height,
    /// nb_read_frames.
    static func probeStreams(_ file: String) throws -> [[String: Any]] {
        let r = try Tools.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-count_frames", "-show_entries", "stream=codec_name,codec_type,pix_fmt,profile,width,height,nb_read_frames",
             "-of", "json", file])
        let json = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        return json?["streams"] as? [[String: Any]] ?? []
    }

    /// `viewfinder run rtmp-out.pipeline` publishing to `server` (fastest preset), returned once the server logged
    /// the publisher (at most 20 s; otherwise it is killed and this throws, with both sides' output).
    static func startRTMPOut(to server: RTMPServer) throws -> (Process, URL, URL) {
        let (p, o, e) = try Tools.start(
            Tools.viewfinder,
            ["run", pipeline("rtmp-out"), "--set", "rtmp2sink.location=\(server.url())", "--set", "x264enc.speed-preset=ultrafast"])
        guard server.waitForPublisher(timeout: 20) else {
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            let vf = Tools.finish(p, o, e, timeout: 5)
            throw ServerProcess.Failure(text: "nobody published: viewfinder exit \(vf.code): \(vf.err)\nnginx: \(server.log)")
        }
        return (p, o, e)
    }

    /// Copies `seconds` of the stream `server` receives into a file (ffmpeg -c copy), then Ctrl-C ends `run`; both
    /// must end cleanly. ffprobe's view of the file's streams, and the run's output.
    static func recordThenStop(_ server: RTMPServer, seconds: Double, run: (Process, URL, URL)) throws -> ([[String: Any]], Tools.Result) {
        let d = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: d) }
        let file = d.appendingPathComponent("received.flv").path
        let ff = try server.record(seconds: seconds, to: file)
        kill(run.0.processIdentifier, SIGINT)
        let vf = Tools.finish(run.0, run.1, run.2, timeout: 10)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        #expect(!ff.hung && ff.code == 0, "ffmpeg: \(ff.err)")
        return (try probeStreams(file), vf)
    }

    /// rtmp-out: Viewfinder publishes to a real RTMP server (a private nginx with the rtmp module); ffmpeg plays 5 s of
    /// the stream from it, from a keyframe on, and ffprobe decodes what arrived: 1280x720 H.264 in 4:2:0 (not High
    /// 4:4:4) next to AAC audio. Then Ctrl-C ends the run cleanly (exit 0).
    @Test func rtmpOutPublishesH264AndAACToAnRTMPServer() throws {
        let server = try RTMPServer()
        defer { server.stop() }
        let (p, o, e) = try Self.startRTMPOut(to: server)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let (streams, _) = try Self.recordThenStop(server, seconds: 5, run: (p, o, e))
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" }, "\(streams)")
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" }, "\(streams)")
        let videoFrames = Int(video["nb_read_frames"] as? String ?? "") ?? -1
        let audioFrames = Int(audio["nb_read_frames"] as? String ?? "") ?? -1
        let profile = video["profile"] as? String ?? ""
        print("rtmp: received \(videoFrames) video frames (\(video["codec_name"] ?? "?"), \(video["pix_fmt"] ?? "?"), \(profile)), "
              + "\(audioFrames) audio frames (\(audio["codec_name"] ?? "?"))")
        #expect(video["codec_name"] as? String == "h264")
        #expect(video["pix_fmt"] as? String == "yuv420p", "\(video)")
        #expect(video["width"] as? Int == 1280 && video["height"] as? Int == 720, "\(video)")
        #expect(!profile.isEmpty && !profile.contains("4:4:4"), "\(video)")
        // 5 s at 30 fps is 150 frames; the host may drop a few at its leaky hand-off on a busy machine.
        #expect(videoFrames >= 120, "\(video)")
        #expect(audio["codec_name"] as? String == "aac")
        // 5 s of 1024-sample AAC frames at 44.1 kHz is 215.
        #expect(audioFrames >= 170, "\(audio)")
    }

    /// RTMP teed beside a Matroska recording, its server killed 2 s in and never back: the recording keeps every
    /// frame (the RTMP branch is a pipeline of its own, its inputs end in appsinks that never block) and the run ends
    /// on its own end-of-stream, exit 0, with the loss told once.
    @Test func anRTMPServerGoneForGoodHoldsNoRecordingTeedBesideIt() throws {
        let server = try RTMPServer()
        let d = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: d) }
        let frames = 180
        let description =
            "videotestsrc is-live=true num-buffers=\(frames) ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! videoconvert"
            + " ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! tee name=t t. ! queue ! matroskamux"
            + " ! filesink location=\(d.path)/rec.mkv t. ! queue ! flvmux streamable=true ! rtmp2sink location=\(server.url())"
        let (p, o, e) = try Tools.start(Tools.viewfinder, ["launch", description])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(server.waitForPublisher(timeout: 20), "nobody published: \(server.log)")
        usleep(1_000_000)
        server.stop()
        let vf = Tools.finish(p, o, e, timeout: 30)
        #expect(!vf.hung && vf.code == 0, "viewfinder exit \(vf.code): \(vf.err)")
        let recorded = try Tools.ffprobeFrames("\(d.path)/rec.mkv")
        // Every frame the host let through to the encoder (a busy machine may drop a few at its leaky hand-off).
        let sent = try #require(Self.framesOut(vf.err), "\(vf.err)")
        #expect(recorded == sent && sent >= frames * 9 / 10, "the recording has \(recorded) of \(sent) frames sent: \(vf.err)")
        #expect(vf.err.components(separatedBy: "lost its server (").count == 2, "\(vf.err)")
        #expect(vf.err.contains("output: rtmp2sink0 (rtmp2sink): lost its server 1 time, still lost at the end"), "\(vf.err)")
    }

    /// rtmp-out with no RTMP server: the run ends at once with rtmp2sink's error (exit 1), no hang.
    @Test func rtmpOutWithoutAServerFailsNamingTheElement() throws {
        let port = Tools.freePort()
        let t0 = Date()
        let vf = try Tools.run(
            Tools.viewfinder,
            ["run", Self.pipeline("rtmp-out"), "--set", "rtmp2sink.location=rtmp://127.0.0.1:\(port)/live/stream"], timeout: 15)
        let elapsed = Date().timeIntervalSince(t0)
        print("rtmp: no server: exit \(vf.code) after \(String(format: "%.2f", elapsed)) s")
        #expect(!vf.hung && vf.code == 1, "exit \(vf.code): \(vf.err)")
        #expect(vf.err.contains("ERROR from element rtmp2sink0 (rtmp2sink): Connection refused"), "\(vf.err)")
        #expect(elapsed < 5)
    }

    /// An RTMP server that goes away mid-run is retried while the run goes on (`OutputRetryService`): one "lost" line,
    /// and once a server listens on the port again the stream is published again, from a keyframe (ffmpeg reads 3 s
    /// of it and ffprobe decodes them), with one "sends again" line; then Ctrl-C ends the run cleanly.
    @Test func anRTMPServerThatGoesAwayIsRetriedAndTheStreamResumes() throws {
        let server = try RTMPServer()
        let port = server.port
        let (p, o, e) = try Self.startRTMPOut(to: server)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        server.stop()
        usleep(3_000_000)
        #expect(p.isRunning, "the run ended when its RTMP server went away")
        let again = try RTMPServer(port: port)
        defer { again.stop() }
        #expect(again.waitForPublisher(timeout: 40), "nobody published again: \(again.log)")
        let (streams, vf) = try Self.recordThenStop(again, seconds: 3, run: (p, o, e))
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" }, "\(streams)")
        let videoFrames = Int(video["nb_read_frames"] as? String ?? "") ?? -1
        print("rtmp: server back: \(videoFrames) video frames received after the retry")
        #expect(videoFrames >= 60, "\(video)")
        #expect(streams.contains { $0["codec_type"] as? String == "audio" }, "\(streams)")
        let lost = vf.err.components(separatedBy: "output rtmp2sink0 (rtmp2sink) lost its server").count - 1
        #expect(lost == 1, "\(vf.err)")
        #expect(vf.err.contains("output rtmp2sink0 (rtmp2sink) sends again after"), "\(vf.err)")
    }
}
