import Foundation
import GStreamerKit
import Stages
import TestSupport
import TestTags
import Testing

@testable import Host

/// The `clips` element in real sessions: x264enc's stream teed into a full recording and the clip recorder, capture
/// firing at known frames (`at=`), the clips read back with ffprobe and compared packet by packet with the recording.
/// Not `live`: the sources are not live and nothing is expected within a wall-clock time (the pacing only keeps the
/// photo messages near their frames, with the ring's 2 s of slack to spare), so they run in the parallel pass.
@Suite(.serialized, .tags(.process), .tier) struct ClipsServiceTests {
    /// A 30 fps source of `frames` frames paced at real time (`identity sync=true`: exact timestamps, frame i at i/30 s,
    /// and the capture messages reach the recorder while the stream plays, as a camera's do), keyframes every 30 frames
    /// (1 s), capture at the given frames, the encoded stream into `full.mp4` and into `clips` with `clipProperties`.
    static func description(_ dir: URL, frames: Int, at: String, clipProperties: String) -> String {
        "videotestsrc num-buffers=\(frames) pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! identity sync=true "
            + "! capture auto=false manual=false at=\(at) directory=\(dir.path)/photos thumbnails=false "
            + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! tee name=t "
            + "t. ! queue ! mp4mux ! filesink location=\(dir.path)/full.mp4 "
            + "t. ! queue ! clips directory=\(dir.path)/clips \(clipProperties)"
    }

    /// Each packet's MD5 (ffprobe's data hash of the encoded frame), in order.
    static func packetHashes(_ file: String, stream: String = "v") throws -> [String] {
        let r = try Tools.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", stream, "-show_data_hash", "md5", "-show_entries", "packet=data_hash", "-of", "csv=p=0", file])
        return r.out.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func records(_ dir: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: dir.appendingPathComponent("clips/clips.json"))
        return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["clips"] as? [[String: Any]])
    }

    /// The photos' pts (records.json), by photo number.
    static func photoPts(_ dir: URL) throws -> [Int: UInt64] {
        let data = try Data(contentsOf: dir.appendingPathComponent("photos/records.json"))
        let photos = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["photos"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: photos.compactMap { p in (p["id"] as? Int).flatMap { id in (p["pts"] as? UInt64).map { (id, $0) } } })
    }

    /// Checks a clip against the recording: its packets are a run of the recording's, byte for byte, starting at a
    /// keyframe; it starts at most one key interval (1 s) before `moment - pre` and not after it, and its last frame is
    /// the last one before `moment + post`. Returns the index of its first packet in the recording.
    @discardableResult
    static func check(_ record: [String: Any], file: String, full: [String], moment: UInt64, pre: UInt64, post: UInt64) throws -> Int {
        let clip = try packetHashes(file)
        let first = try #require(clip.first)
        let at = try #require(full.firstIndex(of: first), "the clip's first frame is not in the recording")
        #expect(Array(full[at..<min(full.count, at + clip.count)]) == clip, "the clip is not a run of the recording's frames")
        #expect(at % 30 == 0, "the clip starts at frame \(at), not at a keyframe")
        let start = try #require(record["startPts"] as? UInt64), end = try #require(record["endPts"] as? UInt64)
        #expect(start <= moment - pre && start + 1_000_000_000 > moment - pre, "start \(start) for a moment at \(moment)")
        #expect(end < moment + post && end + 34_000_000 >= moment + post, "end \(end) for a moment at \(moment)")
        #expect(record["frames"] as? Int == clip.count)
        #expect(try Tools.ffprobeVideoFrames(file).count == clip.count)
        return at
    }

    @Test func aPhotosClipIsCentredOnItsFrameAndHoldsTheStreamsOwnFrames() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try Session(description: Self.description(dir, frames: 180, at: "90", clipProperties: "pre=2 post=2"))
        #expect(s.run() == 0, "\(s.errors)")
        let list = try Self.records(dir)
        try #require(list.count == 1)
        let c = list[0]
        let photo = try #require(try Self.photoPts(dir)[1])
        #expect(c["trigger"] as? String == "photo")
        #expect((c["photo"] as? [String: Any])?["id"] as? Int == 1)
        #expect((c["photo"] as? [String: Any])?["stage"] as? String == "capture0")
        #expect(((c["triggers"] as? [[String: Any]])?.first?["pts"] as? UInt64) == photo)
        let file = dir.appendingPathComponent("clips/CLIP_00001.mp4").path
        let full = try Self.packetHashes(dir.appendingPathComponent("full.mp4").path)
        try #require(full.count == 180)
        try Self.check(c, file: file, full: full, moment: photo, pre: 2_000_000_000, post: 2_000_000_000)
        #expect(abs((try Tools.ffprobeVideoFrames(file).first?.pts ?? -1) - 0) < 0.001)
        // The index is at the front (faststart), the thumbnail is the first frame, 320 wide.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let moov = try #require(bytes.range(of: Data("moov".utf8))), mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)
        let thumb = try Tools.luma(of: dir.appendingPathComponent("clips/thumbs/CLIP_00001.jpg").path)
        #expect(thumb.width == 320 && thumb.height == 240)
        // The saved message carries the clip's numbers.
        let saved = s.elementMessages.compactMap { $0.decode(ClipMessage.self) }.filter { $0.event == .saved }
        #expect(saved.map(\.id) == [1])
        #expect(saved.first?.frames == c["frames"] as? Int)
        #expect(saved.first?.url == "/clips/vf_clips0/CLIP_00001.mp4")
    }

    @Test func anOverlappingTriggerExtendsTheOpenClip() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Photos 1 s apart with pre=2 post=2: the second's pre-roll lies inside the first clip, which now ends 2 s after
        // the second photo.
        let s = try Session(description: Self.description(dir, frames: 180, at: "75,105", clipProperties: "pre=2 post=2"))
        #expect(s.run() == 0, "\(s.errors)")
        let list = try Self.records(dir)
        try #require(list.count == 1)
        #expect((list[0]["triggers"] as? [[String: Any]])?.compactMap { ($0["photo"] as? [String: Any])?["id"] as? Int } == [1, 2])
        let photos = try Self.photoPts(dir)
        let first = try #require(photos[1]), second = try #require(photos[2])
        let full = try Self.packetHashes(dir.appendingPathComponent("full.mp4").path)
        try #require(full.count == 180)
        // Starts for the first photo, ends for the second.
        let start = try #require(list[0]["startPts"] as? UInt64), end = try #require(list[0]["endPts"] as? UInt64)
        #expect(start <= first - 2_000_000_000 && start + 1_000_000_000 > first - 2_000_000_000)
        #expect(end < second + 2_000_000_000 && end + 34_000_000 >= second + 2_000_000_000)
        let clip = try Self.packetHashes(dir.appendingPathComponent("clips/CLIP_00001.mp4").path)
        let at = try #require(full.firstIndex(of: clip[0]))
        #expect(Array(full[at..<(at + clip.count)]) == clip)
    }

    @Test func separateMomentsMakeSeparateClipsWithoutLosingAFrameBetween() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Photos 4 s apart with pre=1 post=1: two clips.
        let s = try Session(description: Self.description(dir, frames: 210, at: "45,150", clipProperties: "pre=1 post=1"))
        #expect(s.run() == 0, "\(s.errors)")
        let list = try Self.records(dir)
        #expect(list.compactMap { $0["id"] as? Int } == [1, 2])
        try #require(list.count == 2)
        let photos = try Self.photoPts(dir)
        let full = try Self.packetHashes(dir.appendingPathComponent("full.mp4").path)
        try #require(full.count == 210)
        for (i, record) in list.enumerated() {
            let moment = try #require(photos[i + 1])
            try Self.check(
                record, file: dir.appendingPathComponent("clips/\(ClipRecord.fileName(i + 1))").path, full: full, moment: moment,
                pre: 1_000_000_000, post: 1_000_000_000)
        }
    }

    @Test func badSettingsAreRefusedBeforeAnythingIsMade() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func refusal(_ properties: String) -> HostError? {
            do {
                _ = try Session(description: "videotestsrc num-buffers=1 ! x264enc ! h264parse ! clips \(properties)")
                return nil
            } catch { return error as? HostError }
        }
        let pre = refusal("pre=61 directory=\(dir.path)/a")
        #expect(pre?.kind == .usage)
        #expect(pre?.message.contains("'61'") == true && pre?.message.contains("pre") == true)
        let file = dir.appendingPathComponent("plain-file").path
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let notDir = refusal("directory=\(file)/clips")
        #expect(notDir?.kind == .usage)
        #expect(notDir?.message.contains("cannot use clips directory") == true)
        let twice = try? Session(
            description: "videotestsrc num-buffers=1 ! x264enc ! h264parse ! tee name=t t. ! queue ! clips directory=\(dir.path)/c t. ! queue ! clips directory=\(dir.path)/c")
        #expect(twice == nil)
        // Nothing was created.
        #expect(!FileManager.default.fileExists(atPath: "\(dir.path)/a"))
        #expect(!FileManager.default.fileExists(atPath: "\(dir.path)/c"))
    }

    @Test func theCompositionTriggerFiresOnceTheScoreHeldWhileSteady() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The still bars: compose scores them ~0.89 (thirds) on every analysis, capture finds the camera steady. With
        // score=0.5 score-seconds=1 the trigger fires once the score held 1 s while steady, and once only.
        let s = try Session(
            description:
                "videotestsrc num-buffers=150 ! video/x-raw,width=320,height=240,framerate=30/1 ! identity sync=true "
                + "! compose analysis-fps=10 ! capture auto=false manual=false directory=\(dir.path)/photos thumbnails=false "
                + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse "
                + "! clips pre=1 post=1 score=0.5 score-seconds=1 directory=\(dir.path)/clips")
        #expect(s.run() == 0, "\(s.errors)")
        let list = try Self.records(dir)
        #expect(list.count == 1, "\(list)")
        let c = try #require(list.first)
        #expect(c["trigger"] as? String == "composition")
        #expect((c["triggers"] as? [[String: Any]])?.count == 1)
        // The score per second of the clip: compose's mean in each second it analysed (null: a second without an
        // analysis, as a loaded machine leaves at the clip's edges).
        let timeline = try #require(c["timeline"] as? [Any])
        let scored = timeline.compactMap { $0 as? Double }
        #expect(!scored.isEmpty && scored.allSatisfy { $0 > 0.5 }, "\(timeline)")
        // One entry per second the clip spans (a last frame exactly on a second begins one more).
        let seconds = Int((c["duration"] as? Double ?? 0).rounded(.up))
        #expect(timeline.count == seconds || timeline.count == seconds + 1, "\(timeline) for \(c["duration"] ?? "?") s")
        // It fired after at least 1 s of steady, high scores: its moment is past 1 s of stream.
        let moment = try #require((c["triggers"] as? [[String: Any]])?.first?["pts"] as? UInt64)
        #expect(moment >= 1_000_000_000)
        let composed = s.elementMessages.compactMap { $0.decode(CompositionMessage.self) }
        #expect(composed.allSatisfy { $0.score > 0.5 }, "the bars scored \(composed.map(\.score))")
    }

    @Test func aTriggerBeforeAnyKeyframeStartsAtTheFirstAndSaysSo() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The queue holds the first second back: the trigger at the start comes before any frame reached the recorder.
        let s = try Session(
            description:
                "videotestsrc num-buffers=90 ! video/x-raw,width=320,height=240,framerate=30/1 ! identity sync=true "
                + "! queue min-threshold-time=1000000000 max-size-time=3000000000 max-size-buffers=0 max-size-bytes=0 "
                + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! clips pre=2 post=1 directory=\(dir.path)/clips")
        s.onPlaying = { session in
            let answer = session.clipRecorders.first?.trigger(kind: "api")
            #expect(answer == .waiting("waiting for the first keyframe"), "\(String(describing: answer))")
        }
        #expect(s.run() == 0, "\(s.errors)")
        let c = try #require(try Self.records(dir).first)
        #expect(c["notes"] as? [String] == ["triggered before any keyframe: the clip starts at the first keyframe"])
        #expect(c["startPts"] as? UInt64 == 0)
        let frames = try Tools.ffprobeVideoFrames(dir.appendingPathComponent("clips/CLIP_00001.mp4").path)
        #expect(frames.count == 30, "1 s of post from the first keyframe at 0")
    }

    @Test func anAudioInputGoesIntoTheClipAlignedWithTheVideo() throws {
        let dir = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try Session(
            description: Self.description(dir, frames: 120, at: "60", clipProperties: "name=c pre=1 post=1")
                + " audiotestsrc num-buffers=200 samplesperbuffer=1024 ! audio/x-raw,rate=48000,channels=2 ! identity sync=true ! avenc_aac ! aacparse ! c.audio")
        #expect(s.run() == 0, "\(s.errors)")
        let file = dir.appendingPathComponent("clips/CLIP_00001.mp4").path
        let r = try Tools.run(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,start_time,duration", "-of", "json", file])
        let streams = try #require((try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])?["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(audio["codec_name"] as? String == "aac")
        let vStart = Double(video["start_time"] as? String ?? "") ?? -1, aStart = Double(audio["start_time"] as? String ?? "") ?? -1
        let vLength = Double(video["duration"] as? String ?? "") ?? -1, aLength = Double(audio["duration"] as? String ?? "") ?? -1
        // Side by side from the clip's first frame (within an AAC frame, 21 ms, plus the encoder's delay).
        #expect(abs(vStart) < 0.001 && aStart >= 0 && aStart < 0.1, "video at \(vStart), audio at \(aStart)")
        #expect(abs(aLength - vLength) < 0.2, "video \(vLength) s, audio \(aLength) s")
        // The video is still the stream's own frames.
        let full = try Self.packetHashes(dir.appendingPathComponent("full.mp4").path)
        let clip = try Self.packetHashes(file)
        let at = try #require(full.firstIndex(of: clip[0]))
        #expect(full.count == 120 && Array(full[at..<(at + clip.count)]) == clip)
    }

    @Test func anAudioReferenceMustNameAnInputOnce() {
        func refusal(_ tail: String) -> String? {
            do {
                _ = try Session(description: "videotestsrc num-buffers=1 ! x264enc ! h264parse ! clips name=c directory=/tmp/vf-never-made " + tail)
                return nil
            } catch { return (error as? HostError)?.message }
        }
        #expect(refusal("audiotestsrc ! avenc_aac ! c.video") == "clips 'c' has no input 'video': expected 'c.audio'")
        #expect(
            refusal("audiotestsrc ! avenc_aac ! c.audio audiotestsrc ! avenc_aac ! c.")
                == "clips 'c': its input 'audio' is linked twice: expected one chain ending in 'c.audio'")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/vf-never-made"))
    }
}
