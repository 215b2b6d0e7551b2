import Foundation
import TestSupport
import Testing

/// Ctrl-C (SIGINT) drains with end-of-stream so recordings stay playable; SIGUSR1 takes a snapshot.
@Suite(.serialized, .tags(.live, .process), .tier) struct InterruptTests {
    @Test func sigintOnLiveRecordingLeavesPlayableMP4() throws {
        let d = Tools.tempDir()
        let out = d.appendingPathComponent("rec.mp4").path
        let (p, o, e) = try Tools.start(
            Tools.viewfinder,
            [
                "launch",
                "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! videoconvert ! x264enc tune=zerolatency ! mp4mux ! filesink location=\(out)",
            ])
        sleep(3)
        kill(p.processIdentifier, SIGINT)
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("sending end-of-stream"))
        let frames = try Tools.ffprobeFrames(out)
        #expect(frames > 30, "got \(frames) frames")
    }

    /// A tee to a recording and to an SRT sink nobody connects to: end-of-stream cannot get through
    /// (the SRT branch waits for a client and the tee waits for it) until the stop deadline lets the SRT branch go
    /// (0.5 s). A second Ctrl-C before that must end the run within a second, whatever GStreamer is doing (exit
    /// 130, as a shell reports a process killed by SIGINT and as gst-launch-1.0 -e does).
    @Test func secondInterruptAbortsWithinOneSecondWhenEndOfStreamIsStuck() throws {
        for round in 0..<5 {
            let d = Tools.tempDir()
            let port = 20_000 + Int.random(in: 0..<20_000)
            let (p, o, e) = try Tools.start(
                Tools.viewfinder,
                [
                    "launch",
                    "videotestsrc is-live=true ! video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! grid ! videoconvert ! x264enc tune=zerolatency ! h264parse ! tee name=t ! queue ! mp4mux ! filesink location=\(d.path)/rec.mp4 t. ! queue ! h264parse ! mpegtsmux ! srtsink uri=srt://127.0.0.1:\(port)?mode=listener",
                ])
            usleep(2_000_000)
            kill(p.processIdentifier, SIGINT)
            usleep(150_000)
            #expect(p.isRunning, "round \(round): end-of-stream was expected to be stuck behind the SRT branch")
            let t0 = Date()
            kill(p.processIdentifier, SIGINT)
            while p.isRunning && Date().timeIntervalSince(t0) < 5 { usleep(10_000) }
            let elapsed = Date().timeIntervalSince(t0)
            let r = Tools.finish(p, o, e, timeout: 1)
            #expect(elapsed < 1.0, "round \(round): abort took \(elapsed) s")
            #expect(r.code == 130, "round \(round): \(r.err)")
            #expect(r.err.contains("aborting"))
        }
    }

    /// One Ctrl-C ends a run within 2 s even when a network sink never takes end-of-stream: an SRT listener nobody
    /// calls (wait-for-connection=true blocks it), and an SRT caller whose listener went away (srtsink reconnects
    /// for ever); each next to a teed MP4 recording, which must come out finished (ffprobe reads its frames: an MP4
    /// without end-of-stream has no index and reads nothing).
    @Test func oneInterruptEndsARunWhoseNetworkSinkNeverTakesEndOfStream() throws {
        for caller in [false, true] {
            let d = Tools.tempDir()
            let port = Int(Tools.freePort(udp: true))
            let srt = caller ? "srt://127.0.0.1:\(port)?mode=caller" : "srt://127.0.0.1:\(port)?mode=listener wait-for-connection=true"
            var listener: Process?
            if caller {
                listener = try Tools.start(
                    "/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", "srt://127.0.0.1:\(port)?mode=listener", "-c", "copy", "-f", "mpegts", "-y", "/dev/null"]).0
                usleep(500_000)
            }
            defer { if let l = listener, l.isRunning { kill(l.processIdentifier, SIGKILL) } }
            let (p, o, e) = try Tools.start(
                Tools.viewfinder,
                [
                    "launch",
                    "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! grid ! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! tee name=t t. ! queue ! h264parse ! mp4mux ! filesink location=\(d.path)/rec.mp4 t. ! queue ! h264parse config-interval=-1 ! mpegtsmux alignment=7 ! srtsink uri=\(srt)",
                ])
            defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
            usleep(3_000_000)
            if let l = listener {
                // The listener goes away: once srtsink's connection times out it tries to reconnect, for ever.
                kill(l.processIdentifier, SIGKILL)
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline && !((try? String(contentsOf: e, encoding: .utf8)) ?? "").contains("Trying to reconnect") {
                    usleep(100_000)
                }
            }
            #expect(p.isRunning, "caller \(caller): the run ended before the stop")
            let t0 = Date()
            kill(p.processIdentifier, SIGINT)
            while p.isRunning && Date().timeIntervalSince(t0) < 10 { usleep(10_000) }
            let elapsed = Date().timeIntervalSince(t0)
            let r = Tools.finish(p, o, e, timeout: 1)
            #expect(elapsed < 2.0, "caller \(caller): the stop took \(elapsed) s: \(r.err)")
            #expect(r.code == 0, "caller \(caller): \(r.err)")
            #expect(r.err.contains("viewfinder: ended without waiting for srtsink0 (srtsink)"), "\(r.err)")
            let frames = try Tools.ffprobeFrames("\(d.path)/rec.mp4")
            #expect(frames >= 20, "caller \(caller): the recording has \(frames) frames")
        }
    }

    /// A shell starts background jobs with SIGINT ignored (`cmd &` in a script); a Ctrl-C that came
    /// while the session was still being built was dropped, and the run went on for ever. The handlers
    /// are installed first thing: before a session runs, SIGINT ends the process at once (exit 130);
    /// once it runs, SIGINT drains it (exit 0).
    @Test func interruptsAreNotLostWhenStartedWithSigintIgnored() throws {
        let d = Tools.tempDir()
        let live =
            "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! compose ! grid ! videoconvert ! x264enc tune=zerolatency ! mp4mux ! filesink location=\(d.path)/rec.mp4"
        // Early: while the session is still being built.
        let (early, o1, e1) = try Tools.start("/bin/sh", ["-c", "trap '' INT; exec \"$0\" launch \"$1\"", Tools.viewfinder, live])
        // As soon as the process catches SIGINT (its handler is installed before the session is built).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !Self.catches(SIGINT, pid: early.processIdentifier) { usleep(2_000) }
        #expect(Self.catches(SIGINT, pid: early.processIdentifier))
        kill(early.processIdentifier, SIGINT)
        let r1 = Tools.finish(early, o1, e1, timeout: 10)
        #expect(!r1.hung, "a Ctrl-C during start-up was lost")
        #expect([0, 130].contains(r1.code), "\(r1.err)")
        // Late: the recording is running and is finalised.
        let (late, o2, e2) = try Tools.start("/bin/sh", ["-c", "trap '' INT; exec \"$0\" launch \"$1\"", Tools.viewfinder, live])
        usleep(4_000_000)
        kill(late.processIdentifier, SIGINT)
        let r2 = Tools.finish(late, o2, e2, timeout: 15)
        #expect(r2.code == 0, "\(r2.err)")
        #expect(r2.err.contains("sending end-of-stream"))
        #expect(try Tools.ffprobeFrames("\(d.path)/rec.mp4") > 20)
    }

    /// Whether process `pid` has a handler for `signal` (SigCgt in /proc/PID/status).
    static func catches(_ signal: Int32, pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    @Test func keySOnATerminalFiresSnapshot() throws {
        let d = Tools.tempDir()
        // script(1) gives the program a real terminal; the 's' typed after 1.5 s reaches it.
        let cmd =
            "\(Tools.viewfinder) launch 'videotestsrc is-live=true num-buffers=90 ! video/x-raw,width=320,height=240,framerate=30/1 ! snapshot location=\(d.path)/key-%02d.jpg ! fakesink'"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "(sleep 1.5; printf s; sleep 3) | script -qec \"\(cmd)\" /dev/null"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(Tools.files(in: d, suffix: ".jpg") == ["key-00.jpg"])
    }

    @Test func sigusr1FiresSnapshot() throws {
        let d = Tools.tempDir()
        let (p, o, e) = try Tools.start(
            Tools.viewfinder,
            [
                "launch",
                "videotestsrc is-live=true num-buffers=75 ! video/x-raw,width=320,height=240,framerate=30/1 ! snapshot location=\(d.path)/manual-%02d.jpg ! fakesink",
            ])
        sleep(1)
        kill(p.processIdentifier, SIGUSR1)
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(Tools.files(in: d, suffix: ".jpg") == ["manual-00.jpg"])
    }
}
