import GStreamerKit
import Stages
import Testing

/// `viewfinder/pipeline`: value -> structure -> value, and from GStreamer's text.
struct PipelineMessageTests {
    @Test func roundTrips() throws {
        for m in [
            PipelineMessage(name: "door", state: .playing),
            PipelineMessage(name: "yard", state: .restarting, error: "filesink0: could not open", retryIn: 2, restarts: 1),
        ] {
            #expect(try PipelineMessage(structure: m.structure) == m)
        }
        let parsed = try #require(
            MessageStructure(
                parsing: "viewfinder/pipeline, name=(string)door, state=(string)ended, error=(string)\"\", retry-in=(double)0, restarts=(int)3"))
        #expect(try PipelineMessage(structure: parsed) == PipelineMessage(name: "door", state: .ended, restarts: 3))
    }

    @Test func anUnknownStateIsNamed() throws {
        let s = try #require(
            MessageStructure(parsing: "viewfinder/pipeline, name=(string)door, state=(string)asleep, retry-in=(double)0, restarts=(int)0"))
        #expect(throws: MessageDecodingError("viewfinder/pipeline: state 'asleep' is none of starting, playing, stopping, restarting, ended, failed, stopped, removed")) {
            try PipelineMessage(structure: s)
        }
    }
}
