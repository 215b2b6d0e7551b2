import Testing

@testable import FrameAnalysis

/// `FramingTarget`'s placement helpers on known boxes (input pixels of a 1280x720 frame, 9:16 windows 405 wide).
@Suite struct FramingTargetTests {
    func window(left: Double, top: Double = 0, width: Double = 405) -> CropWindow {
        CropWindow(cx: left + width / 2, cy: top + width * 16 / 9 / 2, width: width, aspect: 9.0 / 16)
    }

    @Test func anEdgeInANarrowGapGoesToItsMiddle() {
        // Left face ends at 496, next starts at 512; on the right, 881 | 912. The window (left 497) keeps the two middle
        // faces: its left edge may lie in 496...507 (right edge 881...912), so the best clearance is 5.5 px each way.
        let faces = [
            Box(x: 330, y: 100, width: 166, height: 176), Box(x: 512, y: 280, width: 172, height: 223),
            Box(x: 735, y: 248, width: 146, height: 172), Box(x: 912, y: 409, width: 179, height: 238),
        ]
        let w = window(left: 497)
        let b = FramingTarget.balanced(w, faces: faces, frameWidth: 1280, frameHeight: 720)
        #expect(abs(b.left - 501.5) < 1e-9)
        #expect(b.top == 0 && b.width == w.width)
        #expect(faces.filter { b.contains($0) }.count == 2 && !faces.contains { b.cuts($0) })
    }

    @Test func aWindowWithRoomOrAgainstTheFrameStays() {
        // One face well inside: nothing moves. Against the frame's left edge with the face 5 px in: the frame's edge
        // needs no margin, but the face's does (10 % of 100 px): the window would have to leave the frame, so it stays.
        let face = [Box(x: 150, y: 300, width: 100, height: 100)]
        let roomy = window(left: 20)
        #expect(FramingTarget.balanced(roomy, faces: face, frameWidth: 1280, frameHeight: 720) == roomy)
        let edge = window(left: 0)
        let near = [Box(x: 5, y: 300, width: 100, height: 100)]
        #expect(FramingTarget.balanced(edge, faces: near, frameWidth: 1280, frameHeight: 720) == edge)
        // A face 3 px inside the right edge with room on the left: moved right to give it its 10 px.
        let right = [Box(x: 297, y: 300, width: 100, height: 100)]
        let moved = FramingTarget.balanced(window(left: 0), faces: right, frameWidth: 1280, frameHeight: 720)
        #expect(abs(moved.right - 407) < 1e-9)
    }

    @Test func aCutFaceIsLeftToUncut() {
        let w = window(left: 100)
        let cut = [Box(x: 80, y: 300, width: 100, height: 100)]
        #expect(FramingTarget.balanced(w, faces: cut, frameWidth: 1280, frameHeight: 720) == w)
    }

    @Test func aRunIsFramableOnlyWhenAWindowHoldsItWithoutCuttingANeighbour() {
        // Faces 26-168, 179-329, 374-502, 526-684: the middle pair (179...502) needs a left edge in 168...179 (clear of
        // the first) and a right edge in 502...526, which a 405 px window cannot have both; the pair 374...684 can.
        let faces = [
            Box(x: 26, y: 61, width: 142, height: 179), Box(x: 179, y: 338, width: 150, height: 195),
            Box(x: 374, y: 310, width: 128, height: 150), Box(x: 526, y: 454, width: 158, height: 196),
        ]
        let widest = CropWindow.widest(aspect: 9.0 / 16, frameWidth: 1280, frameHeight: 720)
        #expect(!FramingTarget.framable([faces[1], faces[2]], among: faces, widest: widest, frameWidth: 1280))
        #expect(FramingTarget.framable([faces[2], faces[3]], among: faces, widest: widest, frameWidth: 1280))
        // The operator keeps that one: a scene with all four and the subject on the middle pair frames 374...684.
        let scene = FramingScene(subject: faces[1], faces: faces)
        let plan = FramingTarget.plan(
            for: scene, settings: ReframeSettings(aspect: 9.0 / 16, rule: .center), frameWidth: 1280, frameHeight: 720, current: nil)
        #expect(Set(plan.required.map(\.x)) == [374, 526])
        #expect(!faces.contains { plan.window.cuts($0) })
    }

