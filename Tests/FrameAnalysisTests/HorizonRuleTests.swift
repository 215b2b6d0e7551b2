import Testing

@testable import FrameAnalysis

@Suite struct HorizonRuleTests {
    /// A 480x300 landscape (horizon at mid-height) rotated by `degrees` (bilinear) and cropped to 320x180.
    static func tilted(_ degrees: Double) -> GrayImage {
        let scene = CompositionTestFrames.landscape(width: 480, height: 300, horizonY: 150)
        return CompositionTestFrames.rotated(scene, degrees: degrees, width: 320, height: 180)
    }

    func eval(_ luma: GrayImage) -> RuleResult {
        HorizonRule().evaluate(RuleInput(subject: nil, frameWidth: luma.width, frameHeight: luma.height, luma: luma))
    }

    @Test func testFrameRisesToTheRightWhenRotatedCounterClockwise() {
        // Independent check of the test's rotation: at +5° the line is 120·tan 5° ≈ 10.5 px higher at
        // x = +120 than at the centre, and as much lower at x = -120.
        let g = Self.tilted(5)
        #expect(g[160 + 120, 90 - 5] < 100)  // ground already, above centre height on the right
        #expect(g[160 - 120, 90 + 5] > 150)  // still sky below centre height on the left
    }

    @Test func fiveDegreesCounterClockwise() {
        let r = eval(Self.tilted(5))
        let angle = r.details["angle"]!
        #expect(abs(angle - 5) <= 1, "angle \(angle)")
        #expect(!r.wellComposed && r.details["tilted"] == 1)
        #expect(r.adviceKey == "horizon.rotate.ccw")
        #expect(r.advice.hasPrefix("level the camera: rotate ") && r.advice.hasSuffix(" degrees counter-clockwise"))
        #expect(r.advice.contains(String(format: "%.1f", abs(angle))))
        #expect(abs(r.details["y"]! - 0.5) < 0.05 && r.details["coverage"]! > 0.9)
    }

    @Test func fiveDegreesClockwise() {
        let r = eval(Self.tilted(-5))
        #expect(abs(r.details["angle"]! + 5) <= 1, "angle \(r.details["angle"]!)")
        #expect(r.adviceKey == "horizon.rotate.cw" && r.advice.hasSuffix(" degrees clockwise"))
        #expect(abs(r.score - (1 - abs(r.details["angle"]!) / 10)) < 1e-9)
    }

    @Test(arguments: [-12.0, -3.5, 0, 1.5, 8, 14])
    func measuredAngleTracksTheRotation(degrees: Double) {
        let line = try! #require(HorizonRule.dominantLine(Self.tilted(degrees)))
        #expect(abs(line.angle - degrees) <= 0.5, "rotated \(degrees), measured \(line.angle)")
    }

    @Test func levelAndSmallTiltsPass() {
        let level = eval(Self.tilted(0))
        #expect(level.wellComposed && level.adviceKey == "horizon.level" && level.score > 0.95)
        #expect(eval(Self.tilted(1.5)).wellComposed)
        #expect(!eval(Self.tilted(2.5)).wellComposed)
    }

    @Test func noLineInTextureOrWithoutLuma() {
        let r = eval(CompositionTestFrames.texture(width: 320, height: 180))
        #expect(r.details["found"] == 0 && r.wellComposed && r.adviceKey == "horizon.none" && r.score == 1)
        let none = HorizonRule().evaluate(RuleInput(subject: nil, frameWidth: 320, frameHeight: 180))
        #expect(none.adviceKey == "horizon.none")
        #expect(HorizonRule().role == .check)
    }

    @Test func linesThroughTheSubjectDoNotCount() {
        // The tilted line only shows outside a subject box spanning the middle 80 % of the width: too
        // little coverage left for a horizon (a tilted board held by the subject, as in left02).
        let g = Self.tilted(8)
        let subject = Box(x: 0.1, y: 0, width: 0.8, height: 1)
        #expect(HorizonRule.dominantLine(g, ignoring: subject) == nil)
        let r = HorizonRule().evaluate(RuleInput(subject: subject, frameWidth: 320, frameHeight: 180, luma: g))
        #expect(r.adviceKey == "horizon.none" && r.wellComposed)
        // A small subject leaves the horizon visible.
        let small = HorizonRule().evaluate(
            RuleInput(subject: Box(x: 0.45, y: 0.4, width: 0.1, height: 0.2), frameWidth: 320, frameHeight: 180, luma: g))
        #expect(small.adviceKey == "horizon.rotate.ccw")
    }

    @Test func frameBordersAreNotHorizons() {
        // A dark bar along the top (as left01..14 have) on an otherwise line-free texture.
        var g = CompositionTestFrames.texture(width: 320, height: 180, base: 140, spread: 15)
        var control = g
        for y in 0..<4 { for x in 0..<320 { g[x, y] = 0 } }
        #expect(HorizonRule.dominantLine(g) == nil)
        // Control: the same bar away from the border is a line.
        for y in 0..<24 { for x in 0..<320 { control[x, y] = 0 } }
        let line = try! #require(HorizonRule.dominantLine(control))
        #expect(abs(line.angle) < 0.5 && abs(line.y - 23.5 / 179) < 0.02)
    }

    @Test func largeFramesAreReducedFirst() {
        let scene = CompositionTestFrames.landscape(width: 1400, height: 900, horizonY: 450)
        let big = CompositionTestFrames.rotated(scene, degrees: -4, width: 1280, height: 720)
        let line = try! #require(HorizonRule.dominantLine(big))
        #expect(abs(line.angle + 4) <= 0.5)
    }
}
