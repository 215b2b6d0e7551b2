import Foundation
import GStreamerKit
import Stages
import TestSupport
import Testing

@testable import Host

/// The source keeper in a session: a watched live source that ends is lost, stood in for by placeholders and
/// started again; a source that is not watched ends the run as before. (Network sources killed and restarted
/// by a second process: `ReconnectCommandTests`.)
@Suite(.serialized, .tags(.live), .tier) struct SourceKeeperTests {
    /// Runs `description` for `seconds`, then asks it to stop; the session and its exit code.
    static func run(_ description: String, reconnect: SessionOptions.ReconnectMode, seconds: Double) throws -> (Session, Int32?) {
        var o = SessionOptions()
        o.reconnect = reconnect
        let s = try Session(description: description, options: o)
        return (s, BoundedRun.run(s, timeout: seconds, stopThenWait: 10))
    }

    /// `videotestsrc is-live=true num-buffers=45` ends every 1.5 s: with `--reconnect` each end is a loss,
    /// placeholders flow meanwhile, and each attempt (after 1 s) brings it back; the run ends only on request.
    @Test func aWatchedLiveSourceThatEndsIsLostAndRestored() throws {
        let (s, code) = try Self.run(
            "videotestsrc is-live=true num-buffers=45 name=cam ! video/x-raw,width=160,height=120,framerate=30/1 ! compose ! fakesink sync=true",
            reconnect: .on, seconds: 7.5)
        #expect(code == 0, "\(s.errors)")
        let m = s.messages(SourceMessage.self)
        let lost = m.filter { $0.state == .lost }, back = m.filter { $0.state == .restored }
        #expect(lost.count >= 2, "\(m)")
        #expect(back.count >= 2, "\(m)")
        #expect(lost.allSatisfy { $0.reason == "end of stream" && $0.element == "cam" && $0.retryIn == 1 })
        // Each loss is followed by an attempt after 1 s, and that attempt brings the source back.
        #expect(m.filter { $0.state == .retrying }.allSatisfy { $0.attempt == 1 && $0.retryIn == 1 })
        #expect(back.allSatisfy { $0.attempt == 1 && $0.outage > 0.9 && $0.outage < 3 })
        #expect(zip(back, back.dropFirst()).allSatisfy { $1.restores == $0.restores + 1 && $1.placeholders > $0.placeholders })
        let r = try #require(s.report)
        // Placeholders stood in for the second each loss lasted: the output kept the frame rate.
        let placeholders = try #require(back.last?.placeholders)
        #expect(placeholders >= 25 * back.count, "\(m)")
        #expect(r.framesOut >= r.framesIn + placeholders - 2, "\(r.text)")
        #expect(r.notes.contains { $0.contains("placeholder frames while the source was away") }, "\(r.notes)")
        // `/metrics` (the service's samples) counts the same losses, restores and attempts; supervision ended with
        // the run, so the source's state is `ended`.
        let samples = s.services.flatMap(\.metricSamples).filter { $0.name.hasPrefix("viewfinder_source_") }
        func value(_ name: String, state: String? = nil) -> Double? {
            samples.first { s in s.name == name && (state.map { st in s.labels.contains { $0 == ("state", st) } } ?? true) }?.value
        }
        #expect(!samples.isEmpty && samples.allSatisfy { $0.labels.first.map { $0 == ("source", "cam") } == true })
        #expect(value("viewfinder_source_losses_total") == Double(lost.count))
        #expect(value("viewfinder_source_reconnects_total") == Double(back.count))
        #expect(value("viewfinder_source_reconnect_attempts_total") == Double(m.filter { $0.state == .retrying }.count))
        #expect(value("viewfinder_source_up") == 0 && value("viewfinder_source_state", state: "ended") == 1)
        #expect(samples.filter { $0.name == "viewfinder_source_state" }.map(\.value).reduce(0, +) == 1)
    }

    /// Not watched (no `--reconnect` for a local source): its end is the end of the run, with no source message.
    @Test func anUnwatchedSourceThatEndsEndsTheRun() throws {
        let (s, code) = try Self.run(
            "videotestsrc is-live=true num-buffers=15 ! video/x-raw,width=160,height=120,framerate=30/1 ! compose ! fakesink",
            reconnect: .auto, seconds: 10)
        #expect(code == 0)
        #expect(s.messages(SourceMessage.self).isEmpty)
        #expect(s.report?.framesOut == 15)
    }
}
