import Foundation
import TestSupport
import Testing

/// Paths users really write (one-character and relative names, trailing slashes, spaces, quotes, URLs):
/// checked before anything runs, right code, a message that says what is wrong, and nothing created.
@Suite(.tags(.process), .tier) struct PathInputTests {
    /// Each case runs in a fresh directory holding only `existing.txt` (a file) and `sub dir/` (a directory).
    struct Case: CustomStringConvertible {
        var description: String
        var code: Int32
        var expected: String = ""
        /// Without --dry-run (the description must fail with exit 2 before start).
        var run = false
    }

    static let cases: [Case] = [
        // Issue: any one-character relative location crashed (SIGILL).
        Case(description: "videotestsrc ! filesink location=a", code: 0),
        Case(description: "videotestsrc ! filesink location=5", code: 0),
        Case(description: "videotestsrc ! filesink location=.", code: 2, expected: "'.' is a directory: expected a file name"),
        Case(description: "videotestsrc ! filesink location=a/", code: 2, expected: "'a/' names a directory: expected a file name"),
        Case(description: "videotestsrc ! multifilesink location=a", code: 0),
        Case(description: "videotestsrc ! multifilesink location=%05d.jpg", code: 0),
        Case(description: "videotestsrc ! multifilesink location=\"sub dir/%05d.jpg\"", code: 0),
        Case(
            description: "videotestsrc ! multifilesink location=\"no dir/%05d.jpg\"", code: 2, expected: "directory 'no dir' does not exist"
        ),
        Case(description: "videotestsrc ! filesink location=\"sub dir/it's \\\"q\\\".mp4\"", code: 0),
        Case(description: "videotestsrc ! x264enc ! splitmuxsink location=v%02d.mp4", code: 0),
        Case(
            description: "videotestsrc ! x264enc ! splitmuxsink location=nodir/v%02d.mp4", code: 2,
            expected: "directory 'nodir' does not exist"),
        Case(description: "videotestsrc ! snapshot location=a ! fakesink", code: 0),
        Case(description: "videotestsrc ! snapshot location=. ! fakesink", code: 2, expected: "'.' is a directory"),
        Case(description: "videotestsrc ! snapshot location=x/%05d.jpg ! fakesink", code: 2, expected: "directory 'x' does not exist"),
        Case(description: "videotestsrc ! capture directory=new/a/b ! fakesink", code: 0),
        Case(description: "videotestsrc ! capture directory=new/ ! fakesink", code: 0),
        Case(
            description: "videotestsrc ! capture directory=existing.txt/photos ! fakesink", code: 2,
            expected: "'existing.txt' is a file, not a directory"),
        Case(
            description: "videotestsrc ! capture directory=existing.txt ! fakesink", code: 2,
            expected: "'existing.txt' is a file, not a directory"),
        Case(description: "videotestsrc ! compose metadata-location=m.jsonl ! fakesink", code: 0),
        Case(description: "videotestsrc ! compose metadata-location=. ! fakesink", code: 2, expected: "is a directory"),
        Case(
            description: "videotestsrc ! filesink location=existing.txt/out.mp4", code: 2,
            expected: "'existing.txt' is a file, not a directory"),
        Case(description: "videotestsrc ! filesink location=nodir/out.mp4", code: 2, expected: "directory 'nodir' does not exist"),
        Case(description: "filesrc location=. ! fakesink", code: 2, expected: "'.' is a directory, not a file"),
        Case(description: "filesrc location=a ! fakesink", code: 2, expected: "file 'a' does not exist"),
        Case(description: "filesrc location=existing.txt/a ! fakesink", code: 2, expected: "'existing.txt' is a file, not a directory"),
        Case(description: "filesrc location=existing.txt ! fakesink", code: 0),
        Case(description: "multifilesrc location=%05d.jpg ! fakesink", code: 0),
        // URLs are not files: no existence or directory check for network elements.
        Case(description: "rtspsrc location=rtsp://127.0.0.1:9/x ! fakesink", code: 0),
        Case(description: "souphttpsrc location=http://127.0.0.1:9/x ! fakesink", code: 0),
        Case(description: "videotestsrc ! x264enc ! flvmux ! rtmpsink location=rtmp://127.0.0.1/live/x", code: 0),
        Case(description: "videotestsrc ! x264enc ! mpegtsmux ! srtsink uri=srt://127.0.0.1:9", code: 0),
        // Exit 2 after the stages were made: they must not have created their directory or metadata file.
        Case(description: "videotestsrc ! capture directory=new/a/b ! fakesink nosuch=1", code: 2, expected: "nosuch", run: true),
        Case(description: "videotestsrc ! compose metadata-location=m.jsonl ! fakesink nosuch=1", code: 2, expected: "nosuch", run: true),
        Case(
            description: "videotestsrc ! capture directory=new ! compose metadata-location=m.jsonl ! filesink location=nodir/x", code: 2,
            expected: "directory 'nodir' does not exist", run: true),
    ]

    @Test(arguments: 0..<cases.count)
    func checkedBeforeStartAndNothingCreated(index: Int) throws {
        let c = Self.cases[index]
        let d = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: d) }
        try Data("x".utf8).write(to: d.appendingPathComponent("existing.txt"))
        try FileManager.default.createDirectory(at: d.appendingPathComponent("sub dir"), withIntermediateDirectories: true)
        let before = try FileManager.default.subpathsOfDirectory(atPath: d.path).sorted()
        let r =
            c.run
            ? try Tools.vf("launch", c.description, cwd: d, timeout: 60)
            : try Tools.vf("launch", "--dry-run", c.description, cwd: d, timeout: 60)
        #expect(r.code == c.code, "exit \(r.code) for \(c.description): \(r.err)")
        if !c.expected.isEmpty { #expect(r.err.contains(c.expected), "\(c.description): \(r.err)") }
        let after = try FileManager.default.subpathsOfDirectory(atPath: d.path).sorted()
        #expect(after == before, "\(c.description) created \(Set(after).subtracting(before).sorted())")
    }

    /// A full disk under the metadata file: one warning naming the stage, exit 0, the recording complete.
    @Test func metadataOnAFullDiskIsReportedOnceAndTheRecordingGoesOn() throws {
        let d = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("out.mp4").path
        let r = try Tools.vf(
            "launch", "--quiet",
            "videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240,framerate=30/1 ! compose name=c warmup=0 engine=saliency sync=true analysis-fps=30 metadata-location=/dev/full ! videoconvert ! x264enc ! mp4mux ! filesink location=\(out)"
        )
        #expect(r.code == 0, "\(r.err)")
        let warnings = r.err.split(separator: "\n").filter { $0.contains("metadata-location") }
        #expect(warnings.count == 1, "\(r.err)")
        #expect(warnings.first?.contains("stage c") == true && warnings.first?.contains("No space left on device") == true, "\(r.err)")
        #expect(try Tools.ffprobeFrames(out) == 30)
    }

    /// `metadata-location=/dev/stdout` into a pipe that closes early (`| head -c 10`): EPIPE is reported, not fatal.
    @Test func metadataIntoAClosedPipeDoesNotKillTheProcess() throws {
        let script =
            "\(Tools.viewfinder) launch --quiet 'videotestsrc num-buffers=20 ! video/x-raw,width=320,height=240 ! compose name=c warmup=0 engine=saliency sync=true analysis-fps=30 metadata-location=/dev/stdout ! fakesink' | head -c 10 >/dev/null; echo \"status=${PIPESTATUS[0]}\""
        let r = try Tools.run("/bin/bash", ["-c", script], timeout: 60)
        #expect(r.out.contains("status=0"), "\(r.out) \(r.err)")
        #expect(r.err.contains("stage c: cannot write metadata-location '/dev/stdout': Broken pipe"), "\(r.err)")
    }

    /// A FIFO read by another process gets every line (no seek on a non-seekable file).
    @Test func metadataIntoAFIFOReachesItsReader() throws {
        let d = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: d) }
        let fifo = d.appendingPathComponent("meta.fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let copy = d.appendingPathComponent("copy.jsonl").path
        let (reader, ro, re) = try Tools.start("/bin/sh", ["-c", "cat \"\(fifo)\" > \"\(copy)\""])
        let r = try Tools.vf(
            "launch", "--quiet",
            "videotestsrc num-buffers=12 ! video/x-raw,width=320,height=240 ! compose warmup=0 engine=saliency sync=true analysis-fps=30 metadata-location=\(fifo) ! fakesink",
            timeout: 60)
        #expect(r.code == 0, "\(r.err)")
        _ = Tools.finish(reader, ro, re, timeout: 10)
        let lines = (try String(contentsOfFile: copy, encoding: .utf8)).split(separator: "\n")
        #expect(!lines.isEmpty)
        for l in lines { #expect((try? JSONSerialization.jsonObject(with: Data(l.utf8))) is [String: Any], "not JSON: \(l)") }
    }

    /// /proc/version cannot take a line: a usage error when the check can tell (not root), else one warning; never a crash.
    @Test func metadataIntoAnUnwritableProcFileIsAClearError() throws {
        let r = try Tools.vf(
            "launch", "--quiet",
            "videotestsrc num-buffers=5 ! video/x-raw,width=160,height=120 ! compose warmup=0 engine=saliency sync=true metadata-location=/proc/version ! fakesink",
            timeout: 60)
        if getuid() == 0 {
            #expect(r.code == 0, "\(r.err)")
            #expect(r.err.contains("cannot write metadata-location '/proc/version'"), "\(r.err)")
        } else {
            #expect(r.code == 2, "\(r.err)")
            #expect(r.err.contains("metadata-location '/proc/version' is not writable"), "\(r.err)")
        }
    }

    /// A 10,000-character bad value is quoted once, cut to about 80 characters.
    @Test func aHugeBadValueIsEchoedOnceAndShort() throws {
        let big = String(repeating: "x", count: 10_000)
        for description in ["videotestsrc ! grid lines=\(big) ! fakesink", "videotestsrc pattern=\(big) ! fakesink"] {
            let r = try Tools.vf("launch", "--dry-run", description, timeout: 60)
            #expect(r.code == 2)
            #expect(r.err.count < 600, "\(r.err.count) characters")
            #expect(r.err.components(separatedBy: String(repeating: "x", count: 80)).count == 2, "\(r.err)")
            #expect(r.err.contains("… (10000 characters)"), "\(r.err)")
        }
    }

    /// Audio into a video stage: it says what is there, not "put videoconvert before it".
    @Test func audioIntoAVideoStageSaysSo() throws {
        let r = try Tools.vf("launch", "--dry-run", "audiotestsrc ! grid ! fakesink", timeout: 60)
        #expect(r.code == 2)
        #expect(r.err.contains("needs raw video (video/x-raw) but what comes before it gives audio/x-raw"), "\(r.err)")
        #expect(!r.err.contains("videoconvert"), "\(r.err)")
    }
}
