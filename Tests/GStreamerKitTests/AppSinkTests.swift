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

    /// Pulls until end-of-stream (or 10 s), returning the buffers.
    private func drain(_ sink: AppSink) -> (buffers: [Buffer], ended: Bool) {
        var out: [Buffer] = [], ended = false
        let deadline = Date().addingTimeInterval(10)
        while !ended && Date() < deadline {
            switch sink.pull(timeout: 50_000_000) {
            case .sample(let b, _, _): out.append(b)
            case .eos: ended = true
            case .timeout, .stopped: continue
            }
        }
        return (out, ended)
    }

    @Test func pulledBuffersAreWritableInPlace() throws {
        // appsink keeps the sample it returns as its cached sample, which makes the buffer read-only
        // until the next pull; frames taken by the host's hand-off are ours alone.
        let p = try Pipeline.parse("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! appsink name=s")
        let sink = try #require(p.appSink(named: "s"))
        sink.configure(maxBuffers: 2, drop: false)
        p.setState(.playing)
        defer { p.setState(.null) }
        let (buffers, ended) = drain(sink)
        #expect(buffers.count == 5)
        #expect(ended)
        #expect(buffers.allSatisfy { $0.isWritable })
        let copies = BufferCopies.count
        for b in buffers { b.makeWritable() }
        #expect(BufferCopies.count == copies)
    }

    @Test func framesKeepTheirCapsSegmentAndOrder() throws {
        let p = try Pipeline.parse(
            "videotestsrc num-buffers=4 ! video/x-raw,format=RGBA,width=32,height=16,framerate=10/1 ! appsink name=s")
        let sink = try #require(p.appSink(named: "s"))
        sink.configure(maxBuffers: 1, drop: false)
        p.setState(.playing)
        defer { p.setState(.null) }
        var pts: [UInt64] = [], formats: [String] = []
        let deadline = Date().addingTimeInterval(10)
        loop: while Date() < deadline {
            switch sink.pull(timeout: 50_000_000) {
            case .sample(let b, let caps, let segment):
                pts.append(b.pts ?? .max)
                formats.append(caps?.videoInfo?.format ?? "?")
                #expect(segment.runningTime(b.pts ?? 0) == b.pts)
            case .eos: break loop
            case .timeout, .stopped: continue
            }
        }
        // A blocking hand-off of one frame loses nothing: every frame, in order, with its caps.
        #expect(pts == [0, 100_000_000, 200_000_000, 300_000_000])
        #expect(formats == ["RGBA", "RGBA", "RGBA", "RGBA"])
    }

    @Test func leakyHandOffKeepsTheNewestAndCountsEveryArrivalAndDrop() throws {
        let p = try Pipeline.parse("videotestsrc num-buffers=20 ! video/x-raw,width=32,height=16,framerate=100/1 ! appsink name=s")
        let sink = try #require(p.appSink(named: "s"))
        sink.configure(maxBuffers: 2, drop: true)
        let arrivals = sink.countArrivals()
        p.setState(.playing)
        defer { p.setState(.null) }
        // Nobody pulls until the source is done: the queue keeps only the two newest frames.
        let deadline = Date().addingTimeInterval(10)
        while arrivals.value < 20 && Date() < deadline { usleep(10_000) }
        // The hand-off counts what it dropped (18), not what waits in it.
        #expect(sink.drops?.value == 18)
        let (buffers, ended) = drain(sink)
        #expect(arrivals.value == 20)
        #expect(ended)
        #expect(buffers.map { $0.pts ?? 0 } == [180_000_000, 190_000_000])
        #expect(sink.drops?.value == 18)
    }
}