    @Test func aFaceNoCropHoldsIsHeldWithBars() {
        // A close-up 413 px wide in 1280x720 (a 9:16 crop is at most 405 wide): the window reaches past the frame, 10 %
        // of the face round it where pad allows, centred on the frame vertically; with pad 0 it is the widest crop,
        // centred on the face, which cuts it (no crop can hold it).
        let face = Box(x: 500, y: 150, width: 413, height: 430)
        var s = ReframeSettings(aspect: 9.0 / 16, rule: .auto)
        let plan = FramingTarget.plan(for: FramingScene(subject: face), settings: s, frameWidth: 1280, frameHeight: 720, current: nil)
        #expect(plan.window.contains(face, slack: 0) && plan.window.hasBars(frameWidth: 1280, frameHeight: 720))
        #expect(plan.window.width > 413 && plan.window.width <= 506.25 && plan.window.cy == 360)
        #expect(abs(plan.window.cx - face.center.x) < 1)
        s.pad = 0
        let cropped = FramingTarget.plan(for: FramingScene(subject: face), settings: s, frameWidth: 1280, frameHeight: 720, current: nil)
        #expect(cropped.window.width == 405 && !cropped.window.hasBars(frameWidth: 1280, frameHeight: 720))
        #expect(!cropped.window.contains(face) && abs(cropped.window.cx - face.center.x) < 1)
    }

    @Test func aGroupJustWiderThanACropIsKeptWholeWithBarsAndNoWiderThanItNeeds() {
        // Three faces spanning 407 px (a crop holds 405): all three kept, in a window just wide enough for them with the
        // minimum margin (10 % of the widest face each side), not the widest bars allow; with pad 0, the two that fit.
        let faces = [
            Box(x: 400, y: 200, width: 130, height: 140), Box(x: 540, y: 230, width: 125, height: 130), Box(x: 677, y: 210, width: 130, height: 140),
        ]
        let scene = FramingScene(subject: FramingTarget.union(faces), required: faces, faces: faces, isGroup: true)
        var s = ReframeSettings(aspect: 9.0 / 16, rule: .auto)
        let plan = FramingTarget.plan(for: scene, settings: s, frameWidth: 1280, frameHeight: 720, current: nil)
        #expect(plan.required.count == 3 && faces.allSatisfy { plan.window.contains($0, slack: 0) })
        #expect(abs(plan.window.width - (407 + 2 * 13)) < 1e-9 && plan.window.hasBars(frameWidth: 1280, frameHeight: 720))
        s.pad = 0
        let cropped = FramingTarget.plan(for: scene, settings: s, frameWidth: 1280, frameHeight: 720, current: nil)
        #expect(cropped.required.count == 2 && cropped.window.width == 405 && !faces.contains { cropped.window.cuts($0) }, "\(cropped)")
    }

    @Test func partOfARowIsFramedInACropNotWithBars() {
        // Four faces over 870 px: no window holds them all even with bars (506 px), nor three (620 px); the run kept is a
        // pair a crop holds (370 px), with the subject: no bars.
        let row = (0..<4).map { Box(x: 150 + Double($0) * 250, y: 300, width: 120, height: 120) }
        let scene = FramingScene(subject: row[1], required: row, faces: row, isGroup: true)
        let plan = FramingTarget.plan(
            for: scene, settings: ReframeSettings(aspect: 9.0 / 16, rule: .auto), frameWidth: 1280, frameHeight: 720, current: nil)
        #expect(plan.required == [row[0], row[1]] || plan.required == [row[1], row[2]])
        #expect(plan.required.allSatisfy { plan.window.contains($0) } && !plan.window.hasBars(frameWidth: 1280, frameHeight: 720))
        #expect(!row.contains { plan.window.cuts($0) })
    }

    @Test func aWindowCreepingOntoAFaceIsNudgedTheLeastThatClearsIt() {
        // The right edge 1.5 px into a face beside the kept pair: moved left 1.5 px (the face wholly out), not by the
        // margin; a window whose every shift cuts someone or drops a kept face is not nudged.
        let kept = [Box(x: 100, y: 300, width: 110, height: 120), Box(x: 250, y: 300, width: 100, height: 120)]
        let neighbour = Box(x: 413.5, y: 300, width: 120, height: 120)
        let w = window(left: 10)
        let n = FramingTarget.nudged(w, faces: kept + [neighbour], required: kept, frameWidth: 1280, frameHeight: 720)
        #expect(n.map { abs($0.right - 413.5) < 1e-9 && $0.cy == w.cy } == true, "\(String(describing: n))")
        let tight = [Box(x: 0, y: 300, width: 100, height: 120), Box(x: 300, y: 300, width: 100, height: 120)]
        #expect(FramingTarget.nudged(window(left: 2), faces: tight + [Box(x: 401, y: 300, width: 100, height: 120)], required: tight, frameWidth: 1280, frameHeight: 720) == nil)
    }
}
