import Testing

@testable import FrameAnalysis

@Suite struct SubjectSelectorTests {
    let selector = SubjectSelector()
    /// A detection in a 320x180 frame from a normalised box.
    func det(_ x: Double, _ y: Double, _ w: Double, _ h: Double, conf: Double, kind: Detection.Kind = .face) -> Detection {
        Detection(box: Box(x: x * 320, y: y * 180, width: w * 320, height: h * 180), confidence: conf, kind: kind)
    }

    @Test func weightedSumOfTheFourParts() {
        // 0.25 x 0.4 (area 0.1, in the sweet spot) centred on (1/3, 1/3); nearest border gap 0.133 >= 0.1.
        let s = selector.score(det(1.0 / 3 - 0.125, 1.0 / 3 - 0.2, 0.25, 0.4, conf: 0.9), frameWidth: 320, frameHeight: 180)
        #expect(s.coverage == 1 && abs(s.thirds - 1) < 1e-9 && s.edgeSafety == 1 && s.confidence == 0.9)
        #expect(abs(s.total - (0.4 * 0.9 + 0.3 + 0.2 + 0.1)) < 1e-9)
    }

    @Test func coverageSweetSpot() {
        func coverage(_ a: Double) -> Double {
            let side = a.squareRoot()
            return selector.score(det(0.5 - side / 2, 0.5 - side / 2, side, side, conf: 1), frameWidth: 320, frameHeight: 180).coverage
        }
        #expect(abs(coverage(0.015) - 0.5) < 1e-9)  // half the low end
        #expect(coverage(0.03) > 0.999 && coverage(0.1) == 1 && coverage(0.2) > 0.999)
        #expect(abs(coverage(0.6) - 0.5) < 1e-9)  // (1 - 0.6) / (1 - 0.2)
        #expect(coverage(1) == 0)
    }

    @Test func edgeSafetyAndThirds() {
        let touching = selector.score(det(0, 0.4, 0.1, 0.2, conf: 1), frameWidth: 320, frameHeight: 180)
        #expect(touching.edgeSafety == 0)
        let half = selector.score(det(0.05, 0.4, 0.1, 0.2, conf: 1), frameWidth: 320, frameHeight: 180)
        #expect(abs(half.edgeSafety - 0.5) < 1e-9)
        // Centre at (0.5, 0.5): thirds = 0.5.
        let centred = selector.score(det(0.45, 0.4, 0.1, 0.2, conf: 1), frameWidth: 320, frameHeight: 180)
        #expect(abs(centred.thirds - 0.5) < 1e-9)
    }

    @Test func wellSizedPlacedFaceBeatsATinyConfidentOne() {
        let tiny = det(0.85, 0.1, 0.03, 0.05, conf: 1)  // 0.15 % of the frame, near the edge
        let good = det(0.28, 0.25, 0.12, 0.2, conf: 0.7)  // 2.4 % share, near a thirds point
        let pick = try! #require(selector.select([tiny, good], frameWidth: 320, frameHeight: 180))
        #expect(pick.detection == good)
        #expect(pick.score.total > selector.score(tiny, frameWidth: 320, frameHeight: 180).total)
    }

    @Test func confidenceDecidesBetweenOtherwiseEqualCandidates() {
        let a = det(0.28, 0.25, 0.12, 0.2, conf: 0.5), b = det(0.61, 0.25, 0.12, 0.2, conf: 0.8)
        #expect(selector.select([a, b], frameWidth: 320, frameHeight: 180)?.detection == b)
    }

    @Test func emptyAndTies() {
        #expect(selector.select([], frameWidth: 320, frameHeight: 180) == nil)
        let a = det(0.28, 0.25, 0.12, 0.2, conf: 0.5)
        var b = a; b.kind = .upperBody
        #expect(selector.select([a, b], frameWidth: 320, frameHeight: 180)?.detection.kind == .face)
    }

    /// Groups (issue 13): three faces of one size side by side are one subject, their union.
    @Test func threeSideBySideAreOneSubjectTheirUnion() throws {
        let faces = [det(0.20, 0.30, 0.09, 0.16, conf: 0.7), det(0.36, 0.31, 0.09, 0.16, conf: 0.9), det(0.52, 0.29, 0.1, 0.17, conf: 0.8)]
        let pick = try #require(selector.select(faces, frameWidth: 320, frameHeight: 180))
        #expect(pick.detection.kind == .group)
        let u = pick.detection.box
        #expect(abs(u.x - 64) < 1e-9 && abs(u.y - 0.29 * 180) < 1e-9 && abs(u.width - 0.42 * 320) < 1e-9)
        #expect(abs(u.height - 0.18 * 180) < 1e-9)  // 0.29 (top of the third) to 0.31 + 0.16 (bottom of the second)
        for f in faces { #expect(pick.detection.members.contains(f.box)) }
        // Without grouping the subject is one of the three.
        let alone = SubjectSelector(grouping: nil).select(faces, frameWidth: 320, frameHeight: 180)
        #expect(alone.map { faces.contains($0.detection) } == true)
    }

    @Test func twoOfVeryDifferentSizeGiveTheBigOne() throws {
        let big = det(0.30, 0.25, 0.2, 0.36, conf: 0.8), small = det(0.52, 0.3, 0.07, 0.12, conf: 0.9)
        let pick = try #require(selector.select([small, big], frameWidth: 320, frameHeight: 180))
        #expect(pick.detection == big)
    }

    @Test func farApartFacesAreNotGrouped() throws {
        let left = det(0.05, 0.3, 0.09, 0.16, conf: 0.6), right = det(0.62, 0.25, 0.09, 0.16, conf: 0.9)
        let pick = try #require(selector.select([left, right], frameWidth: 320, frameHeight: 180))
        #expect(pick.detection == right && pick.detection.members.isEmpty)
    }
}
