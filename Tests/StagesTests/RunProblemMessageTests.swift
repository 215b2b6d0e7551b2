import GStreamerKit
import Stages
import Testing

/// `viewfinder/problem`: value -> structure -> value, and from GStreamer's text.
struct RunProblemMessageTests {
    @Test func roundTrips() throws {
        let m = RunProblemMessage(level: "error", element: "src", text: "segment 0: src: Internal data stream error.")
        #expect(try RunProblemMessage(structure: m.structure) == m)
        let parsed = try #require(MessageStructure(parsing: "viewfinder/problem, level=(string)warning, element=(string)sink, text=(string)late"))
        #expect(try RunProblemMessage(structure: parsed) == RunProblemMessage(level: "warning", element: "sink", text: "late"))
    }

    @Test func aMissingFieldIsNamed() throws {
        let s = try #require(MessageStructure(parsing: "viewfinder/problem, level=(string)error"))
        do { _ = try RunProblemMessage(structure: s); Issue.record("decoded without element") } catch {
            #expect(error.message.contains("element"), "\(error.message)")
        }
    }
}
