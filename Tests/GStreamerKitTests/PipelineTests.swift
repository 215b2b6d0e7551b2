import GStreamerKit
import GStreamerTrace
import Testing

@Suite struct PipelineTests {
    /// Pops messages until end-of-stream or an error; a bounded number of polls, not a timed assertion.
    private func runToEnd(_ pipeline: Pipeline, polls: Int = 1200) -> (eos: Bool, errors: [String]) {
        let bus = pipeline.bus
        var errors: [String] = []
        for _ in 0..<polls {
            guard let m = bus.pop(timeout: 100_000_000) else { continue }
            switch m.kind {
            case .eos: return (true, errors)
            case .error(let message, _): errors.append("\(m.source): \(message)"); return (false, errors)
            default: continue
            }
        }
        return (false, errors)
    }

    @Test func badElementIsAParseErrorNamingIt() {
        #expect {
            _ = try Pipeline.parse("videotestsrc ! nosuchelementxyz ! fakesink")
        } throws: { error in
            guard let e = error as? GStreamerError else { return false }
            return e.domain == .parse && e.message.contains("nosuchelementxyz")
        }
    }

    @Test func badPropertyIsAParseErrorNamingIt() {
        #expect {
            _ = try Pipeline.parse("videotestsrc nosuchproperty=3 ! fakesink")
        } throws: { error in
            guard let e = error as? GStreamerError else { return false }
            return e.domain == .parse && e.message.contains("nosuchproperty")
        }
    }

    @Test func finiteSourceRunsToEndOfStream() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! fakesink name=s")
        let sink = try #require(pipeline.element(named: "s"))
        let trace = sink.traceBuffers(pad: "sink")
        #expect(pipeline.setState(.playing) != .failure)
        let result = runToEnd(pipeline)
        pipeline.setState(.null)
        #expect(result.errors == [])
        #expect(result.eos)
        #expect(trace.seen == 5)
    }

    /// gst_parse_launch links a demuxer's dynamic pad once: after NULL -> PLAYING the new pad stays unlinked
    /// (the stream goes nowhere and never ends) unless `keepDynamicLinks()` relinks it to the same peer.
    @Test(arguments: [false, true]) func aRestartedDemuxerIsRelinkedOnlyWhenKept(keep: Bool) throws {
        let pipeline = try Pipeline.parse(
            "videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48 ! x264enc ! mpegtsmux ! tsdemux ! h264parse ! fakesink name=s")
        if keep { pipeline.keepDynamicLinks() }
        let sink = try #require(pipeline.element(named: "s"))
        let trace = sink.traceBuffers(pad: "sink")
        #expect(pipeline.setState(.playing) != .failure)
        let first = runToEnd(pipeline)
        pipeline.setState(.null)
        #expect(first.eos && first.errors == [])
        #expect(trace.seen == 10)
        #expect(pipeline.setState(.playing) != .failure)
        // Unlinked, tsdemux drops everything, end-of-stream included: no error, no end (3 s is plenty for 10 frames).
        let second = runToEnd(pipeline, polls: keep ? 1200 : 30)
        pipeline.setState(.null)
        if keep {
            #expect(second.eos && second.errors == [])
            #expect(trace.seen == 20)
        } else {
            #expect(!second.eos && trace.seen == 10, "\(second.errors)")
        }
    }

    @Test func elementNamedFindsChildrenByName() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=5 ! fakesink name=s")
        let sink = try #require(pipeline.element(named: "s"))
        #expect(sink.name == "s")
        #expect(sink.factoryName == "fakesink")
        #expect(sink.isSink)
        #expect(!sink.isSource)
        #expect(pipeline.element(named: "missing") == nil)
        let factories = pipeline.allElements.map(\.factoryName).sorted()
        #expect(factories == ["fakesink", "videotestsrc"])
        #expect(pipeline.sourceElements.map(\.factoryName) == ["videotestsrc"])
    }

    @Test func singleElementIsWrappedInAPipeline() throws {
        let pipeline = try Pipeline.parse("fakesink name=only")
        #expect(pipeline.element(named: "only")?.factoryName == "fakesink")
        #expect(pipeline.allElements.count == 1)
    }

    @Test func propertiesSetInTheDescriptionReadBack() throws {
        let pipeline = try Pipeline.parse("videotestsrc name=src num-buffers=5 ! fakesink name=s")
        let sink = try #require(pipeline.element(named: "s"))
        #expect(sink.hasProperty("sync"))
        #expect(!sink.hasProperty("no-such-thing"))
        sink.set("sync", false)
        #expect(sink.bool("sync") == false)
        sink.set("sync", true)
        #expect(sink.bool("sync") == true)
        #expect(sink.string("name") == "s")
        #expect(throws: GStreamerError(.core, "element 's' has no property 'speed'")) { try sink.set("speed", "3") }
    }

    @Test func unlinkedAlwaysPadsListsTheLooseElementsPads() throws {
        let pipeline = try Pipeline.parse("videotestsrc ! fakesink  videoconvert")
        let elements = pipeline.allElements
        let convert = try #require(elements.first { $0.factoryName == "videoconvert" })
        let pads = convert.unlinkedAlwaysPads.map { "\($0.pad):\($0.isSource ? "src" : "sink")" }.sorted()
        #expect(pads == ["sink:sink", "src:src"])
        for linked in elements where linked.factoryName != "videoconvert" {
            #expect(linked.unlinkedAlwaysPads.isEmpty, "\(linked.factoryName)")
        }
    }
}
