import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

@Suite struct CaptureMessageTests {
    /// One message of every event kind, with the optional fields both present and absent.
    static let all: [CaptureMessage.Event] = [
        .state(.readyToCapture, reason: "well composed", readiness: .ready, shots: 2, pending: 1, pts: 1_000_000_000),
        .state(.startingCamera, reason: "", readiness: .ready, shots: 0, pending: 0, pts: UInt64.max),
        .capture(
            number: 7, trigger: .manual, pts: 33_333_333, frame: 1, score: 0.75, width: 640, height: 480,
            state: .capturingPhoto, readiness: .capturing),
        .capture(
            number: 8, trigger: .timer, pts: UInt64.max, frame: 90, score: -1, width: 480, height: 640,
            state: .savingPhoto, readiness: .busy),
        .saved(number: 7, file: "photos/IMG_00007.jpg"),
        .saved(number: 9, file: nil),
        .error(number: 7, file: "photos/IMG_00007.jpg", reason: "cannot read back 'x'"),
        .error(number: nil, file: nil, reason: "the snapshot output is not running"),
        .refused(trigger: .at, reason: "already capturing", readiness: nil),
        .refused(trigger: nil, reason: "busy: 4 photos queued on the snapshot output", readiness: .busy),
        .timer(trigger: .interval, seconds: 3, firesAt: 4_000_000_000),
        .warning("no ViewfinderComposition meta on the frames"),
    ]

    @Test(arguments: all) func valueToStructureToValue(_ event: CaptureMessage.Event) throws {
        let m = CaptureMessage(event)
        #expect(m.structure.name == "viewfinder/capture")
        #expect(try CaptureMessage(structure: m.structure) == m)
    }

    @Test(arguments: all) func throughGStreamerText(_ event: CaptureMessage.Event) throws {
        let m = CaptureMessage(event)
        let parsed = try #require(MessageStructure(parsing: m.structure.text))
        #expect(parsed == m.structure)
        #expect(try CaptureMessage(structure: parsed) == m)
    }

    @Test func fieldsKeepTheirNamesTypesAndOrder() throws {
        let capture = CaptureMessage(
            .capture(
                number: 3, trigger: .auto, pts: 5, frame: 6, score: 0.5, width: 64, height: 48,
                state: .savingPhoto, readiness: .saving)
        ).structure
        #expect(
            capture.fields.map(\.0) == ["event", "number", "trigger", "pts", "frame", "score", "width", "height", "state", "readiness"])
        #expect(capture["number"] == .int(3))
        #expect(capture["pts"] == .uint64(5))
        #expect(capture["score"] == .double(0.5))
        let state = CaptureMessage(.state(.error, reason: "crop failed", readiness: .ready, shots: 1, pending: 0, pts: 9)).structure
        #expect(state.fields.map(\.0) == ["event", "state", "reason", "readiness", "shots", "pending", "pts"])
        #expect(state["state"] == .string("error"))
        let refused = CaptureMessage(.refused(trigger: .manual, reason: "already capturing", readiness: nil)).structure
        #expect(refused.fields.map(\.0) == ["event", "trigger", "reason"])
        let failed = CaptureMessage(.error(number: 4, file: nil, reason: "disk full")).structure
        #expect(failed.fields.map(\.0) == ["event", "number", "reason"])
        let timer = CaptureMessage(.timer(trigger: .event, seconds: 5, firesAt: 7)).structure
        #expect(timer.fields.map(\.0) == ["event", "trigger", "seconds", "fires-at"])
    }

    @Test func parsesTheTextUsersSee() throws {
        let text = "viewfinder/capture, event=(string)saved, number=(int)12, file=(string)out/IMG_00012.jpg;"
        let s = try #require(MessageStructure(parsing: text))
        #expect(try CaptureMessage(structure: s) == CaptureMessage(.saved(number: 12, file: "out/IMG_00012.jpg")))
    }

    @Test func refusesWhatIsNotACaptureMessage() throws {
        #expect(throws: MessageDecodingError("viewfinder/capture: unknown event 'launch'")) {
            try CaptureMessage(structure: MessageStructure("viewfinder/capture", [("event", .string("launch"))]))
        }
        #expect(throws: MessageDecodingError("viewfinder/capture: no integer field 'number'")) {
            try CaptureMessage(structure: MessageStructure("viewfinder/capture", [("event", .string("saved"))]))
        }
        #expect(throws: MessageDecodingError("expected a 'viewfinder/capture' structure, got 'viewfinder/snapshot'")) {
            try CaptureMessage(structure: MessageStructure("viewfinder/snapshot", [("event", .string("saved"))]))
        }
        #expect(throws: MessageDecodingError("viewfinder/capture: unknown trigger 'shake'")) {
            try CaptureMessage(
                structure: MessageStructure(
                    "viewfinder/capture",
                    [
                        ("event", .string("timer")), ("trigger", .string("shake")),
                        ("seconds", .int(3)), ("fires-at", .uint64(1)),
                    ]))
        }
    }
}
