import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

@Suite struct SnapshotMessageTests {
    static let shot = SnapshotMessage(stage: "snap0", shot: 2, frame: 30, pts: 1_000_000_000, reason: .interval, pushed: true)

    @Test func valueToStructureToValue() throws {
        let s = Self.shot.structure
        #expect(s.name == "viewfinder/snapshot")
        #expect(s.fields.map(\.0) == ["stage", "shot", "frame", "pts", "reason", "pushed"])
        #expect(s["shot"] == .int(2))
        #expect(s["frame"] == .uint64(30))
        #expect(s["reason"] == .string("interval"))
        #expect(try SnapshotMessage(structure: s) == Self.shot)
    }

    @Test func throughGStreamerText() throws {
        let unpushed = SnapshotMessage(stage: "s", shot: 1, frame: 0, pts: UInt64.max, reason: .manual, pushed: false)
        for m in [Self.shot, unpushed] {
            let parsed = try #require(MessageStructure(parsing: m.structure.text))
            #expect(try SnapshotMessage(structure: parsed) == m)
        }
        let text =
            "viewfinder/snapshot, stage=(string)snap0, shot=(int)1, frame=(guint64)5, pts=(guint64)166666665, reason=(string)at, pushed=(boolean)true;"
        let s = try #require(MessageStructure(parsing: text))
        #expect(
            try SnapshotMessage(structure: s)
                == SnapshotMessage(stage: "snap0", shot: 1, frame: 5, pts: 166_666_665, reason: .at, pushed: true))
    }

    @Test func refusesMissingFieldsAndOtherKinds() {
        #expect(throws: MessageDecodingError("viewfinder/snapshot: no string field 'reason'")) {
            try SnapshotMessage(structure: MessageStructure("viewfinder/snapshot", [("stage", .string("s"))]))
        }
        #expect(throws: MessageDecodingError("viewfinder/snapshot: unknown reason 'auto-ish'")) {
            try SnapshotMessage(structure: MessageStructure("viewfinder/snapshot", [("reason", .string("auto-ish"))]))
        }
        #expect(throws: MessageDecodingError("expected a 'viewfinder/snapshot' structure, got 'viewfinder/capture'")) {
            try SnapshotMessage(structure: MessageStructure("viewfinder/capture", []))
        }
    }
}
