import Foundation
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

    @Test func trackIdsFollowTheOtherFieldsRoundTripAndAreChecked() throws {
        var m = Self.sample
        m.faceIDs = [4, 9]; m.subjectID = 9
        let s = m.structure
        #expect(Array(s.fields.map(\.0).suffix(2)) == ["face-ids", "subject-id"])
        #expect(s["face-ids"] == .string("4;9") && s["subject-id"] == .int(9))
        #expect(try CompositionMessage(structure: try #require(MessageStructure(parsing: s.text))) == m)
        // A message without them (an older writer) reads without ids; ids that do not match the faces are an error.
        #expect(try CompositionMessage(structure: Self.sample.structure).faceIDs.isEmpty)
        for (field, value) in [("face-ids", MessageStructure.Value.string("4")), ("face-ids", .string("4;x")), ("subject-id", .int(-3))] {
            var bad = s
            bad.fields = bad.fields.map { $0.0 == field ? (field, value) : $0 }
            #expect(throws: MessageDecodingError.self) { try CompositionMessage(structure: bad) }
        }
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
        #expect(m.exposure == nil && posted.first?["exposure-stops"] == nil)
    }

    @Test func exposureFiguresFollowTheOldFieldsAndRoundTrip() throws {
        var m = Self.sample
        m.exposure = ExposureFigures(subjectLuma: 81.25, backgroundLuma: 58.5, clipped: 0.0125, stops: -1.625)
        let s = m.structure
        #expect(
            Array(s.fields.map(\.0).suffix(5)) == ["analysis-ms", "subject-luma", "background-luma", "clipped", "exposure-stops"])
        #expect(s["exposure-stops"] == .double(-1.625) && s["subject-luma"] == .double(81.25))
        #expect(try CompositionMessage(structure: s) == m)
        #expect(try CompositionMessage(structure: try #require(MessageStructure(parsing: s.text))) == m)
    }

    /// scikit-image's astronaut (512 x 512, from launch/testdata) as RGBx bytes, re-exposed by `stops`
    /// gamma-correctly (sRGB decoded to linear light, times 2^stops, clipped, encoded, rounded).
    static func astronaut(stops: Double) throws -> [UInt8] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".testdata/astronaut.ppm").path
        let data = try #require(FileManager.default.contents(atPath: path), "run launch/testdata (scikit-image's astronaut)")
        let header = "P6\n512 512\n255\n"
        try #require(data.starts(with: Array(header.utf8)), "astronaut.ppm: expected a 512x512 P6 header")
        let rgb = [UInt8](data.dropFirst(header.utf8.count))
        try #require(rgb.count >= 512 * 512 * 3)
        func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encode(_ l: Double) -> Double { l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055 }
        let table = (0...255).map { UInt8(max(0, min(255, (encode(min(1, decode(Double($0) / 255) * pow(2, stops))) * 255).rounded()))) }
        var out = [UInt8](repeating: 255, count: 512 * 512 * 4)
        for i in 0..<(512 * 512) { for c in 0..<3 { out[i * 4 + c] = table[Int(rgb[i * 3 + c])] } }
        return out
    }

    /// A real photo two stops under and as taken, through compose with the face engine: the message and the
    /// frame's meta carry the figures; "too dark" at -2 (alone with `rule=exposure`, after the framing
    /// advice with `auto`), no exposure advice at 0. (Not +2 here: the face engine finds no face in the
    /// washed-out photo; ExposureRuleTests judges +2 on the hand-drawn box.)
    @Test(arguments: ["exposure", "auto"]) func composePostsTheExposureOfARealPhoto(rule: String) throws {
        let info = try VideoInfo(format: "RGBx", width: 512, height: 512, fpsN: 30, fpsD: 1)
        var figures: [Double: ExposureFigures] = [:]
        for stops in [-2.0, 0] {
            let h = try StageHarness(
                kind: "compose",
                properties: [("engine", "faces"), ("rule", rule), ("sync", "true"), ("warmup", "0"), ("overlay", "false")],
                info: info)
            let frames = try h.push(count: 1, try Self.astronaut(stops: stops))
            let posted = h.messages(named: CompositionMessage.structureName)
            let m = try CompositionMessage(structure: try #require(posted.first))
            // The face (177,66 95x95 in the photo) is the subject.
            let subject = try #require(m.subject, "\(posted)")
            #expect(m.engine == "faces" && abs(subject.x + subject.width / 2 - 224) < 20 && abs(subject.y + subject.height / 2 - 113) < 20)
            let e = try #require(m.exposure, "\(posted)")
            figures[stops] = e
            let last = try #require(frames.last)
            let meta = try #require(CompositionMeta(frame: last))
            #expect(meta.analysis?.exposure == e)
            let dark = "subject too dark: turn towards the light"
            switch (stops, rule) {
            case (-2, "exposure"): #expect(m.rule == "exposure" && m.advice == dark && !m.wellComposed)
            case (-2, _): #expect(m.advice.hasSuffix("; exposure: \(dark)") && m.rule != "exposure", "\(m.advice)")
            case (_, "exposure"): #expect(m.advice == "the subject is well exposed" && m.wellComposed)
            default: #expect(!m.advice.contains("exposure"), "\(m.advice)")
            }
        }
        let dark = try #require(figures[-2]), normal = try #require(figures[0])
        // Measured on the analysis frame with the detected box: near the hand-boxed figures (81 / 156).
        #expect(dark.subjectLuma > 65 && dark.subjectLuma < 95 && normal.subjectLuma > 135 && normal.subjectLuma < 170)
        #expect(dark.stops < -1.2 && normal.stops > -0.5 && normal.stops < 1)
        #expect(abs((normal.stops - dark.stops) - 2) < 0.05)
        #expect(dark.clipped == 0 && normal.clipped < 0.02 && dark.backgroundLuma < normal.backgroundLuma)
    }
}

