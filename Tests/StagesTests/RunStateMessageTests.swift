import GStreamerKit
import Stages
import Testing

/// `viewfinder/state`: value -> structure -> value, and from GStreamer's text.
struct RunStateMessageTests {
    @Test func roundTrips() throws {
        for m in [RunStateMessage(state: .running), RunStateMessage(state: .ended, code: 1)] {
            #expect(try RunStateMessage(structure: m.structure) == m)
        }
        let parsed = try #require(MessageStructure(parsing: "viewfinder/state, state=(string)ended, code=(int)0"))
        #expect(try RunStateMessage(structure: parsed) == RunStateMessage(state: .ended, code: 0))
        #expect(RunStateMessage(state: .running).structure.text == "viewfinder/state, state=(string)running;")
    }

    @Test func aMissingStateIsNamed() throws {
        let s = try #require(MessageStructure(parsing: "viewfinder/state, code=(int)0"))
        #expect(throws: MessageDecodingError.self) { try RunStateMessage(structure: s) }
    }
}
