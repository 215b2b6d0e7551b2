import Foundation
import Host
import Synchronization
import TestSupport
import Testing

@testable import Control

/// `/healthz` over a list of named sessions, in process (the binary's route is in `MetricsReportTests`): healthy
/// while every pipeline plays, 503 naming the ones that do not (not started yet, ended).
@Suite(.serialized, .tags(.process), .tier) struct HealthReportTests {
    static func body(_ r: ControlResponse) -> String {
        guard case .bytes(let d) = r.body else { return "" }
        return String(decoding: d, as: UTF8.self)
    }

    @Test func playingIsHealthyAndEndedOrNotStartedIsNamed() throws {
        // `yard` ends after 30 frames; `cam` is live and is looked at while it plays, then stopped.
        let yard = try Session(
            description: "videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120 ! compose analysis-width=80 warmup=0 ! fakesink")
        let cam = try Session(
            description:
                "videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1 ! compose analysis-width=80 warmup=0 ! fakesink"
        )

        let before = HealthReport([("cam", cam), ("yard", yard)])
        #expect(before.failing == ["cam", "yard"] && !before.healthy)
        #expect(before.response.statusCode == .serviceUnavailable)
        #expect(
            Self.body(before.response) == #"{"failing":["cam","yard"],"pipelines":{"cam":"built","yard":"built"},"status":"unhealthy"}"#
                + "\n")

        #expect(yard.run() == 0, "\(yard.errors)")
        let seen = Mutex<[(Int, String)]>([])
        cam.onPlaying = { session in
            let alone = HealthReport([("cam", session)]).response
            let both = HealthReport([("cam", session), ("yard", yard), ("cam", yard)]).response
            seen.withLock { $0 = [(alone.statusCode.code, Self.body(alone)), (both.statusCode.code, Self.body(both))] }
            session.requestStop()
        }
        #expect(cam.run() == 0, "\(cam.errors)")
        let answers = seen.withLock { $0 }
        #expect(answers.count == 2)
        #expect(answers.first?.0 == 200 && answers.first?.1 == #"{"pipelines":{"cam":"running"},"status":"ok"}"# + "\n")
        // A repeated name counts once (the first).
        #expect(
            answers.last?.0 == 503
                && answers.last?.1 == #"{"failing":["yard"],"pipelines":{"cam":"running","yard":"ended"},"status":"unhealthy"}"# + "\n")

        let after = HealthReport([("cam", cam), ("yard", yard)])
        #expect(after.failing == ["cam", "yard"] && after.pipelines.map(\.phase) == [.ended, .ended])
        // No pipeline: nothing fails.
        #expect(HealthReport([]).healthy && Self.body(HealthReport([]).response) == #"{"pipelines":{},"status":"ok"}"# + "\n")
    }
}
