import GStreamerKit
import Stages
import Testing

@testable import Host

/// `viewfinder/clip`: the fields of each event, in the documented order, and the way back from GStreamer's text.
struct ClipMessageTests {
    /// Decoded from the structure itself and from GStreamer's text of it.
    private static func roundTrips(_ m: ClipMessage) throws {
        #expect(try ClipMessage(structure: m.structure) == m)
        let parsed = try #require(MessageStructure(parsing: m.structure.text))
        #expect(parsed == m.structure)
        #expect(try ClipMessage(structure: parsed) == m)
        #expect(BusMessage(source: "clips0", structure: parsed).decode(ClipMessage.self) == m)
    }

    @Test func openedCarriesTheTriggerAndTheTimes() throws {
        let m = ClipMessage(
            .opened, element: "clips0", id: 3, file: "CLIP_00003.mp4", trigger: "photo", startPts: 1_500_000_000, endPts: 4_000_000_000,
            notes: ["pre-roll short: 0.5 s of 1.0 s were kept"])
        #expect(
            m.structure
                == MessageStructure(
                    "viewfinder/clip",
                    [
                        ("event", .string("opened")), ("element", .string("clips0")), ("id", .int(3)), ("file", .string("CLIP_00003.mp4")),
                        ("trigger", .string("photo")), ("start-pts", .uint64(1_500_000_000)), ("end-pts", .uint64(4_000_000_000)),
                        ("notes", .string("pre-roll short: 0.5 s of 1.0 s were kept")),
                    ]))
        #expect(
            m.structure.text
                == "viewfinder/clip, event=(string)opened, element=(string)clips0, id=(int)3, file=(string)CLIP_00003.mp4, trigger=(string)photo, start-pts=(guint64)1500000000, end-pts=(guint64)4000000000, notes=(string)\"pre-roll\\ short:\\ 0.5\\ s\\ of\\ 1.0\\ s\\ were\\ kept\";"
        )
        try Self.roundTrips(m)
    }

    @Test func savedCarriesEveryField() throws {
        // Ten hours into the stream: beyond Int32, and the way back keeps every digit.
        let m = ClipMessage(
            .saved, element: "vf_clips0", id: 12, file: "CLIP_00012.mp4", trigger: "composition", startPts: 36_000_000_000_000,
            endPts: 36_002_966_666_666, duration: 2.967, frames: 90, bytes: 5_000_000_000, url: "/cam1/clips/vf_clips0/CLIP_00012.mp4",
            notes: ["the stream ended before the clip's end", "no thumbnail: cannot decode"])
        #expect(
            m.structure.fields.map(\.0) == [
                "event", "element", "id", "file", "trigger", "start-pts", "end-pts", "duration", "frames", "bytes", "url", "notes",
            ])
        #expect(m.structure["duration"] == .double(2.967))
        #expect(m.structure["frames"] == .int(90))
        #expect(m.structure["bytes"] == .uint64(5_000_000_000))
        #expect(m.structure["notes"] == .string("the stream ended before the clip's end; no thumbnail: cannot decode"))
        try Self.roundTrips(m)
    }

    @Test func errorCarriesTheReason() throws {
        let m = ClipMessage(
            .error, element: "clips0", id: 4, file: "CLIP_00004.mp4", trigger: "api", reason: "filesink0: No space left on device")
        #expect(
            m.structure
                == MessageStructure(
                    "viewfinder/clip",
                    [
                        ("event", .string("error")), ("element", .string("clips0")), ("id", .int(4)), ("file", .string("CLIP_00004.mp4")),
                        ("trigger", .string("api")), ("reason", .string("filesink0: No space left on device")),
                    ]))
        try Self.roundTrips(m)
        // No trigger, no notes: only the four fields every event has, and the reason.
        let bare = ClipMessage(.error, element: "clips0", id: 5, file: "CLIP_00005.mp4", reason: "the stream has no caps")
        #expect(bare.structure.fields.map(\.0) == ["event", "element", "id", "file", "reason"])
        try Self.roundTrips(bare)
    }

    @Test func decodingNamesWhatIsWrong() {
        #expect(throws: MessageDecodingError("viewfinder/clip: unknown event 'deleted'")) {
            try ClipMessage(
                structure: MessageStructure(
                    "viewfinder/clip", [("event", .string("deleted")), ("element", .string("c")), ("id", .int(1)), ("file", .string("f"))]))
        }
        #expect(throws: MessageDecodingError("viewfinder/clip: no string field 'element'")) {
            try ClipMessage(
                structure: MessageStructure("viewfinder/clip", [("event", .string("opened")), ("id", .int(1)), ("file", .string("f"))]))
        }
        #expect(throws: MessageDecodingError("expected a 'viewfinder/clip' structure, got 'viewfinder/capture'")) {
            try ClipMessage(structure: MessageStructure("viewfinder/capture", [("event", .string("opened"))]))
        }
    }
}
