import Foundation
import GStreamerKit
import Stages
import Synchronization
import TestTags
import Testing

@testable import Host

/// In-process sessions: renegotiation mid-stream, queue policy, stats, element messages.
@Suite(.serialized, .tags(.live, .process), .tier) struct SessionTests {
    static func tmp(_ name: String) -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-session-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d.appendingPathComponent(name).path
    }

    @Test func resolutionChangeMidStreamReachesStageAndFile() throws {
        let out = Self.tmp("change.ts")
        let s = try Session(
            description:
                "videotestsrc is-live=true num-buffers=40 ! capsfilter name=cf caps=video/x-raw,width=320,height=240,framerate=20/1 ! grid ! videoconvert ! x264enc tune=zerolatency ! h264parse ! mpegtsmux ! filesink location=\(out)"
        )
        s.onPlaying = { session in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 1.0)
                try? session.element(named: "cf")?.set("caps", "video/x-raw,width=640,height=480,framerate=20/1")
            }
        }
        #expect(s.run() == 0, "\(s.errors)")
        #expect(s.report?.renegotiations == 2)
        let r = Process()
        r.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        r.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height", "-of", "csv=p=0", out]
        let pipe = Pipe(); r.standardOutput = pipe
        try r.run(); r.waitUntilExit()
        let sizes = Set(
            String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init))
        #expect(sizes.contains("320,240"))
        #expect(sizes.contains("640,480"))
    }

    @Test func liveOutputCarriesUpstreamLatencySoSyncingSinksDropNothing() throws {
        // fpsdisplaysink over a syncing fakesink that drops anything 20 ms late.
        let s = try Session(
            description:
                "videotestsrc is-live=true num-buffers=45 ! video/x-raw,width=640,height=360,framerate=30/1 ! grid ! fpsdisplaysink name=fps text-overlay=false signal-fps-measurements=false video-sink=\"fakesink sync=true max-lateness=20000000 qos=true\""
        )
        #expect(s.run() == 0, "\(s.errors)")
        let fps = try #require(s.element(named: "fps"))
        #expect(fps.uint32("frames-rendered") == 45)
        #expect(fps.uint32("frames-dropped") == 0)
        // The appsrc reports the live source's latency (one frame at 30 fps) plus the stage budget.
        let src = try #require(s.element(named: "vf_grid0_src"))
        #expect(src.int64("min-latency") >= 33_333_333 + 20_000_000)
        #expect(src.bool("is-live"))
    }

    @Test func fileSourceIsLosslessLiveSourceIsLeaky() throws {
        // A non-live source never loses a frame, whatever the queue size.
        let a = try Session(description: "videotestsrc num-buffers=100 ! video/x-raw,width=320,height=240 ! grid ! fakesink")
        #expect(a.run() == 0)
        #expect(a.report?.framesIn == 100 && a.report?.framesOut == 100 && a.report?.dropped == 0)
        // Forcing leaky on a fast non-live source with a 1-frame bound drops (and counts) frames.
        var o = SessionOptions(); o.queue = .leaky; o.queueSize = 1
        let b = try Session(
            description:
                "videotestsrc num-buffers=300 ! video/x-raw,width=640,height=480 ! grid lines=thirds+diagonals+spiral-tl ! fakesink",
            options: o)
        #expect(b.run() == 0)
        let r = try #require(b.report)
        #expect(r.framesIn == 300)
        #expect(r.framesOut + r.dropped == 300)
    }

    @Test func snapshotPostsElementMessages() throws {
        let d = Self.tmp("")
        let s = try Session(description: "videotestsrc num-buffers=10 ! snapshot name=cam at=1,4 location=\(d)/m-%02d.jpg ! fakesink")
        #expect(s.run() == 0)
        let msgs = s.elementMessages.map(\.description).filter { $0.contains("viewfinder/snapshot") }
        #expect(msgs.count == 2)
        #expect(msgs.first?.contains("stage=(string)cam") == true)
        #expect(msgs.first?.contains("frame=(guint64)1") == true)
    }

    @Test func statsPerStage() throws {
        let s = try Session(description: "videotestsrc num-buffers=20 ! video/x-raw,width=320,height=240 ! grid ! snapshot ! fakesink")
        #expect(s.run() == 0)
        let r = try #require(s.report)
        #expect(r.stages.map(\.name) == ["grid0", "snapshot0"])
        #expect(r.stages.allSatisfy { $0.frames == 20 && $0.p95Ms >= 0 })
        #expect(r.text.contains("20 in, 20 out, 0 dropped"))
    }

    /// After its run, a session lets go of its stage groups, their stages and the stages' own threads: a service
    /// builds a session per start, restart and API add, so anything kept would grow without bound. (A stored worker
    /// Thread held its closure and with it the group: every compose and its analysis thread stayed for good.)
    @Test func aSessionReleasesItsStagesAndTheirThreadsAfterItsRun() throws {
        func threads(_ name: String) -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix(name) == true }.count
        }
        weak var stage: AnyObject?
        weak var group: StageGroup?
        do {
            let s = try Session(
                description: "videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240 ! compose name=leakcheck warmup=0 ! fakesink")
            stage = s.groups.first?.stages.first?.stage as AnyObject?
            group = s.groups.first
            #expect(stage != nil && group != nil)
            // The analysis thread names itself once it runs: on a busy machine a moment after the session is built.
            let started = Date().addingTimeInterval(10)
            while threads("vf-leakcheck-an") == 0 && Date() < started { Thread.sleep(forTimeInterval: 0.01) }
            #expect(threads("vf-leakcheck-an") == 1)
            #expect(s.run() == 0, "\(s.errors)")
        }
        // The analysis thread may be finishing its last job: it leaves within a bounded wait.
        let deadline = Date().addingTimeInterval(10)
        while (stage != nil || threads("vf-leakcheck-an") > 0) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(group == nil)
        #expect(stage == nil)
        #expect(threads("vf-leakcheck-an") == 0)
    }

    /// An application triggers `capture` with a `viewfinder-capture` custom event: upstream from a sink
    /// after the stage, and downstream from the source before it.
    @Test func customEventsReachTheCaptureStageFromBothDirections() throws {
        let dir = Self.tmp("photos")
        let s = try Session(
            description:
                "videotestsrc name=src is-live=true num-buffers=60 ! video/x-raw,width=160,height=120,framerate=30/1 ! capture name=c auto=false manual=false overlay=false directory=\(dir) ! fakesink name=out"
        )
        s.onPlaying = { session in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.5)
                session.element(named: "out")?.sendCustomUpstreamEvent(MessageStructure("viewfinder-capture"))
                Thread.sleep(forTimeInterval: 0.5)
                session.element(named: "src")?.sendCustomEvent(MessageStructure("viewfinder-capture"))
            }
        }
        #expect(s.run() == 0, "\(s.errors)")
        let captures = s.elementMessages.map(\.description).filter {
            $0.contains("viewfinder/capture") && $0.contains("event=(string)capture")
        }
        #expect(captures.count == 2, "\(captures)")
        #expect(captures.allSatisfy { $0.contains("trigger=(string)event") })
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(files == ["IMG_00001.jpg", "IMG_00002.jpg"])
        // Indexed once the pipelines stopped (the stage is closed after the run).
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/records.json"))
        let photos = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["photos"] as? [[String: Any]]
        #expect(photos?.compactMap { $0["trigger"] as? String } == ["event", "event"])
    }

    /// A slow photo branch of the user's own is bounded by its appsrc queue: triggers beyond
    /// `max-pending` queued photos are refused as busy instead of blocking the video.
    @Test func aSlowPhotoBranchIsRefusedAsBusyNotWaitedFor() throws {
        let dir = Self.tmp("photos")
        let s = try Session(
            description:
                "videotestsrc num-buffers=60 ! video/x-raw,width=160,height=120,framerate=30/1 ! capture name=c auto=false manual=false overlay=false interval=0.03 max-pending=2 directory=\(dir) ! fakesink c.snapshot ! identity sleep-time=100000 ! fakesink"
        )
        #expect(s.run() == 0, "\(s.errors)")
        let refused = s.elementMessages.map(\.description).filter {
            $0.contains("event=(string)refused") && $0.contains("queued\\ on\\ the\\ snapshot\\ output")
        }
        let captured = s.elementMessages.map(\.description).filter { $0.contains("event=(string)capture,") }
        #expect(!refused.isEmpty, "\(s.elementMessages.suffix(5).map(\.description))")
        #expect(captured.count + refused.count == 60)
        #expect(s.report?.framesOut == 60)
    }

    /// A photo branch of the user's own (PNG, elsewhere): the stage indexes what its multifilesink reports.
    @Test func aUserPhotoBranchIsIndexedFromMultifilesinkMessages() throws {
        let dir = Self.tmp("photos")
        let shots = (Self.tmp("shots") as NSString).deletingLastPathComponent + "/shot-%03d.png"
        // A still pattern (smpte's noise corner changes each frame, and the sharpest frame would win).
        let s = try Session(
            description:
                "videotestsrc pattern=checkers-8 num-buffers=20 ! video/x-raw,width=160,height=120,framerate=30/1 ! capture name=c auto=false manual=false overlay=false thumbnails=false at=5,12 directory=\(dir) ! fakesink c.snapshot ! queue ! videoconvert ! pngenc ! multifilesink location=\(shots) post-messages=true"
        )
        #expect(s.run() == 0, "\(s.errors)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/records.json"))
        let photos = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["photos"] as? [[String: Any]])
        #expect(photos.count == 2)
        #expect(
            photos.compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } } == ["shot-000.png", "shot-001.png"])
        #expect(
            photos.allSatisfy {
                ($0["file"] as? String)?.hasPrefix("/") == true && $0["width"] as? Int == 160 && $0["height"] as? Int == 120
            })
        #expect(photos.compactMap { $0["pts"] as? Int } == [166_666_666, 400_000_000])  // frames 5 and 12 (equal frames: the newest)
        // Nothing of the default branches was made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("IMG_") }.isEmpty)
    }

    /// 30 photos at small size, three runs: every capture event has its photo, thumbnail and record, and the
    /// work area is empty at the end. (The ordering race itself — a file reported before push() returns — is
    /// reproduced deterministically in CaptureStageTests.)
    @Test func everyCaptureHasItsPhotoThumbnailAndRecord() throws {
        for _ in 0..<3 {
            let dir = Self.tmp("photos")
            let s = try Session(
                description:
                    "videotestsrc pattern=smpte num-buffers=90 ! video/x-raw,width=160,height=120,framerate=30/1 ! capture auto=false manual=false overlay=false interval=0.1 max-pending=8 directory=\(dir) ! fakesink"
            )
            #expect(s.run() == 0, "\(s.errors)")
            let captures = s.elementMessages.filter { $0.description.contains("event=(string)capture,") }.count
            let refused = s.elementMessages.filter { $0.description.contains("event=(string)refused") }.count
            #expect(captures + refused == 30 && captures >= 20, "\(captures) captures, \(refused) refused")
            let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("IMG_") }.sorted()
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/records.json"))
            let photos = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["photos"] as? [[String: Any]] ?? []
            #expect(files.count == captures)
            #expect(photos.compactMap { $0["file"] as? String } == files)
            #expect(photos.allSatisfy { ($0["thumbnail"] as? String)?.hasPrefix("thumbs/") == true })
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/.partial") == ["thumbs"])
        }
    }

    /// Network locations are not files: no existence check for rtspsrc/souphttpsrc, no directory check for rtmpsink/srtsink.
    @Test func urlsInLocationsAreNotCheckedAsFiles() throws {
        for d in [
            "rtspsrc location=rtsp://127.0.0.1:9/x ! fakesink",
            "souphttpsrc location=http://127.0.0.1:9/x ! fakesink",
            "videotestsrc ! x264enc ! flvmux ! rtmpsink location=rtmp://127.0.0.1/live/x",
            "videotestsrc ! x264enc ! mpegtsmux ! srtsink uri=srt://127.0.0.1:9",
        ] {
            #expect(throws: Never.self, "\(d)") { _ = try Session(description: d) }
        }
    }

    /// Messages say what the path is: a directory, a file in the way.
    @Test func fileMessagesSayWhatIsThere() throws {
        func message(_ d: String) -> String {
            do { _ = try Session(description: d); return "" } catch {
                return error.kind == .usage ? error.message : "not usage: \(error.message)"
            }
        }
        #expect(message("filesrc name=in location=/etc ! fakesink") == "in: '/etc' is a directory, not a file (location of filesrc)")
        #expect(
            message("videotestsrc ! filesink name=out location=/etc/passwd/out.mp4")
                == "out: cannot write '/etc/passwd/out.mp4': '/etc/passwd' is a file, not a directory (location of filesink)")
        #expect(
            message("videotestsrc ! capture directory=/etc/passwd/photos ! fakesink").contains("'/etc/passwd' is a file, not a directory"))
    }

    /// Stages open (create their directories) when the run starts; a stage that cannot is exit 1 naming it.
    @Test func aStageThatCannotOpenEndsTheRunNamingIt() throws {
        let photos = Self.tmp("photos")
        let s = try Session(description: "videotestsrc num-buffers=3 ! capture name=cap directory=\(photos) ! fakesink")
        #expect(!FileManager.default.fileExists(atPath: photos))
        FileManager.default.createFile(atPath: photos, contents: Data("in the way".utf8))
        #expect(s.run() == 1)
        #expect(s.errors.contains { $0.contains("stage 'cap' cannot start") && $0.contains("is a file, not a directory") }, "\(s.errors)")
    }

    /// The messages of a real run decode to their typed values: compose's one per analysis, snapshot's
    /// one per shot, capture's capture event (ring-ms=0: the triggering frame itself), each with its frame.
    @Test func aRunsMessagesDecodeToTheirTypes() throws {
        let dir = Self.tmp("typed")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let s = try Session(
            description: "videotestsrc pattern=ball num-buffers=40 ! video/x-raw,width=320,height=240,framerate=30/1 "
                + "! compose warmup=0 sync=true analysis-fps=10 ! snapshot at=5,20 location=\(dir)/snap-%02d.jpg "
                + "! capture auto=false at=10 ring-ms=0 directory=\(dir)/photos ! fakesink")
        #expect(s.run() == 0, "\(s.errors)")
        let raw = s.elementMessages.filter { $0.structure.name == CompositionMessage.structureName }
        let analyses = s.messages(CompositionMessage.self)
        // Every posted structure decodes; sync at 10 analyses/s of 30 fps: frames 0, 3, ..., 39.
        #expect(analyses.count == raw.count)
        #expect(analyses.map(\.frame) == Array(stride(from: 0, to: 40, by: 3)))
        #expect(analyses.allSatisfy { $0.pts == UInt64($0.frame) * 1_000_000_000 / 30 && (0...1).contains($0.score) && !$0.rule.isEmpty })
        let shots = s.messages(SnapshotMessage.self)
        #expect(shots.map(\.frame) == [5, 20])
        #expect(shots.allSatisfy { $0.pushed && $0.reason.rawValue == "at" })
        let captures = s.messages(CaptureMessage.self).compactMap { m -> String? in
            if case .capture(_, let trigger, _, let frame, _, _, _, _, _) = m.event { return "\(frame) \(trigger.rawValue)" }
            return nil
        }
        #expect(captures == ["10 at"])
    }

    @Test func onPropertiesChangedGetsWhatTookAfterItTook() throws {
        let session = try Session(description: "videotestsrc num-buffers=1 ! ringlight ! fakesink")
        let seen = Mutex<[(String, [(String, PropertyValue)])]>([])
        session.onPropertiesChanged = { stage, changes in
            // Called after the values were recorded: the session already answers with them.
            #expect(changes.allSatisfy { session.propertyValues(ofStage: stage)?[$0.0] == $0.1 })
            seen.withLock { $0.append((stage, changes)) }
        }
        try session.update(stage: "ringlight0", [("opacity", .int(50)), ("width", .int(12))])
        // A refusal part-way: the change before it took and is reported; the refused one is not.
        #expect(throws: StageError.self) { try session.update(stage: "ringlight0", [("enabled", .bool(false)), ("zoom", .int(2))]) }
        #expect(throws: StageError.self) { try session.update(stage: "nope", [("opacity", .int(20))]) }
        let calls = seen.withLock { $0 }
        #expect(calls.map(\.0) == ["ringlight0", "ringlight0"])
        #expect(calls.first?.1.map(\.0) == ["opacity", "width"] && calls.first?.1.map(\.1) == [.int(50), .int(12)])
        #expect(calls.last?.1.map(\.0) == ["enabled"] && calls.last?.1.map(\.1) == [.bool(false)])
    }
}
