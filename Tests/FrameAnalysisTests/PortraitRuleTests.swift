import Foundation
import Testing

@testable import FrameAnalysis

/// The portrait rule on a real portrait (astronaut.png, cut so the eyes land on the upper third line or in
/// the middle), on real turned faces through the cnn, and on inputs built by hand for each branch.
@Suite struct PortraitRuleTests {
    static let rule = PortraitRule()

    /// astronaut.png's face labelled by eye (CNNFaceEngineTests: box 180,70 86x104, pupils (204,101) and
    /// (246,103)), seen through a 200x200 window at (`x`, `y`) of the 512x512 photo.
    static func astronaut(window x: Double, _ y: Double) -> RuleInput {
        let n = { (p: Point2D) in Point2D(x: (p.x - x) / 200, y: (p.y - y) / 200) }
        return RuleInput(
            subject: Box(x: (180 - x) / 200, y: (70 - y) / 200, width: 86.0 / 200, height: 104.0 / 200), frameWidth: 200,
            frameHeight: 200, eyes: Detection.Eyes(left: n(Point2D(x: 204, y: 101)), right: n(Point2D(x: 246, y: 103))),
            look: -0.15, kind: .face)
    }

    @Test func realPortraitWithTheEyesOnTheUpperThirdHolds() {
        // Window at (122, 35): eye line (102 - 35) / 200 = 0.335, face centre x (223 - 122) / 200 = 0.505,
        // frontal (|look| < 0.3): target (0.5, 1/3 + centre - eye line); d = √(0.005² + 0.00167²) = 0.00527.
        let r = Self.rule.evaluate(Self.astronaut(window: 122, 35))
        #expect(r.wellComposed && r.adviceKey == "portrait.hold" && r.advice == "hold: the eyes sit on the upper third line")
        #expect(abs(r.details["eyeLine"]! - 0.335) < 1e-9 && r.details["eyesEstimated"] == 0)
        #expect(abs(r.details["distance"]! - 0.00527) < 1e-5, "\(r.details)")
        #expect(abs(r.score - 0.98882) < 1e-4, "\(r.score)")
        #expect(abs(r.details["headroom"]! - 0.175) < 1e-9 && r.details["lookRoom"] == -1 && r.details["look"] == -0.15)
        #expect(r.target!.x == 0.5)
    }

    @Test func realPortraitWithTheEyesInTheMiddleMovesUp() {
        // Window at (122, 4): eye line 98 / 200 = 0.49, 0.157 below the line; d = √(0.005² + 0.15667²) = 0.15675.
        let r = Self.rule.evaluate(Self.astronaut(window: 122, 4))
        #expect(!r.wellComposed && r.adviceKey == "portrait.eyes.up")
        #expect(r.advice == "move the subject up so the eyes sit on the upper third line")
        #expect(abs(r.details["eyeOffset"]! - 0.15667) < 1e-4)
        #expect(abs(r.score - 0.66749) < 1e-4, "\(r.score)")
        #expect(abs(r.direction.dy + 0.15667) < 1e-4 && abs(r.direction.dx + 0.005) < 1e-9)
    }

    @Test(.enabled(if: CNNFaceEngineTests.installed, CNNFaceEngineTests.skipReason))
    func theCNNOnTheCutPhotoGivesTheSameVerdicts() throws {
        // The same two windows cut out of the photo, analysed end to end. On the whole photo the cnn's eyes
        // are (200,101) (247,102); on the cut windows it puts them a few pixels lower: eye line 0.345 (69 of
        // 200) and 0.5 instead of 0.3325 and 0.4875; score 0.967 on the line.
        let photo = try TestImages.rgb("astronaut")
        let analyzer = CompositionAnalyzer(engines: [try CNNFaceEngine()], engine: "cnn", rule: PortraitRule())
        let high = analyzer.analyze(photo.cropped(x: 122, y: 35, width: 200, height: 200))
        let low = analyzer.analyze(photo.cropped(x: 122, y: 4, width: 200, height: 200))
        #expect(high.wellComposed && high.adviceKey == "portrait.hold" && high.score >= 0.95, "\(high.score) \(high.details)")
        #expect(!low.wellComposed && low.adviceKey == "portrait.eyes.up", "\(low.adviceKey)")
        #expect(low.score > 0.62 && low.score < 0.7, "\(low.score)")
        for g in [high, low] {
            #expect(g.details["eyesEstimated"] == 0 && abs(g.details["look"] ?? 9) < 0.3, "\(g.details)")
        }
        #expect(abs(high.details["eyeLine"]! - 0.3325) < 0.02 && abs(low.details["eyeLine"]! - 0.4875) < 0.02, "\(low.details)")
    }

    @Test(.enabled(if: CNNFaceEngineTests.installed, CNNFaceEngineTests.skipReason))
    func aRealFaceTurnedLeftWantsRoomOnTheLeftAndItsMirrorOnTheRight() throws {
        // obama2 cut to 460x560 around his face: it looks to the image's left (look about -0.5) and sits in
        // the middle, so the rule asks for room on the left: the face to the right third (x = 2/3).
        let image = try TestImages.rgb("faces/obama2").cropped(x: 100, y: 150, width: 460, height: 560)
        let analyzer = CompositionAnalyzer(engines: [try CNNFaceEngine()], engine: "cnn", rule: PortraitRule())
        let left = analyzer.analyze(image), right = analyzer.analyze(image.mirrored)
        #expect(left.target!.x == 2.0 / 3 && right.target!.x == 1.0 / 3)
        #expect(left.details["look"]! < -0.3 && right.details["look"]! > 0.3, "\(left.details) \(right.details)")
        #expect(!left.wellComposed && !right.wellComposed)
        // Eye line (360 + 382) / 2 - 150 = 221 of 560 (0.395), face centre x 0.504: the look room is the larger error.
        #expect(left.adviceKey == "portrait.look-room.right", "\(left.advice)")
        #expect(left.advice == "leave room on the left where they look: move the subject right")
        #expect(right.adviceKey == "portrait.look-room.left", "\(right.advice)")
    }

