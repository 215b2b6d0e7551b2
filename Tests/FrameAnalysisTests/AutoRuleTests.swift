import Testing

@testable import FrameAnalysis

@Suite struct AutoRuleTests {
    func eval(_ b: Box?, luma: GrayImage? = nil, rule: AutoRule = AutoRule()) -> RuleResult {
        rule.evaluate(RuleInput(subject: b, frameWidth: 320, frameHeight: 180, luma: luma))
    }

    @Test func picksThirdsAndSaysSo() {
        let r = eval(subject(at: 1.0 / 3, 2.0 / 3))
        #expect(r.rule == "thirds" && r.wellComposed && r.advice.hasPrefix("thirds: hold"))
        #expect(r.details["thirds.score"]! > r.details["center.score"]!)
    }

    @Test func picksCenterForACentredSubject() {
        let r = eval(subject(at: 0.5, 0.5), luma: CenterRuleTests.symmetricLuma())
        // The framing advice comes first; the texture's exposure note (if any) follows it without
        // changing the verdict.
        #expect(r.rule == "center" && r.wellComposed && r.advice.hasPrefix("center: hold: the subject is centred"))
        let framing = AutoRule(placements: AutoRule().placements, checks: AutoRule().checks).evaluate(
            RuleInput(subject: subject(at: 0.5, 0.5), frameWidth: 320, frameHeight: 180, luma: CenterRuleTests.symmetricLuma()))
        #expect(framing.advice == "center: hold: the subject is centred")
        #expect(r.score == framing.score && r.target == framing.target)
    }

    @Test func picksGoldenOnTheSpiralEye() {
        let r = eval(subject(at: 0.2764, 0.2764))
        #expect(r.rule == "golden" && r.wellComposed)
    }

    @Test func closestRuleGuidesAnOffSubject() {
        // (0.25, 0.45): thirds point (1/3, 1/3) is 0.14 away, golden (0.382, 0.382) 0.148, centre 0.255.
        let r = eval(subject(at: 0.25, 0.45))
        #expect(r.rule == "thirds" && !r.wellComposed && r.advice == "thirds: move the subject up and right")
    }

    @Test func cutSubjectOverridesPlacement() {
        let r = eval(Box(x: 0, y: 0.28, width: 0.15, height: 0.1))
        #expect(r.advice == "edges: move the subject right: it is cut at the left edge")
        #expect(!r.wellComposed && r.score == 0)
        #expect(r.rule != "edges")
    }

    @Test func tiltedHorizonOverridesAWellPlacedSubject() {
        let r = eval(subject(at: 1.0 / 3, 1.0 / 3), luma: HorizonRuleTests.tilted(5))
        #expect(r.rule == "thirds" && !r.wellComposed)
        #expect(r.adviceKey == "horizon.rotate.ccw" && r.advice.hasPrefix("horizon: level the camera"))
        #expect(r.target == Point2D(x: 1.0 / 3, y: 1.0 / 3))
    }

    @Test func picksPortraitForAFaceWithItsEyesOnTheLine() {
        // Face centred at x 0.5, eyes on the upper third line: portrait 1, center 1 - 0.15/√0.5 = 0.788, thirds 0.645.
        let r = AutoRule().evaluate(PortraitRuleTests.centred(look: nil))
        #expect(r.rule == "portrait" && r.wellComposed && r.score == 1, "\(r.details)")
        #expect(r.advice == "portrait: hold: the eyes sit on the upper third line")
        #expect(abs(r.details["center.score"]! - 0.78787) < 1e-4 && r.details["lines.score"] == 0)
        // The same box of unknown kind is no portrait: center guides it.
        var unknown = PortraitRuleTests.centred(look: nil)
        unknown.kind = nil
        #expect(AutoRule().evaluate(unknown).rule == "center")
    }

    @Test func picksLinesWhenTheyLeadToTheSubject() {
        // The drawn converging lines with the subject at their vanishing point (0.627, 0.336): thirds is
        // 0.04 from (2/3, 1/3) (0.915), lines about 1.
        let r = AutoRule().evaluate(LinesRuleTests.input(LinesRuleTests.vanishing))
        #expect(r.rule == "lines" && r.wellComposed && r.advice.hasPrefix("lines: hold: the lines lead to the subject"), "\(r.advice)")
        #expect(r.score > r.details["thirds.score"]! && r.details["thirds.score"]! > 0.9, "\(r.details)")
    }

    @Test func noSubject() {
        let r = eval(nil)
        #expect(r.score == 0 && !r.wellComposed && r.advice == "looking for a subject")
    }

    /// A new rule joins `auto` without touching any other code.
    struct DiagonalRule: CompositionRule {
        let name = "diagonal"
        func evaluate(_ input: RuleInput) -> RuleResult {
            guard let c = input.subjectCenter else { return .noSubject(rule: name) }
            let d = abs(c.x - c.y) / 2.0.squareRoot()
            return RuleResult(
                rule: name, score: 1 - d, wellComposed: d < 0.05, target: nil, direction: .zero,
                advice: "diagonal", adviceKey: "diagonal")
        }
    }

    @Test func newRulesJoinAuto() {
        let auto = AutoRule(from: RuleRegistry.all + [DiagonalRule()])
        #expect(auto.placements.map(\.name) == ["thirds", "center", "golden", "portrait", "lines", "diagonal"])
        #expect(auto.checks.map(\.name) == ["horizon", "edges"])
        #expect(auto.notes.map(\.name) == ["exposure"])
        #expect(eval(subject(at: 0.45, 0.45), rule: auto).rule == "diagonal")
    }
}
