import Foundation
import Testing
@testable import GStreamerKit

/// AppSink's pull results: a sink that is not started is not at end-of-stream.
@Suite(.serialized) struct AppSinkTests {
    @Test func stoppedSinkIsNotEndOfStream() throws {
        let p = try Pipeline.parse("videotestsrc num-buffers=3 ! appsink name=s")
        let sink = try #require(p.appSink(named: "s"))
        // In NULL, appsink itself claims EOS; the host must not take that for the end of the stream.
        if case .stopped = sink.pull(timeout: 1_000_000) {} else { Issue.record("a sink in NULL must pull as .stopped") }
        sink.configure(maxBuffers: 2, drop: false)
        p.setState(.playing)
        defer { p.setState(.null) }
        var frames = 0, ended = false
        let deadline = Date().addingTimeInterval(10)
        while !ended && Date() < deadline {
            switch sink.pull(timeout: 50_000_000) {
            case .sample: frames += 1
            case .eos: ended = true
            case .timeout, .stopped: continue
            }
        }
        #expect(frames == 3)
        #expect(ended)
    }

    @Test func stoppedPullWaitsInsteadOfSpinning() throws {
        let p = try Pipeline.parse("videotestsrc ! appsink name=s")
        let sink = try #require(p.appSink(named: "s"))
        let t0 = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<5 { _ = sink.pull(timeout: 10_000_000) }
        // Five pulls of 10 ms each wait about 50 ms, not zero (a worker polling a stopped sink must not spin).
        #expect(DispatchTime.now().uptimeNanoseconds - t0 >= 40_000_000)
    }
}
