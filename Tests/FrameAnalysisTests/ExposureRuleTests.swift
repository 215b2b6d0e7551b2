import Foundation
import Testing

@testable import FrameAnalysis

/// `rule=exposure` on a real photo (scikit-image's `astronaut`, 512 x 512, face at 177,66 95x95 as boxed
/// in FaceVerifierTests) re-exposed by known amounts, gamma-correctly.
@Suite struct ExposureRuleTests {
    /// The astronaut's face, in pixels of the 512 x 512 photo.
    static let face = Box(x: 177, y: 66, width: 95, height: 95)

    /// `image` re-exposed by `stops` (per channel and per region: `stops(x, y)`): each sRGB value decoded
    /// to linear light, multiplied by 2^stops, clipped to 1, encoded back to sRGB and rounded.
    static func exposed(_ image: RGBImage, _ stops: (Int, Int) -> Double) -> RGBImage {
        func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encode(_ l: Double) -> Double { l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055 }
        var tables: [Double: [UInt8]] = [:]
        var out = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                let s = stops(x, y)
                let table =
                    tables[s]
                    ?? (0...255).map { UInt8(max(0, min(255, (encode(min(1, decode(Double($0) / 255) * pow(2, s))) * 255).rounded()))) }
                tables[s] = table
                let i = (y * image.width + x) * 3
                for c in 0..<3 { out[i + c] = table[Int(image.pixels[i + c])] }
            }
        }
        return RGBImage(width: image.width, height: image.height, pixels: out)
    }

    static func exposed(_ image: RGBImage, stops: Double) -> RGBImage { exposed(image) { _, _ in stops } }

    /// The rule's verdict on `image` with the face as the subject.
    static func judge(_ image: RGBImage, face: Box = face, rule: any CompositionRule = ExposureRule()) -> RuleResult {
        let w = Double(image.width), h = Double(image.height)
        let b = Box(x: face.x / w, y: face.y / h, width: face.width / w, height: face.height / h)
        return rule.evaluate(RuleInput(subject: b, frameWidth: image.width, frameHeight: image.height, luma: image.gray))
    }

    @Test func theSamePhotoAtMinusTwoZeroPlusTwoStops() throws {
        let photo = try TestImages.rgb("astronaut")
        let dark = Self.judge(Self.exposed(photo, stops: -2))
        let normal = Self.judge(photo)
        let bright = Self.judge(Self.exposed(photo, stops: 2))

        #expect(dark.adviceKey == "exposure.too-dark" && dark.advice == "subject too dark: turn towards the light")
        #expect(!dark.wellComposed)
        #expect(normal.adviceKey == "exposure.good" && normal.wellComposed && normal.advice == "the subject is well exposed")
        #expect(bright.adviceKey == "exposure.too-bright" && !bright.wellComposed)
        #expect(bright.advice.hasPrefix("subject too bright"))

        // Figures (measured with numpy on the same pixels: face mean luma 81.2 / 155.6 / 227.1).
        let d = try #require(ExposureFigures(details: dark.details))
        let n = try #require(ExposureFigures(details: normal.details))
        let b = try #require(ExposureFigures(details: bright.details))
        #expect(abs(d.subjectLuma - 81.2) < 0.5 && abs(n.subjectLuma - 155.6) < 0.5 && abs(b.subjectLuma - 227.1) < 0.5)
        #expect(abs(d.backgroundLuma - 58.9) < 0.5 && abs(n.backgroundLuma - 114.0) < 0.5 && abs(b.backgroundLuma - 168.1) < 0.5)
        #expect(abs(d.stops - -1.61) < 0.03 && abs(n.stops - 0.39) < 0.03 && abs(b.stops - 1.51) < 0.03)
        // Two stops down is exactly two stops down in linear light (nothing clips at -2).
        #expect(abs((n.stops - d.stops) - 2) < 0.02)
        // +2 clips the highlights, so the measured gain is less than 2 stops.
        #expect(b.stops - n.stops < 1.3)
        #expect(d.clipped == 0 && abs(n.clipped - 0.0094) < 0.001 && abs(b.clipped - 0.386) < 0.005)
        // Same surroundings-to-subject ratio at -2 and 0: the face is lit like the rest.
        #expect(abs(dark.details["contrast"]! - normal.details["contrast"]!) < 0.02)
        #expect(normal.details["contrast"]! < 0)
        // Score: 1 - |stops| / 3, with the clipping penalty at +2.
        #expect(abs(normal.score - (1 - 0.39 / 3)) < 0.02 && abs(dark.score - (1 - 1.61 / 3)) < 0.02 && bright.score == 0)
    }

    /// A second real photo (opencv-doc's basketball1, 640 x 480, the face facedetect boxes at 72,91 39x39):
    /// the same verdicts, figures measured with numpy on the same pixels.
    @Test func basketball1AtMinusTwoZeroPlusTwoStops() throws {
        let photo = try TestImages.rgb("basketball1")
        let face = Box(x: 72, y: 91, width: 39, height: 39)
        let r = [-2.0, 0, 2].map { Self.judge($0 == 0 ? photo : Self.exposed(photo, stops: $0), face: face) }
        #expect(r.map(\.adviceKey) == ["exposure.too-dark", "exposure.good", "exposure.too-bright"])
        let e = try r.map { try #require(ExposureFigures(details: $0.details)) }
        #expect(abs(e[0].subjectLuma - 67.6) < 0.5 && abs(e[1].subjectLuma - 131.5) < 0.5 && abs(e[2].subjectLuma - 201.6) < 0.5)
        #expect(abs(e[0].stops - -1.97) < 0.03 && abs(e[1].stops - 0.03) < 0.03 && abs(e[2].stops - 1.19) < 0.03)
        #expect(e[0].clipped == 0 && abs(e[1].clipped - 0.0188) < 0.001 && abs(e[2].clipped - 0.4465) < 0.005)
        // At +2 almost half the face is at 250+.
        #expect(abs(r[2].details["subject-clipped"]! - 0.468) < 0.01)
    }

    /// Bright surroundings, dark subject: the face two stops down, everything else one stop up.
    @Test func aBacklitSubjectIsFlagged() throws {
        let photo = try TestImages.rgb("astronaut")
        let f = Self.face
        let backlit = Self.exposed(photo) { x, y in
            Double(x) >= f.x && Double(x) < f.x + f.width && Double(y) >= f.y && Double(y) < f.y + f.height ? -2 : 1
        }
        let r = Self.judge(backlit)
        #expect(r.adviceKey == "exposure.backlit" && !r.wellComposed)
        #expect(r.advice == "subject backlit: face the light or add fill light")
        let e = try #require(ExposureFigures(details: r.details))
        #expect(abs(e.subjectLuma - 81.2) < 0.5 && e.backgroundLuma > 140)
        #expect(abs(e.stops - -1.61) < 0.03)
        #expect(r.details["contrast"]! > 2 && r.details["contrast"]! < 3.5)
    }

    /// A blown area (a white band over the top of the frame, 12 % of it) beside a well-exposed face.
    @Test func clippedHighlightsBesideAGoodSubject() throws {
        var photo = try TestImages.rgb("astronaut")
        for i in 0..<(60 * 512 * 3) { photo.pixels[i] = 255 }
        let r = Self.judge(photo)
        #expect(r.adviceKey == "exposure.clipping")
        #expect(r.advice == "highlights clip: expose less or reframe")
        let e = try #require(ExposureFigures(details: r.details))
        #expect(e.clipped > 60.0 / 512 && e.clipped < 60.0 / 512 + 0.01)
        #expect(abs(e.subjectLuma - 155.6) < 0.5 && abs(e.stops - 0.39) < 0.03)
    }

    @Test func noSubjectAndNoPixels() {
        let none = ExposureRule().evaluate(RuleInput(subject: nil, frameWidth: 320, frameHeight: 240, luma: GrayImage(width: 320, height: 240)))
        #expect(none.adviceKey == "exposure.no-subject" && none.details.isEmpty)
        let blind = ExposureRule().evaluate(RuleInput(subject: Box(x: 0.4, y: 0.4, width: 0.2, height: 0.2), frameWidth: 320, frameHeight: 240))
        #expect(blind.adviceKey == "exposure.no-luma" && blind.wellComposed)
    }

    /// A black subject filling the frame: no -inf, no NaN; the stops floor at log2(0.001 / 0.29).
    @Test func aBlackFrameFilledByTheSubject() throws {
        let r = ExposureRule().evaluate(
            RuleInput(subject: Box(x: 0, y: 0, width: 1, height: 1), frameWidth: 8, frameHeight: 8, luma: GrayImage(width: 8, height: 8)))
        let e = try #require(ExposureFigures(details: r.details))
        #expect(r.adviceKey == "exposure.too-dark" && e.subjectLuma == 0 && e.backgroundLuma == 0 && e.clipped == 0)
        #expect(abs(e.stops - log2(0.001 / 0.29)) < 1e-9 && r.details["contrast"] == 0)
    }

    /// Through the analyzer with `rule=auto`: the exposure advice follows the framing advice, the figures
    /// are in the guidance, and the framing verdict is unchanged.
    @Test func autoAddsTheExposureAdviceAfterTheFraming() throws {
        let photo = try TestImages.rgb("astronaut")
        let faces = FixedDetections(name: "faces", detections: [Detection(box: Self.face, confidence: 1, kind: .face)])
        let analyzer = CompositionAnalyzer(engines: [faces], engine: "faces", rule: AutoRule())
        let normal = analyzer.analyze(photo)
        let dark = analyzer.analyze(Self.exposed(photo, stops: -2))
        #expect(!normal.advice.contains("exposure"))
        #expect(dark.advice == normal.advice + "; exposure: subject too dark: turn towards the light")
        #expect(dark.adviceKey == normal.adviceKey + "+exposure.too-dark")
        #expect(dark.rule == normal.rule && dark.score == normal.score && dark.wellComposed == normal.wellComposed)
        #expect(dark.target == normal.target)
        let e = try #require(dark.exposure)
        #expect(abs(e.subjectLuma - 81.2) < 0.5 && abs(e.stops - -1.61) < 0.03)
        #expect(dark.details["exposure.stops"] == e.stops)
        #expect(abs((normal.exposure?.stops ?? 0) - 0.39) < 0.03)
    }
}
