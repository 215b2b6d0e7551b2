import GStreamerKit
import Stages
import Testing

/// `viewfinder/source`: value -> structure -> value, and from GStreamer's text.
struct SourceMessageTests {
    @Test func roundTrips() throws {
        let lost = SourceMessage(state: .lost, element: "srtsrc0", reason: "no frame for 2.0 s", retryIn: 1, losses: 1, restores: 0, placeholders: 0)
        let back = SourceMessage(state: .restored, element: "rtspsrc0", attempt: 3, losses: 2, restores: 2, outage: 6.5, placeholders: 212)
        let switched = SourceMessage(state: .switched, element: "videotestsrc", reason: "videotestsrc pattern=smpte", losses: 0, restores: 0, placeholders: 0)
        for m in [lost, back, switched] { #expect(try SourceMessage(structure: m.structure) == m) }
        #expect(switched.structure.fields.first?.1 == .string("switched"))
        let parsed = try #require(
            MessageStructure(
                parsing:
                    "viewfinder/source, state=(string)retrying, element=(string)src, reason=(string)\"\", attempt=(int)4, retry-in=(double)8, losses=(int)1, restores=(int)0, outage=(double)0, placeholders=(int)300"
            ))
        let m = try SourceMessage(structure: parsed)
        #expect(m.state == .retrying && m.attempt == 4 && m.retryIn == 8 && m.placeholders == 300 && m.element == "src")
    }

    @Test func aMissingFieldIsNamed() throws {
        let s = try #require(MessageStructure(parsing: "viewfinder/source, state=(string)lost, element=(string)src"))
        #expect {
            try SourceMessage(structure: s)
        } throws: { error in
            "\(error)".contains("attempt") || "\(error)".contains("retry-in")
        }
    }
}
