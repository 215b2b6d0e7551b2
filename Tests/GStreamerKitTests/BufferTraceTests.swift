import GStreamerKit
import GStreamerTrace
import Testing

/// `traceBuffers` (GStreamerTrace, over the binding's `watchBuffers` hook): counts buffers and proves
/// which ones carry the very memory an upstream trace saw.
@Suite struct BufferTraceTests {
    private func run(_ description: String, up: String, down: String) throws -> (up: BufferTrace, down: BufferTrace) {
        let pipeline = try Pipeline.parse(description)
        let a = try #require(pipeline.element(named: up)).traceBuffers()
        let b = try #require(pipeline.element(named: down)).traceBuffers(reference: a)
        #expect(pipeline.setState(.playing) != .failure)
        var ended = false
        for _ in 0..<1200 where !ended {
            guard let m = pipeline.bus.pop(timeout: 5_000_000) else { continue }
            switch m.kind {
            case .eos, .error: ended = true;
            default: break
            }
        }
        pipeline.setState(.null)
        #expect(ended)
        return (a, b)
    }

    @Test func identityPassesTheSameMemory() throws {
        let t = try run(
            "videotestsrc num-buffers=6 ! video/x-raw,format=I420,width=64,height=48 ! identity name=a ! fakesink name=s", up: "a",
            down: "s")
        #expect(t.up.seen == 6 && t.down.seen == 6)
        #expect(t.down.matched == 6)
    }

    @Test func aConversionMakesNewMemory() throws {
        let t = try run(
            "videotestsrc num-buffers=6 ! video/x-raw,format=I420,width=64,height=48 ! identity name=a ! videoconvert ! video/x-raw,format=RGBA ! fakesink name=s",
            up: "a", down: "s")
        #expect(t.up.seen == 6 && t.down.seen == 6)
        #expect(t.down.matched == 0)
    }

    @Test func aMissingPadIsNotWatched() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! fakesink name=s")
        #expect(try #require(pipeline.element(named: "s")).watchBuffers(pad: "nosuchpad") { _ in } == false)
    }
}
