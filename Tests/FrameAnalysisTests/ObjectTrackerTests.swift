import Testing

@testable import FrameAnalysis

@Suite struct ObjectTrackerTests {
    func face(_ x: Double, _ y: Double, _ side: Double = 100) -> (box: Box, kind: ObjectTracker.Kind) {
        (Box(x: x, y: y, width: side, height: side), .face)
    }

    @Test func aWalkingFaceKeepsItsIdAndIsCarriedBetweenDetections() {
        var t = ObjectTracker(frameWidth: 1920, frameHeight: 1080, hold: 2)
        // 300 px/s to the right, detected 5 times a second.
        var ids: [Int] = []
        for k in 0..<10 {
            let time = Double(k) * 0.2
            ids += t.detected([face(200 + 300 * time, 400)], at: time)
        }
        #expect(Set(ids) == [1])
        let now = t.tracks(at: 1.9).first ?? ObjectTracker.Track(id: 0, kind: .face, box: Box(x: 0, y: 0, width: 1, height: 1), velocity: .zero, lastSeen: 0, firstSeen: 0, hits: 0)
        #expect(abs(now.velocity.dx - 300) < 1 && abs(now.velocity.dy) < 1e-9)
        // 0.1 s after the last detection (at 1.8 s: x 740): 30 px on.
        #expect(abs(now.box.x - 770) < 1)
        // Carried at most `horizon` (0.5 s) past the last sighting.
        #expect(abs((t.tracks(at: 3).first?.box.x ?? 0) - (740 + 150)) < 1)
    }

    @Test func twoFacesCrossingKeepTheirIds() {
        var t = ObjectTracker(frameWidth: 1920, frameHeight: 1080)
        // A from the left, B from the right, 400 px/s each, at different heights so they never overlap much.
        var a: [Int] = [], b: [Int] = []
        for k in 0..<15 {
            let time = Double(k) * 0.2
            let ids = t.detected([face(100 + 400 * time, 300), face(1500 - 400 * time, 380)], at: time)
            a.append(ids[0]); b.append(ids[1])
        }
        #expect(Set(a) == [1] && Set(b) == [2], "\(a) \(b)")
    }

    @Test func aFaceNotSeenIsHeldThenEndsAndANewOneGetsANewId() {
        var t = ObjectTracker(frameWidth: 1280, frameHeight: 720, hold: 1)
        #expect(t.detected([face(100, 100)], at: 0) == [1])
        #expect(t.detected([], at: 0.5).isEmpty)
        #expect(t.tracks(at: 0.9).map(\.id) == [1])
        #expect(t.tracks(at: 1.2).isEmpty)
        // Back at the same place after it ended: a new track, a new id (ids are never reused).
        #expect(t.detected([face(100, 100)], at: 1.4) == [2])
        // A person overlapping the face is another kind: its own track.
        #expect(t.detected([face(100, 100), (Box(x: 60, y: 80, width: 200, height: 500), .person)], at: 1.6) == [2, 3])
    }

    @Test func theCameraMovesTheTracksAndALateDetectionIsCarriedForward() {
        var t = ObjectTracker(frameWidth: 1280, frameHeight: 720)
        t.detected([face(600, 300)], at: 0)
        // The camera pans: the picture moves 10 px left a frame for 6 frames.
        for k in 1...6 { t.cameraMoved(CameraMotion(scale: 1, dx: -10, dy: 0), at: Double(k) / 30) }
        #expect(abs((t.tracks(at: 0.2).first?.box.x ?? -1) - 540) < 1e-9)
        // An analysis of frame 3 arrives now: its box (at 570 then) is where frames 4-6 took it, 540: the same face,
        // still (no speed from the camera's motion).
        #expect(t.detected([face(570, 300)], at: 3.0 / 30) == [1])
        let now = t.tracks(at: 0.2)[0]
        #expect(abs(now.box.x - 540) < 1e-9 && now.velocity == .zero)
    }

    @Test func aStaleAnalysisDoesNotMoveATrackBack() {
        var t = ObjectTracker(frameWidth: 1280, frameHeight: 720)
        t.detected([face(100, 100)], at: 0)
        t.detected([face(160, 100)], at: 0.2)
        // An analysis of frame 0.1 arriving late: matched, not moved back.
        #expect(t.detected([face(130, 100)], at: 0.1) == [1])
        #expect((t.tracks(at: 0.2).first?.box.x ?? -1) == 160)
    }

    @Test func noisyBoxesOfAStillFaceGiveNoSpeed() {
        var t = ObjectTracker(frameWidth: 1280, frameHeight: 720)
        var rng = SplitMix(seed: 7)
        for k in 0..<20 {
            t.detected([face(500 + rng.next(in: -3...3), 300 + rng.next(in: -3...3))], at: Double(k) * 0.2)
        }
        #expect(t.tracks(at: 4).first?.velocity == .zero)
    }

    @Test func identifyGivesFacesAndPeopleTheirTrackIdsAndTheSubjectItsOwn() {
        var t = ObjectTracker(frameWidth: 640, frameHeight: 360)
        func guidance(_ dx: Double, subject: Int) -> Guidance {
            let boxes = [Box(x: 100 + dx, y: 100, width: 40, height: 40), Box(x: 400 + dx, y: 120, width: 36, height: 36)]
            let faces = boxes.map { Detection(box: $0, confidence: 0.9, kind: .face) }
            let person = Detection(box: Box(x: 90 + dx, y: 80, width: 90, height: 250), confidence: 0.8, kind: .upperBody)
            let salient = Detection(box: Box(x: 0, y: 0, width: 50, height: 50), confidence: 0.5, kind: .salient)
            var s = faces[subject]
            s.box.x += 2  // the subject as the smoother draws it; its measured box is the detection's
            var g = Guidance(frameWidth: 640, frameHeight: 360, subject: s, detections: faces + [person, salient], rule: "thirds")
            g.measuredBox = faces[subject].box
            return g
        }
        var first = guidance(0, subject: 0)
        t.identify(&first, at: 0)
        #expect(first.detections.map(\.id) == [1, 2, 3, nil])
        #expect(first.subject?.id == 1)
        // 0.2 s later everyone moved 30 px and the subject is the other face: the same ids, the subject's is 2.
        var next = guidance(30, subject: 1)
        t.identify(&next, at: 0.2)
        #expect(next.detections.map(\.id) == [1, 2, 3, nil])
        #expect(next.subject?.id == 2)
        // A group subject has no id of its own (its members have theirs).
        var group = guidance(60, subject: 0)
        group.subject = Detection(box: Box(x: 160, y: 100, width: 336, height: 56), confidence: 1, kind: .group, members: [])
        t.identify(&group, at: 0.4)
        #expect(group.subject?.id == nil && group.detections.map(\.id) == [1, 2, 3, nil])
        #expect(ObjectTracker.id(of: Box(x: 461, y: 120, width: 36, height: 36), in: group.detections) == 2)
        #expect(ObjectTracker.id(of: Box(x: 0, y: 300, width: 36, height: 36), in: group.detections) == nil)
    }
}
