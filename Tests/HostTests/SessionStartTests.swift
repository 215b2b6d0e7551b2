import Foundation
import GStreamerKit
import TestTags
import Testing

@testable import Host

/// Session start-up order: every stage worker sees its frames whatever the graph between stages
/// (the run used to hang when a worker polled an appsink whose segment was not started yet).
@Suite(.serialized, .tags(.live), .tier) struct SessionStartTests {
    /// Runs a description to the end on its own thread; nil when it did not end within `timeout`.
    static func runBounded(_ description: String, timeout: Double = 20) throws -> (code: Int32, report: SessionReport?)? {
        let s = try Session(description: description)
        guard let code = BoundedRun.run(s, timeout: timeout) else { return nil }
        return (code, s.report)
    }

    static func dir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-start-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test(arguments: [false, true])
    func stageElementStageNeverStalls(live: Bool) throws {
        var stalls = 0, wrong: [String] = []
        for _ in 0..<20 {
            guard
                let r = try Self.runBounded("videotestsrc num-buffers=5 is-live=\(live) ! passthrough ! identity ! passthrough ! fakesink")
            else { stalls += 1; continue }
            if r.code != 0 || r.report?.framesOut != 5 { wrong.append("rc \(r.code), \(r.report?.text ?? "no report")") }
        }
        #expect(stalls == 0)
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test(arguments: [false, true])
    func twoGroupsWithElementsBetweenRecordEveryFrame(live: Bool) throws {
        let d = Self.dir()
        var stalls = 0
        for i in 0..<8 {
            let out = "\(d)/two\(i).mp4"
            guard
                let r = try Self.runBounded(
                    "videotestsrc num-buffers=15 is-live=\(live) ! video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! compose warmup=0 ! videoconvert ! grid ! videoconvert ! x264enc tune=zerolatency ! mp4mux ! filesink location=\(out)"
                )
            else { stalls += 1; continue }
            #expect(r.code == 0)
            #expect(r.report?.framesOut == 15, "\(r.report?.text ?? "")")
        }
        #expect(stalls == 0)
    }

    @Test func composeQueueCaptureTakesPhotos() throws {
        let d = Self.dir()
        guard
            let r = try Self.runBounded(
                "videotestsrc num-buffers=20 ! video/x-raw,width=320,height=240,framerate=30/1 ! compose warmup=0 ! queue ! capture auto=false at=5 directory=\(d)/photos ! fakesink"
            )
        else {
            Issue.record("compose ! queue ! capture stalled"); return
        }
        #expect(r.code == 0)
        #expect(r.report?.framesOut == 20)
        let photos = (try? FileManager.default.contentsOfDirectory(atPath: "\(d)/photos")) ?? []
        #expect(photos.filter { $0.hasPrefix("IMG_") && $0.hasSuffix(".jpg") }.count == 1, "\(photos)")
    }
}
