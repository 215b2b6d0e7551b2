import Testing

@testable import GStreamerKit

@Suite struct CustomMetaTests {
    @Test func metaTravelsWithCopiesAndIsReplaced() throws {
        let frame = try TestFrames.black("I420", width: 32, height: 16)
        frame.buffer.setCustomMeta(MessageStructure("ViewfinderTestMeta", [("score", .double(0.75)), ("rule", .string("thirds"))]))
        #expect(frame.buffer.customMetaDouble("ViewfinderTestMeta", field: "score") == 0.75)
        #expect(frame.buffer.customMetaString("ViewfinderTestMeta", field: "rule") == "thirds")
        // A copy (what a tee branch that writes gets) keeps it.
        let other = frame.buffer.shared()
        other.makeWritable()
        #expect(other.customMetaDouble("ViewfinderTestMeta", field: "score") == 0.75)
        // Setting again replaces rather than stacking a second meta.
        frame.buffer.setCustomMeta(MessageStructure("ViewfinderTestMeta", [("score", .double(0.5))]))
        #expect(frame.buffer.customMetaDouble("ViewfinderTestMeta", field: "score") == 0.5)
        #expect(frame.buffer.customMetaText("ViewfinderTestMeta") == "ViewfinderTestMeta, score=(double)0.5;")
        #expect(frame.buffer.customMetaText("NoSuchMeta") == nil)
    }
}
