import Foundation
import TestSupport
import Testing

/// `clips` through the real binary: SIGUSR2 as the trigger, a kill -9 while a clip is being written, a full disk under
/// the clips directory (a 256 KiB tmpfs mounted in a mount namespace of the test's own), all read back with ffprobe.
@Suite(.serialized, .tags(.live, .process), .tier) struct ClipsCommandTests {
    static func records(_ dir: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: dir.appendingPathComponent("clips.json"))
        return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["clips"] as? [[String: Any]])
    }

    /// Waits (real time, at most `seconds`) until `condition` holds.
    static func wait(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    static let source =
        "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! video/x-raw,width=640,height=360,framerate=30/1 "
        + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse"

    @Test func aKillWhileAClipIsWrittenLeavesOnlyCompleteClipsListed() throws {
        let dir = Tools.tempDir().appendingPathComponent("clips")
        let partial = dir.appendingPathComponent(".partial")
        let (p, o, e) = try Tools.start(Tools.viewfinder, ["launch", "\(Self.source) ! clips pre=1 post=1 max-length=60 directory=\(dir.path)"])
        // Clip 1 completes; then clip 2 is kept open by a trigger every half second, and the process is killed.
        #expect(Self.wait(15) { FileManager.default.fileExists(atPath: partial.path) })
        usleep(2_000_000)
        kill(p.processIdentifier, SIGUSR2)
        #expect(Self.wait(10) { ((try? Self.records(dir)) ?? []).count == 1 }, "clip 1 never listed")
        kill(p.processIdentifier, SIGUSR2)
        #expect(Self.wait(5) { ((try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []).contains("CLIP_00002.mp4") })
        for _ in 0..<4 {
            usleep(500_000)
            kill(p.processIdentifier, SIGUSR2)
        }
        kill(p.processIdentifier, SIGKILL)
        _ = Tools.finish(p, o, e, timeout: 10)
        // The half-written clip is in .partial only; the index lists clip 1, complete.
        #expect(try Self.records(dir).compactMap { $0["file"] as? String } == ["CLIP_00001.mp4"])
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("CLIP_00002.mp4").path))
        #expect(try Tools.ffprobeFrames(dir.appendingPathComponent("CLIP_00001.mp4").path) > 30)
        // The next start removes the leftovers (the clip and mp4mux's faststart file) and says so.
        let r = try Tools.vf("launch", "videotestsrc num-buffers=10 ! x264enc ! h264parse ! clips directory=\(dir.path)")
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("removed an unfinished clip left by an interrupted run: .partial/CLIP_00002.mp4"), "\(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: partial.path).isEmpty)
        #expect(try Self.records(dir).compactMap { $0["file"] as? String } == ["CLIP_00001.mp4"])
    }

    @Test func aFullDiskFailsTheClipNamingItWhileTheStreamAndRecordingGoOn() throws {
        let root = Tools.tempDir()
        let clips = root.appendingPathComponent("clips"), full = root.appendingPathComponent("full.mp4")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        let description =
            "\(Self.source) ! tee name=t t. ! queue ! mp4mux ! filesink location=\(full.path) "
            + "t. ! queue ! clips pre=1 post=1 directory=\(clips.path)"
        // The clips directory is a 256 KiB tmpfs seen only by this process (a mount namespace of its own); the
        // recording is on the real disk. Two seconds of the scrolling bars are well over 256 KiB.
        let script = "mount -t tmpfs -o size=256k tmpfs \"$1\" && exec \"$2\" launch \"$3\""
        let (p, o, e) = try Tools.start(
            "/usr/bin/unshare", ["-rm", "/bin/sh", "-c", script, "sh", clips.path, Tools.viewfinder, description.replacingOccurrences(of: "is-live=true", with: "is-live=true num-buffers=180")])
        usleep(3_000_000)
        kill(p.processIdentifier, SIGUSR2)
        let r = Tools.finish(p, o, e, timeout: 30)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("clip 1 (CLIP_00001.mp4) failed"), "\(r.err)")
        // mp4mux keeps the clip's frames in its faststart file beside the clip (on the full disk): its write fails.
        #expect(r.err.contains("Failed to write") || r.err.contains("No space left"), "\(r.err)")
        // The recording holds every frame; it plays.
        #expect(try Tools.ffprobeFrames(full.path) == 180)
        #expect(r.out.contains("0 saved") || r.err.contains("0 saved"), "\(r.out) \(r.err)")
    }
}
