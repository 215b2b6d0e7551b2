import GStreamerKit
import Stages
import Testing

/// `viewfinder/recordings`: value -> structure -> value, from GStreamer's text, and the refusals.
struct RecordingsMessageTests {
    @Test func roundTrips() throws {
        let deleted = RecordingsMessage(event: .deleted, element: "rec", file: "REC_00003.mp4", bytes: 1_048_576, reason: .size)
        let failed = RecordingsMessage(
            event: .deleteFailed, element: "cam", file: "REC_00001.ts", bytes: 5, reason: .age, text: "Permission denied")
        let asked = RecordingsMessage(event: .deleted, element: "rec", file: "REC_00004.mkv", bytes: 0, reason: .request)
        for m in [deleted, failed, asked] { #expect(try RecordingsMessage(structure: m.structure) == m) }
        #expect(failed.structure.fields.first?.1 == .string("delete-failed"))
        let parsed = try #require(
            MessageStructure(
                parsing:
                    "viewfinder/recordings, event=(string)deleted, element=(string)rec, file=(string)REC_00000.mp4, bytes=(guint64)182875, reason=(string)age, text=(string)\"\""
            ))
        #expect(
            try RecordingsMessage(structure: parsed)
                == RecordingsMessage(event: .deleted, element: "rec", file: "REC_00000.mp4", bytes: 182_875, reason: .age))
    }

    @Test func anUnknownEventOrReasonIsNamed() throws {
        let e = try #require(
            MessageStructure(
                parsing: "viewfinder/recordings, event=(string)moved, element=(string)r, file=(string)f, bytes=(int)1, reason=(string)age"))
        #expect(throws: MessageDecodingError("viewfinder/recordings: event 'moved': expected deleted or delete-failed")) {
            try RecordingsMessage(structure: e)
        }
        let r = try #require(
            MessageStructure(
                parsing:
                    "viewfinder/recordings, event=(string)deleted, element=(string)r, file=(string)f, bytes=(int)1, reason=(string)whim"))
        #expect(throws: MessageDecodingError("viewfinder/recordings: reason 'whim': expected age, size, request")) {
            try RecordingsMessage(structure: r)
        }
        let missing = try #require(MessageStructure(parsing: "viewfinder/recordings, event=(string)deleted, reason=(string)age"))
        #expect(throws: MessageDecodingError("viewfinder/recordings: no string field 'element'")) {
            try RecordingsMessage(structure: missing)
        }
    }
}