    /// A face box 0.2 x 0.3 centred at x 0.5, its eyes on the upper third line.
    static func centred(look: Double?) -> RuleInput {
        RuleInput(
            subject: Box(x: 0.4, y: 0.2, width: 0.2, height: 0.3), frameWidth: 320, frameHeight: 180,
            eyes: Detection.Eyes(left: Point2D(x: 0.45, y: 1.0 / 3), right: Point2D(x: 0.55, y: 1.0 / 3)), look: look, kind: .face)
    }

    @Test func lookRoomPutsTheFaceOnTheThirdOppositeItsLook() {
        // Looking left: target x 2/3, d = 1/6, score 1 - (1/6) / (√2/3) = 0.64645.
        let left = Self.rule.evaluate(Self.centred(look: -0.52))
        #expect(!left.wellComposed && left.target!.x == 2.0 / 3 && abs(left.score - 0.64645) < 1e-4)
        #expect(left.adviceKey == "portrait.look-room.right")
        #expect(left.advice == "leave room on the left where they look: move the subject right")
        #expect(abs(left.details["lookRoom"]! - 0.5) < 1e-9)
        let right = Self.rule.evaluate(Self.centred(look: 0.52))
        #expect(right.target!.x == 1.0 / 3 && right.advice == "leave room on the right where they look: move the subject left")
        // Frontal (under 0.3) or unknown: centred is fine.
        for look in [0.1, nil] {
            let r = Self.rule.evaluate(Self.centred(look: look))
            #expect(r.wellComposed && r.score == 1 && r.adviceKey == "portrait.hold", "\(String(describing: look))")
        }
        // A turned face on its third holds, and says so.
        var placed = Self.centred(look: 0.52)
        placed.subject!.x = 1.0 / 3 - 0.1
        let held = Self.rule.evaluate(placed)
        #expect(held.wellComposed && held.advice == "hold: the eyes sit on the upper third line, with room where they look")
    }

    @Test func headroomCutAndTooMuch() {
        // Box top at 0: the head touches the top edge; the score is halved.
        let cut = Self.rule.evaluate(RuleInput(subject: Box(x: 0.4, y: 0, width: 0.2, height: 0.3), frameWidth: 320, frameHeight: 180, kind: .face))
        #expect(!cut.wellComposed && cut.adviceKey == "portrait.headroom.cut")
        // Eye line estimated at 0.4 · 0.3 = 0.12: d = 0.2133, position 0.54738, halved.
        #expect(cut.details["eyesEstimated"] == 1 && abs(cut.details["eyeLine"]! - 0.12) < 1e-9)
        #expect(abs(cut.score - 0.5 * (1 - 0.21333 / 0.471405)) < 1e-4, "\(cut.score)")
        // Box top at 0.45: more than a third of the frame empty above the face.
        let low = Self.rule.evaluate(RuleInput(subject: Box(x: 0.4, y: 0.45, width: 0.2, height: 0.3), frameWidth: 320, frameHeight: 180, kind: .face))
        #expect(!low.wellComposed && low.adviceKey == "portrait.headroom.up" && low.advice == "too much headroom: move the subject up")
        // A face filling the frame cannot get its eyes to the line without cutting the head.
        let big = Self.rule.evaluate(RuleInput(subject: Box(x: 0.05, y: 0, width: 0.9, height: 1), frameWidth: 320, frameHeight: 180, kind: .face))
        #expect(big.adviceKey == "portrait.step-back" && big.advice == "step back: the face fills the frame")
    }

    @Test func onlyFacesAndGroupsArePortraits() {
        let box = Box(x: 0.4, y: 0.2, width: 0.2, height: 0.3)
        for kind in [Detection.Kind.salient, .fullBody, .upperBody] {
            let r = Self.rule.evaluate(RuleInput(subject: box, frameWidth: 320, frameHeight: 180, kind: kind))
            #expect(r.score == 0 && !r.wellComposed && r.adviceKey == "portrait.no-face" && r.advice == "looking for a face")
        }
        #expect(Self.rule.evaluate(RuleInput(subject: box, frameWidth: 320, frameHeight: 180)).adviceKey == "portrait.no-face")
        #expect(Self.rule.evaluate(RuleInput(subject: box, frameWidth: 320, frameHeight: 180, kind: .group)).score > 0.9)
        #expect(Self.rule.evaluate(RuleInput(subject: nil, frameWidth: 320, frameHeight: 180, kind: .face)) == .noSubject(rule: "portrait"))
    }

    @Test func marksAreTheUpperThirdLineAndTheVerticalThirds() {
        let third = 1.0 / 3, twoThirds = 2.0 / 3
        let lines: [GuideLine] = [.horizontal(y: third), .vertical(x: third), .vertical(x: twoThirds)]
        #expect(Self.rule.marks.lines == lines)
        #expect(Self.rule.marks.points == [Point2D(x: 1.0 / 3, y: 1.0 / 3), Point2D(x: 2.0 / 3, y: 1.0 / 3)])
    }
}
