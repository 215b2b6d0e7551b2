import Foundation
import GStreamerKit
import Stages
import TestTags
import Testing

@testable import Host

/// The host's own output messages (a photo branch stopped, started again) and the bounded message list.
@Suite(.serialized, .tier) struct OutputMessageTests {
    @Test func outputErrorRoundTripsThroughGStreamersText() throws {
        let m = OutputErrorMessage(
            stage: "cap", output: "snapshot", element: "cap_snapshot_files",
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
        #expect(
            m.structure == MessageStructure("viewfinder/output-restarted", [("stage", .string("cap")), ("output", .string("snapshot"))]))
        let parsed = try #require(MessageStructure(parsing: m.structure.text))
        #expect(try OutputRestartedMessage(structure: parsed) == m)
        #expect(
            BusMessage(source: "vf_cap_sink", structure: parsed).description
                == "vf_cap_sink: viewfinder/output-restarted, stage=(string)cap, output=(string)snapshot;")
    }

    @Test func networkOutputRoundTripsThroughGStreamersText() throws {
        let lost = NetworkOutputMessage(element: "srtsink0", state: .lost, text: "Error on SRT socket: Connection timeout. Trying to reconnect")
        let back = NetworkOutputMessage(element: "srtsink0", state: .restored, outage: 5.25, attempts: 2)
        for m in [lost, back] {
            #expect(m.structure.name == "viewfinder/output")
            let parsed = try #require(MessageStructure(parsing: m.structure.text))
            #expect(try NetworkOutputMessage(structure: parsed) == m)
        }
        #expect(throws: MessageDecodingError("viewfinder/output: state 'gone' is neither lost nor restored")) {
            try NetworkOutputMessage(structure: MessageStructure("viewfinder/output", [("element", .string("s")), ("state", .string("gone"))]))
        }
    }

    @Test func decodingNamesTheMissingField() {
        #expect(throws: MessageDecodingError("viewfinder/output-error: no string field 'element'")) {
            try OutputErrorMessage(
                structure: MessageStructure("viewfinder/output-error", [("stage", .string("c")), ("output", .string("snapshot"))]))
        }
        #expect(throws: MessageDecodingError("expected a 'viewfinder/output-restarted' structure, got 'viewfinder/output-error'")) {
            try OutputRestartedMessage(
                structure: MessageStructure("viewfinder/output-error", [("stage", .string("c")), ("output", .string("snapshot"))]))
        }
    }

    @Test func theMessageListKeepsTheNewestAndDecodesByKind() {
        let log = MessageLog(limit: 3)
        for i in 0..<5 {
            log.append(BusMessage(source: "e\(i)", structure: OutputRestartedMessage(stage: "s\(i)", output: "snapshot").structure))
        }
        log.append(BusMessage(source: "other", structure: MessageStructure("GstMultiFileSink", [("filename", .string("a.jpg"))])))
        #expect(log.all.map(\.source) == ["e3", "e4", "other"])
        #expect(log.messages(OutputRestartedMessage.self).map(\.stage) == ["s3", "s4"])
        #expect(log.messages(OutputErrorMessage.self).isEmpty)
    }

    /// A snapshot branch whose directory vanishes fails: the stream goes on, the failure and (once the
    /// directory is back and the 5 s delay is over) the restart are recorded as typed messages.
    @Test(.tags(.live)) func aFailedPhotoBranchIsRecordedAndRestarted() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-branch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try Session(
            description:
                "videotestsrc is-live=true num-buffers=240 ! video/x-raw,width=160,height=120,framerate=30/1 ! snapshot name=cam manual=false at=30,225 location=\(dir)/shot-%02d.jpg ! fakesink"
        )
        s.onPlaying = { _ in
            try? FileManager.default.removeItem(atPath: dir)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 2)
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
        }
        #expect(s.run() == 0, "\(s.errors)")
        let failed = s.messages(OutputErrorMessage.self)
        #expect(failed.count == 1, "\(s.elementMessages.map(\.description))")
        #expect(failed.first?.stage == "cam" && failed.first?.output == "snapshot")
        #expect(failed.first.map { !$0.element.isEmpty && !$0.text.isEmpty } == true)
        #expect(s.messages(OutputRestartedMessage.self) == [OutputRestartedMessage(stage: "cam", output: "snapshot")])
        #expect(s.branchErrors.count == 1)
        // The stream went on: every frame reached the stage (a live source may drop one at the leaky hand-off).
        let r = try #require(s.report)
        #expect(r.framesIn == 240 && r.framesOut + r.dropped == 240 && r.framesOut >= 230, "\(r.text)")
        // The photo after the restart was written.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jpg") }.count == 1)
    }
}
