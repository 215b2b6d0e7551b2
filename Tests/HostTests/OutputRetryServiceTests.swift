import GStreamerKit
import Testing

@testable import Host

/// `OutputRetryFactory`: an RTMP sink and the muxer feeding it leave the session's segments for a pipeline of their
/// own (one `OutputRetryService` each), the muxer's inputs ending in taps; a sink with no muxer in its chain stays
/// where it is. Sessions are built only: nothing runs, nothing connects. (Losing and finding the server again:
/// `StreamOutputsTests`, against a real nginx-rtmp.)
@Suite struct OutputRetryServiceTests {
    @Test func anRTMPSinkAndItsMuxerRunInAPipelineOfTheirOwn() throws {
        let session = try Session(
            description: "videotestsrc is-live=true ! x264enc ! h264parse ! queue name=vq ! flvmux name=mux ! rtmp2sink name=out "
                + "location=rtmp://127.0.0.1:9/live/x audiotestsrc is-live=true ! avenc_aac ! aacparse ! queue name=aq ! mux.")
        defer { session.close() }
        let services = session.services(OutputRetryService.self)
        #expect(services.count == 1)
        let output = try #require(services.first).output
        let names = Set(session.pipelines.flatMap { $0.allElements.map(\.name) })
        #expect(!names.contains("out") && !names.contains("mux"))
        #expect(Set(output.pipeline.allElements.map(\.factoryName)) == ["appsrc", "flvmux", "rtmp2sink"])
        #expect(Set(output.taps.compactMap { $0.upstreamElement?.name }) == ["vq", "aq"])
        #expect(output.sources.count == 2)
        #expect(!output.isOpen)
    }

    @Test func twoRTMPOutputsAreTwoServices() throws {
        let session = try Session(
            description: "videotestsrc ! x264enc ! h264parse ! tee name=t t. ! queue ! flvmux ! rtmp2sink location=rtmp://127.0.0.1:9/a/b "
                + "t. ! queue ! flvmux ! rtmp2sink location=rtmp://127.0.0.1:9/c/d")
        defer { session.close() }
        #expect(Set(session.services(OutputRetryService.self).map { $0.output.sink.name }) == ["rtmp2sink0", "rtmp2sink1"])
    }

    @Test func otherSinksStayInTheirSegment() throws {
        let session = try Session(description: "videotestsrc ! x264enc ! flvmux ! filesink location=/tmp/x.flv")
        defer { session.close() }
        #expect(session.services(OutputRetryService.self).isEmpty)
        #expect(session.pipelines.flatMap { $0.allElements.map(\.factoryName) }.contains("flvmux"))
    }
}
