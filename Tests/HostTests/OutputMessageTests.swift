import Foundation
import Testing
import GStreamerKit
import Stages

/// The host's own output messages (a photo branch stopped, started again).
@Suite(.serialized) struct OutputMessageTests {
    @Test func outputErrorRoundTripsThroughGStreamersText() throws {
        let m = OutputErrorMessage(stage: "cap", output: "snapshot", element: "cap_snapshot_files",
                                   text: "Could not open file \"/x/IMG_00001.jpg\" for writing.")
        #expect(m.structure.name == "viewfinder/output-error")
        #expect(try OutputErrorMessage(structure: m.structure) == m)
        let parsed = try #require(MessageStructure(parsing: m.structure.text))
        #expect(try OutputErrorMessage(structure: parsed) == m)
        #expect(BusMessage(source: "vf_cap_sink", structure: parsed).decode(OutputErrorMessage.self) == m)
        #expect(BusMessage(source: "vf_cap_sink", structure: parsed).decode(OutputRestartedMessage.self) == nil)
    }

    @Test func outputRestartedRoundTripsThroughGStreamersText() throws {
        let m = OutputRestartedMessage(stage: "cap", output: "snapshot")
        #expect(m.structure == MessageStructure("viewfinder/output-restarted", [("stage", .string("cap")), ("output", .string("snapshot"))]))
        let parsed = try #require(MessageStructure(parsing: m.structure.text))
        #expect(try OutputRestartedMessage(structure: parsed) == m)
        #expect(BusMessage(source: "vf_cap_sink", structure: parsed).description
                == "vf_cap_sink: viewfinder/output-restarted, stage=(string)cap, output=(string)snapshot;")
    }

    @Test func decodingNamesTheMissingField() {
        #expect(throws: MessageDecodingError("viewfinder/output-error: no string field 'element'")) {
            try OutputErrorMessage(structure: MessageStructure("viewfinder/output-error", [("stage", .string("c")), ("output", .string("snapshot"))]))
        }
        #expect(throws: MessageDecodingError("expected a 'viewfinder/output-restarted' structure, got 'viewfinder/output-error'")) {
            try OutputRestartedMessage(structure: MessageStructure("viewfinder/output-error", [("stage", .string("c")), ("output", .string("snapshot"))]))
        }
    }
}
