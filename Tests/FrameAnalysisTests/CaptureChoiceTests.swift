import Testing

@testable import FrameAnalysis

@Suite("CaptureChoice")
struct CaptureChoiceTests {
    typealias C = CaptureChoice.Candidate

    @Test func portraitAndLinesCropOnTheUpperThirdLine() {
        for rule in ["portrait", "lines"] {
            #expect(CaptureChoice.targets(rule: rule) == [Point2D(x: 1.0 / 3, y: 1.0 / 3), Point2D(x: 0.5, y: 1.0 / 3), Point2D(x: 2.0 / 3, y: 1.0 / 3)])
        }
        #expect(CaptureChoice.targets(rule: "edges") == [Point2D(x: 0.5, y: 0.5)])
    }

    @Test func theSharpWellPlacedFrameWinsOverTheNewest() {
        var ring = (0..<15).map { _ in C(score: 0.4, sharpness: 20, motion: 1) }
        ring[6] = C(score: 0.95, sharpness: 300, motion: 0)
        #expect(CaptureChoice.best(ring) == 6)
        #expect(abs(CaptureChoice.quality(ring[6], maxSharpness: 300) - (0.5 * 0.95 + 0.3 + 0.2)) < 1e-12)
        #expect(abs(CaptureChoice.quality(ring[0], maxSharpness: 300) - (0.5 * 0.4 + 0.3 * 20 / 300 + 0.1)) < 1e-12)
    }

    @Test func tiesGoToTheNewestAndEmptyRingHasNone() {
        #expect(CaptureChoice.best([]) == nil)
        #expect(CaptureChoice.best(Array(repeating: C(score: nil, sharpness: 5, motion: 0), count: 4)) == 3)
    }

    @Test func withoutScoresSharpnessAndSteadinessDecide() {
        let ring = [
            C(score: nil, sharpness: 100, motion: 3), C(score: nil, sharpness: 90, motion: 0), C(score: nil, sharpness: 10, motion: 0),
        ]
        // 0.3 + 0.05 = 0.35 vs 0.27 + 0.2 = 0.47 vs 0.03 + 0.2 = 0.23
        #expect(CaptureChoice.best(ring) == 1)
    }

    @Test func aspectParsing() {
        #expect(CaptureChoice.Aspect.parse("3:4") == .some(CaptureChoice.Aspect(w: 3, h: 4)))
        #expect(CaptureChoice.Aspect.parse("none") == .some(nil))
        #expect(CaptureChoice.Aspect.parse("3x4") == nil)
        #expect(CaptureChoice.Aspect.parse("0:4") == nil)
    }

    @Test func portraitCropOfALandscapeFramePutsTheSubjectOnAThirdsLine() {
        // 1280x720 at 3:4 -> 540x720; subject centred at x=700: the window puts it at 1/3 or 2/3 of 540.
        let subject = Box(x: 680, y: 220, width: 40, height: 40)  // centre (700, 240) = 1/3 of 720 high
        let c = CaptureChoice.crop(width: 1280, height: 720, aspect: .init(w: 3, h: 4), subject: subject, rule: "thirds")
        #expect(c.width == 540 && c.height == 720 && c.y == 0)
        #expect(c.x == 520)  // 700 - 540/3 = 520: subject on the left third line
        let centre = CaptureChoice.crop(width: 1280, height: 720, aspect: .init(w: 3, h: 4), subject: subject, rule: "center")
        #expect(centre.x == 430)  // 700 - 270
    }

    @Test func cropStaysInsideTheFrameAndCentresWithoutASubject() {
        let edge = CaptureChoice.crop(
            width: 1280, height: 720, aspect: .init(w: 1, h: 1), subject: Box(x: 0, y: 300, width: 20, height: 20), rule: "thirds")
        #expect(edge.x == 0 && edge.width == 720 && edge.height == 720)
        let none = CaptureChoice.crop(width: 1280, height: 720, aspect: .init(w: 1, h: 1), subject: nil, rule: "thirds")
        #expect(none.x == 280 && none.y == 0)
        // A wider aspect than the frame is limited by the width.
        let wide = CaptureChoice.crop(width: 640, height: 480, aspect: .init(w: 16, h: 9), subject: nil, rule: "thirds")
        #expect(wide.width == 640 && wide.height == 360 && wide.y == 60)
    }

    /// Groups (issue 13): a thirds crop that would put the group's centre on a third keeps every face
    /// inside, with headroom above, instead of cutting the outer faces.
    @Test func aGroupCropKeepsEveryFaceWithHeadroom() {
        // Three 100 px faces side by side, 50 px apart: union 440...840 x 300...400 in 1280x720.
        let faces = [Box(x: 440, y: 300, width: 100, height: 100), Box(x: 590, y: 300, width: 100, height: 100),
                     Box(x: 740, y: 300, width: 100, height: 100)]
        let group = Box(x: 440, y: 300, width: 400, height: 100)
        let c = CaptureChoice.crop(width: 1280, height: 720, aspect: .init(w: 3, h: 4), subject: group, rule: "thirds")
        // Centre 640 on the left third would start the window at 460 and cut the left face; the window
        // holds 440 - 25 ... 840 + 25, so it starts at 415 (the centre then 0.417 of the way across).
        #expect(c.x == 415 && c.width == 540 && c.y == 0 && c.height == 720)
        for f in faces {
            #expect(Double(c.x) <= f.x - 0.25 * 100 && f.x + f.width + 0.25 * 100 <= Double(c.x + c.width))
            #expect(Double(c.y) <= f.y - 0.5 * 100)
        }
    }

    @Test func marginsAroundABigFaceAndASubjectWiderThanTheWindow() {
        // A 200 px face in a 720x1280 portrait frame cropped to 16:9 (720x405). The lower third puts its
        // centre (600) at 270, the window at 330, leaving 35 px under the chin; the margins (100 above,
        // 50 below) need 500 - 100 >= y and 700 + 50 <= y + 405: y = 345, the centre at 0.63 of the way.
        let face = Box(x: 260, y: 500, width: 200, height: 200)
        let c = CaptureChoice.crop(width: 720, height: 1280, aspect: .init(w: 16, h: 9), subject: face, rule: "thirds")
        #expect(c.x == 0 && c.width == 720 && c.height == 405 && c.y == 345)
        // Headroom: a 220 px face centred (rule center) in the same window would start it at 610 - 202.5 = 407.5,
        // leaving 92 px above the face; half a face (110) is kept: y = 500 - 110 = 390.
        let big = Box(x: 250, y: 500, width: 220, height: 220)
        let top = CaptureChoice.crop(width: 720, height: 1280, aspect: .init(w: 16, h: 9), subject: big, rule: "center")
        #expect(top.y == 390 && top.height == 405)
        // A row wider than a 3:4 window of 720 high (540 wide) is centred on.
        let row = Box(x: 200, y: 300, width: 800, height: 100)
        let e = CaptureChoice.crop(width: 1280, height: 720, aspect: .init(w: 3, h: 4), subject: row, rule: "thirds")
        #expect(e.x == 330)  // 600 - 270
    }
}
