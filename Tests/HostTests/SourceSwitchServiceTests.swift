import Foundation
import GStreamerKit
import Stages
import Synchronization
import TestSupport
import Testing

@testable import Host

/// `Session.switchSource(to:)` in running sessions: a red source switched to blue then green mid-recording gives a
/// file whose frames are red, blue, green with no gap; an RTSP viewer decodes both across the switch; the keeper of a
/// `--reconnect` session watches the new source; descriptions that do not parse, link, start or give frames are
/// refused (and a second switch during a trial is a conflict) while the red source goes on; sessions that cannot
/// switch say so.
@Suite(.serialized, .tags(.live, .process), .tier) struct SourceSwitchServiceTests {
    static let red = "videotestsrc is-live=true pattern=solid-color foreground-color=0xffff0000"
    static let blue = "videotestsrc is-live=true pattern=solid-color foreground-color=0xff0000ff"
    static let green = "videotestsrc is-live=true pattern=solid-color foreground-color=0xff00ff00"

    /// Red at 160x120, 30 fps, through `passthrough`, into a Matroska file.
    static func recording(_ file: String) -> String {
        "\(red) ! video/x-raw,width=160,height=120,framerate=30/1 ! videoconvert ! passthrough ! videoconvert "
            + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! matroskamux ! filesink location=\(file)"
    }

    /// Runs `session` for `seconds`, calling `during` on a thread of its own `after` seconds into the run.
    static func run(_ session: Session, seconds: Double, after: Double, _ during: @escaping @Sendable (Session) -> Void) -> Int32? {
        session.onPlaying = { s in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: after)
                during(s)
            }
        }
        return BoundedRun.run(session, timeout: seconds, stopThenWait: 10)
    }

    /// Each decoded frame's colour: "r" (red), "g" (green), "b" (blue), "?" (none), from a 4x4 RGB decode by ffmpeg.
    static func colours(of file: String) throws -> String {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("vf-switch-\(UUID().uuidString).rgb").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let r = try Tools.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", file, "-vf", "scale=4:4", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        guard r.code == 0, let data = FileManager.default.contents(atPath: raw) else { return "" }
        return colours(rgb4x4: [UInt8](data))
    }

    /// The colour of each 4x4 RGB frame in `bytes`.
    static func colours(rgb4x4 bytes: [UInt8]) -> String {
        String(
            stride(from: 0, to: bytes.count - 47, by: 48).map { f -> Character in
                // The middle pixel (1,1) of each 4x4 frame.
                let p = f + (1 * 4 + 1) * 3
                let (rr, g, b) = (Int(bytes[p]), Int(bytes[p + 1]), Int(bytes[p + 2]))
                if rr > 180 && g < 70 && b < 70 { return "r" }
                if b > 180 && rr < 70 && g < 70 { return "b" }
                if g > 180 && rr < 70 && b < 70 { return "g" }
                return "?"
            })
    }

    /// Presentation times strictly increasing, no step over two frame durations (30 fps; Matroska keeps ms).
    static func checkTimes(_ file: String) throws -> [Double] {
        let frames = try Tools.ffprobeVideoFrames(file)
        let pts = frames.map(\.pts)
        let steps = zip(pts, pts.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "pts not strictly increasing: \(steps.filter { $0 <= 0 })")
        #expect((steps.max() ?? 1) <= 2.0 / 30 + 0.002, "largest pts step \(steps.max() ?? -1) s")
        #expect(frames.allSatisfy { $0.width == 160 && $0.height == 120 })
        return pts
    }

    /// Red, switched to blue after 1.2 s, then to green a second later (the first switch's bin is what the second
    /// takes out): the file is red, blue, green, nothing else, with no gap.
    @Test func aRedSourceSwitchedToBlueThenGreenMidRecordingHasNoGap() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("switch.mkv").path
        let s = try Session(description: Self.recording(file))
        let outcomes = Mutex<[Result<SourceSwitched, SourceSwitchError>]>([])
        // No size, no rate: the switch pins them to the 160x120 at 30 fps the stage gets.
        let code = Self.run(s, seconds: 3.8, after: 1.2) { s in
            for text in [Self.blue, Self.green] {
                let r = Result { () throws(SourceSwitchError) in try s.switchSource(to: text) }
                outcomes.withLock { $0.append(r) }
                Thread.sleep(forTimeInterval: 1)
            }
        }
        #expect(code == 0, "\(s.errors)")
        let switched = try outcomes.withLock { $0 }.map { try $0.get() }
        #expect(switched.map(\.element) == ["videotestsrc", "videotestsrc"])
        #expect(switched.first?.retired.contains { $0.hasPrefix("videotestsrc") } == true, "\(switched)")
        #expect(switched.last?.retired == ["vf_source1"], "\(switched)")
        let m = s.messages(SourceMessage.self)
        #expect(m.map(\.state) == [.switched, .switched] && m.map(\.reason) == [Self.blue, Self.green], "\(m)")
        let pts = try Self.checkTimes(file)
        let c = try Self.colours(of: file)
        #expect(c.count == pts.count)
        // Red, blue, green: two changes, nothing else between.
        let red = c.prefix { $0 == "r" }.count
        let blue = c.dropFirst(red).prefix { $0 == "b" }.count
        let green = c.dropFirst(red + blue).prefix { $0 == "g" }.count
        #expect(red >= 30 && blue >= 25 && green >= 15 && red + blue + green == c.count, "\(c)")
    }

    /// An RTSP viewer (gst-launch-1.0 rtspsrc, decoding) stays connected across the switch and decodes red, then blue.
    @Test(.tags(.network)) func anRTSPViewerDecodesBothSourcesAcrossTheSwitch() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("viewer.rgb").path
        let port = Tools.freePort()
        let s = try Session(
            description: "\(Self.red) ! video/x-raw,width=160,height=120,framerate=30/1 ! videoconvert ! passthrough ! videoconvert "
                + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! rtph264pay ! rtspserve port=\(port) path=/live")
        try s.prepare()
        defer { s.close() }
        let viewer = Mutex<(Process, URL, URL)?>(nil)
        let outcome = Mutex<Result<SourceSwitched, SourceSwitchError>?>(nil)
        let code = Self.run(s, seconds: 5, after: 0.3) { s in
            let v = try? Tools.start(
                "/usr/bin/gst-launch-1.0",
                [
                    "-q", "rtspsrc", "location=rtsp://127.0.0.1:\(port)/live", "protocols=tcp", "latency=100", "!", "rtph264depay", "!",
                    "h264parse", "!", "avdec_h264", "!", "videoconvert", "!", "videoscale", "!", "video/x-raw,format=RGB,width=4,height=4",
                    "!", "filesink", "location=\(raw)",
                ])
            viewer.withLock { $0 = v }
            Thread.sleep(forTimeInterval: 2)
            let r = Result { () throws(SourceSwitchError) in try s.switchSource(to: Self.blue) }
            outcome.withLock { $0 = r }
        }
        #expect(code == 0, "\(s.errors)")
        _ = try #require(try outcome.withLock { $0 }?.get())
        let (p, o, e) = try #require(viewer.withLock { $0 })
        let r = Tools.finish(p, o, e, timeout: 10)
        #expect(!r.hung, "\(r.err)")
        let decoded = Self.colours(rgb4x4: [UInt8](FileManager.default.contents(atPath: raw) ?? Data()))
        // A viewer joining mid-GOP decodes a few broken frames until a keyframe (key-int-max=15): the join, not the switch.
        let joining = decoded.prefix { $0 != "r" }.count
        #expect(joining <= 15, "\(decoded)")
        let c = decoded.dropFirst(joining)
        let red = c.prefix { $0 == "r" }.count
        let blue = c.dropFirst(red).prefix { $0 == "b" }.count
        #expect(red >= 15 && blue >= 30 && red + blue == c.count, "\(decoded) \(r.err)")
    }

    /// With `--reconnect`, the keeper of the source segment watches the new source: when it ends it is lost (named
    /// by its own name), placeholders fill the outage, and a restart brings it back; the file has no gap.
    @Test func theKeeperWatchesTheNewSource() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("kept.mkv").path
        var o = SessionOptions()
        o.reconnect = .on
        let s = try Session(
            description: Self.recording(file).replacingOccurrences(of: "is-live=true", with: "is-live=true name=cam"), options: o)
        let outcome = Mutex<Result<SourceSwitched, SourceSwitchError>?>(nil)
        let code = Self.run(s, seconds: 5.5, after: 1) { s in
            let r = Result { () throws(SourceSwitchError) in try s.switchSource(to: "\(Self.blue) num-buffers=30 name=cam2") }
            outcome.withLock { $0 = r }
        }
        #expect(code == 0, "\(s.errors)")
        _ = try #require(try outcome.withLock { $0 }?.get())
        let m = s.messages(SourceMessage.self)
        #expect(m.first?.state == .switched, "\(m)")
        let lost = m.filter { $0.state == .lost }, back = m.filter { $0.state == .restored }
        #expect(!lost.isEmpty && lost.allSatisfy { $0.element == "cam2" && $0.reason == "end of stream" }, "\(m)")
        #expect(!back.isEmpty && back.allSatisfy { $0.element == "cam2" }, "\(m)")
        _ = try Self.checkTimes(file)
        let c = try Self.colours(of: file)
        let red = c.prefix { $0 == "r" }.count
        let blue = c.dropFirst(red).prefix { $0 == "b" }.count
        // Red, 1 s of blue (30 frames, one dropped at the splice), placeholders, blue again.
        #expect(red >= 20 && blue >= 25 && c.dropFirst(red + blue).contains("b") && !c.dropFirst(red).contains("r"), "\(c)")
    }

    @Test func descriptionsThatDoNotParseOrLinkAreRefusedAndTheOldSourceGoesOn() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("kept.mkv").path
        let s = try Session(description: Self.recording(file))
        let errors = Mutex<[SourceSwitchError]>([])
        let conflict = Mutex<SourceSwitchError?>(nil)
        let code = Self.run(s, seconds: 4, after: 1) { s in
            for text in [
                "videotestsrc ! ! x", "audiotestsrc", "videotestsrc ! nosuchelement", "videotestsrc ! compose", "videotestsrc ! fakesink",
                "filesrc location=/nonexistent/vf.mp4 ! decodebin", "rtspsrc location=rtsp://127.0.0.1:9/none ! decodebin",
            ] {
                do throws(SourceSwitchError) { try s.switchSource(to: text) } catch { errors.withLock { $0.append(error) } }
            }
            // A source that never gives a frame holds the switch for its whole trial; a second switch meanwhile is a
            // conflict.
            let silent = Thread {
                do throws(SourceSwitchError) {
                    try s.switchSource(to: "videotestsrc is-live=true ! valve drop=true", firstFrameWithin: 1)
                } catch { errors.withLock { $0.append(error) } }
            }
            silent.start()
            Thread.sleep(forTimeInterval: 0.3)
            do throws(SourceSwitchError) { try s.switchSource(to: Self.blue) } catch { conflict.withLock { $0 = error } }
        }
        #expect(code == 0, "\(s.errors)")
        let busy = try #require(conflict.withLock { $0 })
        #expect(busy.kind == .conflict && busy.message.contains("under way"), "\(busy)")
        let e = errors.withLock { $0 }
        #expect(e.count == 8 && e.allSatisfy { $0.kind == .invalid }, "\(e)")
        if e.count == 8 {
            #expect(e[0].token != nil && e[0].offset > 0 && e[0].message.contains("!"), "\(e[0])")
            #expect(e[1].message.contains("audio/x-raw"), "\(e[1])")
            #expect(e[2].message.contains("nosuchelement"), "\(e[2])")
            #expect(e[3].message.contains("'compose' is a Viewfinder stage"), "\(e[3])")
            #expect(e[4].message.contains("no open output"), "\(e[4])")
            #expect(e[5].message.contains("could not be started") && e[5].message.contains("/nonexistent/vf.mp4"), "\(e[5])")
            // Refused while it tried to connect, after it was added to the running segment: its error is the switch's.
            #expect(e[6].message.contains("failed when tried") && e[6].message.contains("rtspsrc"), "\(e[6])")
            #expect(e[7].message.contains("gave no frame in 1.0 s"), "\(e[7])")
        }
        #expect(s.messages(SourceMessage.self).isEmpty)
        _ = try Self.checkTimes(file)
        let c = try Self.colours(of: file)
        #expect(c.count >= 60 && c.allSatisfy { $0 == "r" }, "\(c)")
    }

    @Test func aSessionWithoutAStageOrNotRunningCannotSwitch() throws {
        let plain = try Session(description: "videotestsrc num-buffers=1 ! fakesink")
        do {
            try plain.switchSource(to: Self.blue)
            Issue.record("a session without a stage switched")
        } catch {
            #expect(error.kind == .conflict && error.message.contains("no Viewfinder stage"), "\(error)")
        }
        let staged = try Session(description: "\(Self.red) ! passthrough ! fakesink")
        do {
            try staged.switchSource(to: Self.blue)
            Issue.record("a session that is not running switched")
        } catch {
            #expect(error.kind == .conflict && error.message.contains("not running"), "\(error)")
        }
        let branched = try Session(description: "\(Self.red) ! tee name=t ! queue ! passthrough ! fakesink t. ! queue ! fakesink")
        do {
            try branched.switchSource(to: Self.blue)
            Issue.record("a source segment with another sink switched")
        } catch {
            #expect(error.kind == .conflict && error.message.contains("also feeds"), "\(error)")
        }
    }
}
