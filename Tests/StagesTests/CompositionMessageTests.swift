import FrameAnalysis
import GStreamerKit
import StageTesting
import Testing

@testable import Stages

/// `viewfinder/composition` as a typed message.
@Suite struct CompositionMessageTests {
    static let sample = CompositionMessage(
        pts: 100_000_000, frame: 3, rule: "golden", score: 0.625, wellComposed: false, locked: false,
        subject: Box(x: 10.5, y: 20, width: 30, height: 40), engine: "faces",
        faces: [Box(x: 72, y: 91, width: 39, height: 39), Box(x: 200, y: 10, width: 24, height: 25)],
        advice: "move the subject up", analysisMs: 12.5)

    @Test func fieldsKeepTheirNamesTypesAndOrder() {
        let s = Self.sample.structure
        #expect(s.name == "viewfinder/composition")
        #expect(
            s.fields.map(\.0) == [
                "pts", "frame", "rule", "score", "well-composed", "locked", "x", "y", "width", "height",
                "engine", "faces", "face-count", "advice", "analysis-ms",
            ])
        #expect(s["pts"] == .uint64(100_000_000) && s["frame"] == .uint64(3))
        #expect(s["faces"] == .string("72,91,39,39;200,10,24,25"))
        #expect(s["face-count"] == .int(2))
        #expect(s["x"] == .double(10.5))
    }

    @Test func valueStructureValueRoundTrips() throws {
        #expect(try CompositionMessage(structure: Self.sample.structure) == Self.sample)
        var none = Self.sample
        none.pts = nil; none.subject = nil; none.faces = []; none.engine = "none"
        #expect(
            none.structure["pts"] == .uint64(UInt64.max) && none.structure["x"] == .double(-1) && none.structure["faces"] == .string(""))
        #expect(try CompositionMessage(structure: none.structure) == none)
    }

    @Test func textParsesBackToTheValue() throws {
        let text =
            "viewfinder/composition, pts=(guint64)100000000, frame=(guint64)3, rule=(string)golden, score=(double)0.625, well-composed=(boolean)false, locked=(boolean)false, x=(double)10.5, y=(double)20, width=(double)30, height=(double)40, engine=(string)faces, faces=(string)\"72\\,91\\,39\\,39\\;200\\,10\\,24\\,25\", face-count=(int)2, advice=(string)\"move\\ the\\ subject\\ up\", analysis-ms=(double)12.5;"
        let parsed = try #require(MessageStructure(parsing: text))
        #expect(try CompositionMessage(structure: parsed) == Self.sample)
        #expect(try CompositionMessage(structure: try #require(MessageStructure(parsing: Self.sample.structure.text))) == Self.sample)
    }

    @Test func missingOrWrongFieldsAreNamed() {
        var s = Self.sample.structure
        s.fields.removeAll { $0.0 == "rule" }
        #expect(throws: MessageDecodingError("viewfinder/composition: no string field 'rule'")) { try CompositionMessage(structure: s) }
        var c = Self.sample.structure
        if let i = c.fields.firstIndex(where: { $0.0 == "face-count" }) { c.fields[i].1 = .int(5) }
        #expect(throws: MessageDecodingError.self) { try CompositionMessage(structure: c) }
        #expect(throws: MessageDecodingError.self) { try CompositionMessage(structure: MessageStructure("viewfinder/capture")) }
    }

    /// compose posts one message per analysis, decodable as the typed value with its verdict.
    @Test func composePostsTheTypedMessage() throws {
        let info = try VideoInfo(format: "I420", width: 320, height: 180, fpsN: 30, fpsD: 1)
        let h = try StageHarness(
            kind: "compose",
            properties: [
                ("engine", "saliency"), ("rule", "center"), ("sync", "true"),
                ("warmup", "0"), ("overlay", "false"),
            ], info: info)
        var bytes = StageHarness.blackBytes(info)
        for y in 60..<100 { for x in 200..<240 { bytes[y * 320 + x] = 235 } }
        try h.push(count: 1, bytes)
        let posted = h.messages(named: CompositionMessage.structureName)
        #expect(posted.count == 1)
        let m = try CompositionMessage(structure: try #require(posted.first))
        let latest = try #require(h.stage(ComposeStage.self)?.latest)
        #expect(m.pts == 0 && m.frame == 0 && m.rule == "center" && m.engine == "saliency")
        #expect(m.score == latest.score && m.advice == latest.advice)
        #expect(m.subject == latest.subjectBox(width: 320, height: 180))
    }
}

/// `viewfinder/chromakey-warning` as a typed message.
@Suite struct ChromaKeyWarningTests {
    @Test func numbersAreRoundedAsPostedAndTheSentenceUsesTheRawOnes() {
        let w = ChromaKeyWarning(key: "#00c000", closestHue: 12.46, share: 0.12345)
        #expect(w.closestHueDegrees == 12.5 && w.share == 0.123)
        #expect(w.text == "key colour #00c000 is within 12 degrees of hue of colours covering 12 % of the frame: they may be keyed out too")
        #expect(w.structure.fields.map(\.0) == ["key", "closest-hue-degrees", "share", "text"])
    }

    @Test func roundTripsThroughValuesAndText() throws {
        let w = ChromaKeyWarning(key: "#00c000", closestHue: 20, share: 0.25)
        #expect(try ChromaKeyWarning(structure: w.structure) == w)
        let text =
            "viewfinder/chromakey-warning, key=(string)\"#00c000\", closest-hue-degrees=(double)20, share=(double)0.25, text=(string)\"key colour #00c000 is within 20 degrees of hue of colours covering 25 % of the frame: they may be keyed out too\";"
        let parsed = try #require(MessageStructure(parsing: text))
        #expect(try ChromaKeyWarning(structure: parsed) == w)
        #expect(try ChromaKeyWarning(structure: try #require(MessageStructure(parsing: w.structure.text))) == w)
        #expect(throws: MessageDecodingError("viewfinder/chromakey-warning: no double field 'share'")) {
            try ChromaKeyWarning(
                structure: MessageStructure(
                    ChromaKeyWarning.structureName, [("key", .string("#00ff00")), ("closest-hue-degrees", .double(3))]))
        }
    }

    /// chromakey posts the typed warning when the subject's colour is near the key.
    @Test func chromakeyPostsTheTypedWarning() throws {
        let info = try VideoInfo(format: "RGBA", width: 16, height: 8, fpsN: 30, fpsD: 1)
        let h = try StageHarness(kind: "chromakey", properties: [("color", "#00c000")], info: info)
        // Half green (the key), half teal (#20b090, about 37 degrees of hue from it).
        let pixels: [UInt8] = (0..<(16 * 8)).flatMap { i -> [UInt8] in i % 16 < 8 ? [0, 192, 0, 255] : [0x20, 0xb0, 0x90, 255] }
        try h.push(count: 1, pixels)
        let posted = h.messages(named: ChromaKeyWarning.structureName)
        #expect(posted.count == 1)
        let w = try ChromaKeyWarning(structure: try #require(posted.first))
        #expect(w.key == "#00c000")
        let result = try #require(h.stage(ChromaKeyStage.self)?.lastResult)
        #expect(w.share == (result.nearKey * 1000).rounded() / 1000 && w.share > 0.01)
        #expect(w == ChromaKeyWarning(key: "#00c000", closestHue: result.closestHue ?? 0, share: result.nearKey))
    }
}
