import FrameAnalysis
import GStreamerKit
import StageTesting
import Testing

@testable import Stages

/// `CompositionMeta`: the `ViewfinderComposition` meta's one schema, written by compose.
@Suite(.serialized) struct CompositionMetaTests {
    static let full = CompositionMeta(
        analysis: .init(
            rule: "thirds", score: 0.8125, composed: true, locked: false, advice: "hold: the subject sits on a thirds point",
            subject: Box(x: 100.5, y: 40.25, width: 64, height: 48), measured: Box(x: 98, y: 41, width: 60, height: 50),
            analysisPts: 66_666_666, inputWidth: 640, inputHeight: 360),
        analysing: true, skippedPts: 33_333_333)

    @Test func fieldsAreWrittenInTheDocumentedOrder() {
        let s = Self.full.structure
        #expect(s.name == "ViewfinderComposition")
        #expect(
            s.fields.map(\.0) == [
                "analysis-pts", "rule", "score", "well-composed", "locked", "x", "y", "width", "height",
                "measured-x", "measured-y", "measured-width", "measured-height", "input-width", "input-height",
                "advice", "analysing", "skipped-pts",
            ])
        #expect(s["analysis-pts"] == .uint64(66_666_666))
        #expect(s["input-width"] == .int(640))
        #expect(s["measured-height"] == .double(50))
        #expect(s["analysing"] == .bool(true))
    }

    @Test func facesMembersAndLookRoundTripAndBadEntriesAreSkipped() throws {
        var a = try #require(Self.full.analysis)
        a.faces = [Box(x: 10, y: 20, width: 30, height: 40), Box(x: 100.25, y: 5, width: 12, height: 12)]
        a.members = [Box(x: 10, y: 20, width: 30, height: 40)]
        a.look = -0.5
        let s = CompositionMeta(analysis: a).structure
        #expect(s["faces"] == .string("10.0,20.0,30.0,40.0;100.2,5.0,12.0,12.0"))
        #expect(Array(s.fields.map(\.0).suffix(3)) == ["faces", "members", "look"])
        let back = try #require(CompositionMeta(structure: s)?.analysis)
        #expect(back.faces.count == 2 && back.faces[1].x == 100.2 && back.members == [Box(x: 10, y: 20, width: 30, height: 40)])
        #expect(back.look == -0.5)
        #expect(back.kind == nil)
        // The subject's kind, when said: round trip; a kind no reader knows is unknown.
        a.kind = .salient
        let said = CompositionMeta(analysis: a).structure
        #expect(said["subject-kind"] == .string("salient"))
        #expect(CompositionMeta(structure: said)?.analysis?.kind == .salient)
        var odd = said
        odd.fields = odd.fields.map { $0.0 == "subject-kind" ? ($0.0, .string("dragon")) : $0 }
        #expect(CompositionMeta(structure: odd)?.analysis?.kind == nil)
        // Hostile text: not numbers, non-finite, no size, too many: skipped or capped.
        #expect(CompositionMeta.Analysis.boxes("1,2,3;a,b,c,d;1,2,0,4;1,2,nan,4;5,6,7,8") == [Box(x: 5, y: 6, width: 7, height: 8)])
        #expect(CompositionMeta.Analysis.boxes(Array(repeating: "1,1,1,1", count: 100).joined(separator: ";")).count == 64)
        #expect(CompositionMeta.Analysis.boxes(String(repeating: "9", count: 10_000)).isEmpty)
    }

    @Test func trackIdsRoundTripAndIdsThatDoNotMatchTheirBoxesAreNotRead() throws {
        var a = try #require(Self.full.analysis)
        a.faces = [Box(x: 10, y: 20, width: 30, height: 40), Box(x: 100, y: 5, width: 12, height: 12)]
        a.faceIDs = [7, 12]
        a.members = a.faces; a.memberIDs = [7, 12]
        a.persons = [Box(x: 300, y: 10, width: 80, height: 200)]; a.personIDs = [3]
        a.subjectID = 12
        let s = CompositionMeta(analysis: a).structure
        #expect(Array(s.fields.map(\.0).suffix(7)) == ["faces", "members", "face-ids", "member-ids", "persons", "person-ids", "subject-id"])
        #expect(s["face-ids"] == .string("7;12") && s["subject-id"] == .int(12) && s["person-ids"] == .string("3"))
        let back = try #require(CompositionMeta(structure: s)?.analysis)
        #expect(back.faceIDs == [7, 12] && back.memberIDs == [7, 12] && back.personIDs == [3] && back.subjectID == 12)
        #expect(back.persons == [Box(x: 300, y: 10, width: 80, height: 200)])
        // An id list of another length than its boxes, a negative or non-number id, a negative subject: not read.
        var odd = s
        odd.fields = odd.fields.map {
            switch $0.0 {
            case "face-ids": ($0.0, .string("7"))
            case "member-ids": ($0.0, .string("7;-2"))
            case "person-ids": ($0.0, .string("x"))
            case "subject-id": ($0.0, .int(-1))
            default: $0
            }
        }
        let read = try #require(CompositionMeta(structure: odd)?.analysis)
        #expect(read.faceIDs.isEmpty && read.memberIDs.isEmpty && read.personIDs.isEmpty && read.subjectID == nil)
        #expect(read.faces.count == 2)
        // An analysis of a guidance whose detections the tracker identified carries them, in order.
        var g = Guidance(
            frameWidth: 320, frameHeight: 180,
            subject: Detection(box: Box(x: 10, y: 10, width: 20, height: 20), confidence: 1, kind: .face),
            detections: [
                Detection(box: Box(x: 10, y: 10, width: 20, height: 20), confidence: 1, kind: .face),
                Detection(box: Box(x: 200, y: 50, width: 20, height: 20), confidence: 1, kind: .face),
            ], rule: "thirds")
        var tracker = ObjectTracker(frameWidth: 320, frameHeight: 180)
        tracker.identify(&g, at: 0)
        let made = CompositionMeta.Analysis(g, inputWidth: 640, inputHeight: 360)
        #expect(made.faceIDs == [1, 2] && made.subjectID == 1 && made.faces[1] == Box(x: 400, y: 100, width: 40, height: 40))
    }

    @Test func theLeadingLinesFarEndComesFromTheLinesRulesDetailsAndRoundTrips() throws {
        // Line 1 of `lines` leads to the subject at its (0.7, 0.4) end: the far end (0.1, 0.9) is where it comes from.
        let d: [String: Double] = [
            "best": 1, "line1.x1": 0.1, "line1.y1": 0.9, "line1.x2": 0.7, "line1.y2": 0.4, "targetX": 0.68, "targetY": 0.42,
        ]
        #expect(CompositionMeta.Analysis.lead(d, rule: "lines") == Point2D(x: 0.1, y: 0.9))
        #expect(CompositionMeta.Analysis.lead(d, rule: "thirds") == nil)
        #expect(CompositionMeta.Analysis.lead(d.merging(["best": -1]) { $1 }, rule: "lines") == nil)
        #expect(CompositionMeta.Analysis.lead(d.merging(["best": 1e300]) { $1 }, rule: "lines") == nil)
        var a = try #require(Self.full.analysis)
        a.lead = Point2D(x: 64, y: 324)
        let back = try #require(CompositionMeta(structure: CompositionMeta(analysis: a).structure)?.analysis)
        #expect(back.lead == Point2D(x: 64, y: 324))
    }

    @Test func valueStructureValueRoundTrips() throws {
        #expect(CompositionMeta(structure: Self.full.structure) == Self.full)
        // Through GStreamer's own text, as a reader of the buffer sees it.
        let parsed = try #require(MessageStructure(parsing: Self.full.structure.text))
        #expect(CompositionMeta(structure: parsed) == Self.full)
    }

    @Test func exposureFiguresComeAfterTheAdviceAndRoundTrip() throws {
        var meta = Self.full
        meta.analysis?.exposure = ExposureFigures(subjectLuma: 227.5, backgroundLuma: 168.25, clipped: 0.375, stops: 1.5)
        let s = meta.structure
        #expect(
            Array(s.fields.map(\.0).suffix(7)) == [
                "advice", "subject-luma", "background-luma", "clipped", "exposure-stops", "analysing", "skipped-pts",
            ])
        #expect(s["clipped"] == .double(0.375))
        #expect(CompositionMeta(structure: s) == meta)
        #expect(CompositionMeta(structure: try #require(MessageStructure(parsing: s.text))) == meta)
        // Without figures the fields are absent (older readers and writers see the old meta).
        #expect(Self.full.structure["exposure-stops"] == nil && CompositionMeta(structure: Self.full.structure)?.analysis?.exposure == nil)
    }

    @Test func unknownValuesUseTheirMarkers() throws {
        let bare = CompositionMeta(analysis: .init(rule: "center", score: 0, composed: false, advice: "looking for a subject"))
        let s = bare.structure
        #expect(s["analysis-pts"] == .uint64(UInt64.max))
        #expect(s["x"] == .double(-1) && s["width"] == .double(0) && s["measured-x"] == .double(-1))
        #expect(s["analysing"] == nil && s["skipped-pts"] == nil)
        let back = try #require(CompositionMeta(structure: s))
        #expect(back == bare)
        #expect(back.analysis?.analysisPts == nil && back.analysis?.subject == nil && back.analysis?.measured == nil)
    }

    @Test func aMetaBeforeTheFirstVerdictCarriesOnlyTheFlags() throws {
        let early = CompositionMeta(analysis: nil, analysing: true, skippedPts: 5)
        #expect(early.structure.fields.map(\.0) == ["analysing", "skipped-pts"])
        #expect(CompositionMeta(structure: early.structure) == early)
        #expect(CompositionMeta(structure: MessageStructure("viewfinder/composition")) == nil)
    }

    @Test func eyesAreWrittenAfterTheMeasuredBoxOnlyWhenKnownAndRoundTrip() throws {
        var withEyes = Self.full
        withEyes.analysis?.eyes = Detection.Eyes(left: Point2D(x: 110.5, y: 55), right: Point2D(x: 140.25, y: 56))
        let s = withEyes.structure
        let names = s.fields.map(\.0)
        let at = try #require(names.firstIndex(of: "measured-height"))
        #expect(Array(names[(at + 1)...(at + 4)]) == ["eye-left-x", "eye-left-y", "eye-right-x", "eye-right-y"])
        #expect(s["eye-right-x"] == .double(140.25))
        let parsed = try #require(MessageStructure(parsing: s.text))
        #expect(CompositionMeta(structure: parsed) == withEyes)
        #expect(!Self.full.structure.fields.map(\.0).contains("eye-left-x"))
        // From a guidance: analysed pixels (320x180) scaled to the input (640x360).
        let g = Guidance(
            frameWidth: 320, frameHeight: 180,
            subject: Detection(
                box: Box(x: 50, y: 20, width: 30, height: 40), confidence: 0.9, kind: .face,
                eyes: Detection.Eyes(left: Point2D(x: 58, y: 32), right: Point2D(x: 72, y: 33))),
            engine: "cnn", rule: "thirds")
        let a = CompositionMeta.Analysis(g, inputWidth: 640, inputHeight: 360)
        #expect(a.eyes == Detection.Eyes(left: Point2D(x: 116, y: 64), right: Point2D(x: 144, y: 66)))
    }

    @Test func theSubjectScalesToAnotherFrameSize() throws {
        let a = try #require(Self.full.analysis)
        // The measured box wins over the drawn one; 640x360 -> 1280x720 doubles it.
        #expect(a.box(width: 1280, height: 720) == Box(x: 196, y: 82, width: 120, height: 100))
        #expect(a.box(width: 640, height: 360) == Box(x: 98, y: 41, width: 60, height: 50))
    }

    @Test func attachAndReadBackFromAFrame() throws {
        let info = try VideoInfo(format: "I420", width: 64, height: 36)
        let frame = VideoFrame(
            buffer: Buffer(bytes: [UInt8](repeating: 0, count: info.size)), info: info,
            caps: try Caps(info.capsString), segment: Segment(), index: 0)
        #expect(CompositionMeta(frame: frame) == nil)
        CompositionMeta(analysis: nil).attach(to: frame)
        #expect(CompositionMeta(frame: frame) == nil)  // nothing to say: nothing attached
        Self.full.attach(to: frame)
        #expect(CompositionMeta(frame: frame) == Self.full)
        #expect(frame.buffer.customMetaDouble(CompositionMeta.name, field: "width") == 64)
    }

    /// compose (analysing on the video thread) on frames with one bright square: the meta it attaches
    /// decodes to its latest verdict, field for field.
    @Test func composeAttachesItsVerdictToTheFrame() throws {
        let info = try VideoInfo(format: "I420", width: 320, height: 180, fpsN: 30, fpsD: 1)
        let h = try StageHarness(
            kind: "compose",
            properties: [
                ("engine", "saliency"), ("rule", "thirds"), ("sync", "true"),
                ("warmup", "0"), ("overlay", "false"),
            ], info: info)
        var bytes = StageHarness.blackBytes(info)
        for y in 60..<100 { for x in 200..<240 { bytes[y * 320 + x] = 235 } }
        let out = try h.push(count: 2, bytes)
        let compose = try #require(h.stage(ComposeStage.self))
        let latest = try #require(compose.latest)
        let meta = try #require(CompositionMeta(frame: out[1]))
        #expect(meta.analysing == false && meta.skippedPts == nil)  // sync: analysed before the meta is written
        let a = try #require(meta.analysis)
        #expect(a == CompositionMeta.Analysis(latest, inputWidth: 320, inputHeight: 180))
        #expect(a.rule == "thirds" && a.inputWidth == 320 && a.inputHeight == 180)
        // analysis-fps=10: frame 1 is not due, so its meta carries frame 0's verdict.
        #expect(a.analysisPts == out[0].pts)
        let box = try #require(a.measured)
        #expect(a.subject == latest.subjectBox(width: 320, height: 180))
        #expect(box.width > 0 && box.height > 0)
        #expect(frame(out[1], field: "measured-width") == box.width)
        #expect(frame(out[1], field: "score") == a.score)
    }

    private func frame(_ f: VideoFrame, field: String) -> Double? { f.buffer.customMetaDouble(CompositionMeta.name, field: field) }
}
