import Foundation
import GStreamerKit
import Testing
import TestTags

/// `DetachedOutput`: a sink and its muxer moved into a pipeline of their own, fed through appsink -> appsrc relays.
/// Checked by decoding what the moved sink wrote (flvdemux, avdec_h264): every frame when the relay is open from the
/// start, and from a requested keyframe on when it opens mid-stream.
@Suite struct DetachedOutputTests {
    /// Pops messages of `pipeline` until end-of-stream or an error; a bounded number of polls.
    private func runToEnd(_ pipeline: Pipeline, polls: Int = 300) -> (eos: Bool, errors: [String]) {
        let bus = pipeline.bus
        for _ in 0..<polls {
            guard let m = bus.pop(timeout: 100_000_000) else { continue }
            switch m.kind {
            case .eos: return (true, [])
            case .error(let message, _): return (false, ["\(m.source): \(message)"])
            default: continue
            }
        }
        return (false, ["no end-of-stream"])
    }

    /// Decoded video frames of the FLV file at `path`.
    private func decodedFrames(_ path: String) throws -> Int {
        let p = try Pipeline.parse(
            "filesrc location=\(Pipeline.quoted(path)) ! flvdemux name=d d.video ! queue ! h264parse ! avdec_h264 "
                + "! appsink name=v sync=false drop=true max-buffers=1 wait-on-eos=false")
        let counter = try #require(p.appSink(named: "v")).countArrivals()
        p.setState(.playing)
        let end = runToEnd(p)
        p.setState(.null)
        #expect(end.eos, "\(end.errors)")
        return counter.value
    }

    private func tempFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("detached-\(UUID().uuidString).flv").path
    }

    /// Both pipelines on one clock from one base time, as the session runs them.
    private func share(_ a: Pipeline, _ b: Pipeline) {
        let clock = Clock.system()
        let base = clock.now
        for p in [a, b] {
            p.use(clock)
            p.fixBaseTime(base)
        }
    }

    @Test func theMuxerAndTheSinkMoveAndEveryFrameArrives() throws {
        let file = tempFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let main = try Pipeline.parse(
            "videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120,framerate=30/1 ! x264enc key-int-max=10 "
                + "! h264parse ! queue ! flvmux name=mux ! filesink name=out location=\(Pipeline.quoted(file))")
        let sink = try #require(main.element(named: "out"))
        let output = try #require(DetachedOutput.detach(sink, from: main, name: "out-pipeline"))
        #expect(main.element(named: "mux") == nil && main.element(named: "out") == nil)
        #expect(output.pipeline.element(named: "mux") != nil && output.pipeline.element(named: "out") != nil)
        #expect(output.taps.count == 1 && output.sources.count == 1)
        #expect(output.taps.first?.upstreamElement?.factoryName == "queue")
        share(main, output.pipeline)
        output.pipeline.setState(.playing)
        output.open()
        main.setState(.playing)
        let mainEnd = runToEnd(main)
        let outEnd = runToEnd(output.pipeline)
        main.setState(.null)
        output.pipeline.setState(.null)
        #expect(mainEnd.eos, "\(mainEnd.errors)")
        #expect(outEnd.eos, "\(outEnd.errors)")
        #expect(try decodedFrames(file) == 30)
    }

    @Test func withoutAMuxerNothingMoves() throws {
        let main = try Pipeline.parse("videotestsrc num-buffers=1 ! queue name=q ! fakesink name=s")
        let sink = try #require(main.element(named: "s"))
        #expect(DetachedOutput.detach(sink, from: main, name: "x") == nil)
        #expect(main.element(named: "s")?.upstreamElement?.name == "q")
    }

    /// Closed at first: nothing is written. Opened mid-stream (the encoder makes no keyframe of its own after the
    /// first): the relay asks for one upstream and passes video from it on, so every frame written decodes.
    @Test(.tags(.live), .tier) func aRelayOpenedMidStreamStartsAtARequestedKeyframe() throws {
        let file = tempFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let main = try Pipeline.parse(
            "videotestsrc is-live=true num-buffers=90 ! video/x-raw,width=160,height=120,framerate=30/1 "
                + "! x264enc key-int-max=100000 tune=zerolatency ! h264parse ! queue ! flvmux name=mux ! filesink name=out location=\(Pipeline.quoted(file))")
        let sink = try #require(main.element(named: "out"))
        let output = try #require(DetachedOutput.detach(sink, from: main, name: "o"))
        let arrived = try #require(output.taps.first).countArrivals()
        share(main, output.pipeline)
        output.pipeline.setState(.playing)
        main.setState(.playing)
        var polls = 0
        while arrived.value < 30 && polls < 200 {
            usleep(20_000)
            polls += 1
        }
        #expect(arrived.value >= 30)
        #expect(!output.isOpen)
        output.open()
        let mainEnd = runToEnd(main)
        let outEnd = runToEnd(output.pipeline)
        main.setState(.null)
        output.pipeline.setState(.null)
        #expect(mainEnd.eos && outEnd.eos, "\(mainEnd.errors) \(outEnd.errors)")
        #expect(output.isOpen)
        let frames = try decodedFrames(file)
        // 90 frames, the relay opened after 30 or more: the rest, minus the few before the requested keyframe.
        #expect(frames >= 40 && frames <= 60, "\(frames) frames decoded")
    }
}