/// `viewfinder/chromakey-warning` as a typed message.
@Suite struct ChromaKeyWarningTests {
    @Test func numbersAreRoundedAsPostedAndTheSentenceUsesTheRawOnes() {
        let w = ChromaKeyWarning(key: "#00c000", closestDistance: 52.46, reach: 56, share: 0.12345)
        #expect(w.closestDistance == 52.5 && w.reach == 56 && w.share == 0.123)
        #expect(
            w.text
                == "key colour #00c000: colours covering 12 % of the frame lie 52 chroma units from it (the key reaches 56): they are partly keyed out")
        #expect(w.structure.fields.map(\.0) == ["key", "closest-distance", "reach", "share", "text"])
        #expect(ChromaKeyWarning(key: "#00ff00", closestDistance: 71, reach: 56, share: 0.1).text.hasSuffix("they stay, 15 units clear"))
    }

    @Test func roundTripsThroughValuesAndText() throws {
        let w = ChromaKeyWarning(key: "#00c000", closestDistance: 20, reach: 56, share: 0.25)
        #expect(try ChromaKeyWarning(structure: w.structure) == w)
        let text =
            "viewfinder/chromakey-warning, key=(string)\"#00c000\", closest-distance=(double)20, reach=(double)56, share=(double)0.25, text=(string)\"key colour #00c000: colours covering 25 % of the frame lie 20 chroma units from it (the key reaches 56): they are partly keyed out\";"
        let parsed = try #require(MessageStructure(parsing: text))
        #expect(try ChromaKeyWarning(structure: parsed) == w)
        #expect(try ChromaKeyWarning(structure: try #require(MessageStructure(parsing: w.structure.text))) == w)
        #expect(throws: MessageDecodingError("viewfinder/chromakey-warning: no double field 'reach'")) {
            try ChromaKeyWarning(
                structure: MessageStructure(
                    ChromaKeyWarning.structureName, [("key", .string("#00ff00")), ("closest-distance", .double(3))]))
        }
    }

    /// chromakey posts the typed warning when the subject's colour is near the key.
    @Test func chromakeyPostsTheTypedWarning() throws {
        let info = try VideoInfo(format: "RGBA", width: 16, height: 8, fpsN: 30, fpsD: 1)
        let h = try StageHarness(kind: "chromakey", properties: [("color", "#00c000")], info: info)
        // Half green (the key), half teal (#20b090, 73 chroma units from it: within the key's reach + 32).
        let pixels: [UInt8] = (0..<(16 * 8)).flatMap { i -> [UInt8] in i % 16 < 8 ? [0, 192, 0, 255] : [0x20, 0xb0, 0x90, 255] }
        try h.push(count: 1, pixels)
        let posted = h.messages(named: ChromaKeyWarning.structureName)
        #expect(posted.count == 1)
        let w = try ChromaKeyWarning(structure: try #require(posted.first))
        #expect(w.key == "#00c000")
        let result = try #require(h.stage(ChromaKeyStage.self)?.lastResult)
        #expect(w.share == (result.nearKey * 1000).rounded() / 1000 && w.share > 0.01)
        #expect(w == ChromaKeyWarning(key: "#00c000", closestDistance: result.closestDistance ?? 0, reach: 40 + 16, share: result.nearKey))
        #expect(abs(w.closestDistance - 72.7) < 3)
    }
}
