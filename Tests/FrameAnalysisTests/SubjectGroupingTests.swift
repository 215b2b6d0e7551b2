import Testing

@testable import FrameAnalysis

/// The grouping rule on detection boxes (pixels of a 640x480 frame).
@Suite struct SubjectGroupingTests {
    let grouping = SubjectGrouping()
    func face(_ x: Double, _ y: Double, _ s: Double, conf: Double = 0.8, kind: Detection.Kind = .face) -> Detection {
        Detection(box: Box(x: x, y: y, width: s, height: s), confidence: conf, kind: kind)
    }

    @Test func threeSideBySideMakeOneGroupWithTheirUnion() {
        // 48 px faces, 60 px (1.25 widths) apart, centres within 10 px vertically.
        let faces = [face(100, 200, 48), face(208, 190, 48, conf: 0.6), face(316, 200, 52, conf: 1)]
        #expect(grouping.groups(faces) == [[0, 1, 2]])
        let g = SubjectGrouping.group(faces)
        #expect(g.kind == .group && g.box == Box(x: 100, y: 190, width: 268, height: 62))
        #expect(g.members == faces.map(\.box))
        #expect(abs(g.confidence - 0.8) < 1e-12)
        // Size-weighted centre: areas 2304, 2304, 2704; centres x 124, 232, 342; y 224, 214, 226.
        let total = 2304.0 + 2304 + 2704
        let cx = (2304 * 124.0 + 2304 * 232 + 2704 * 342) / total, cy = (2304 * 224.0 + 2304 * 214 + 2704 * 226) / total
        let anchor = try! #require(g.anchor)
        #expect(abs(anchor.x - (cx - 100) / 268) < 1e-12 && abs(anchor.y - (cy - 190) / 62) < 1e-12)
        #expect(grouping.candidates(faces) == [g])
    }

    @Test func aGroupLooksWhereItsMembersLookOnAverage() {
        var a = face(100, 200, 48), b = face(208, 190, 48), c = face(316, 200, 52)
        #expect(SubjectGrouping.group([a, b, c]).look == nil)
        (a.look, b.look) = (0.6, 0.2)
        // c's look is unknown: the mean of the two known ones.
        #expect(abs(SubjectGrouping.group([a, b, c]).look! - 0.4) < 1e-12)
        c.look = -0.8
        #expect(abs(SubjectGrouping.group([a, b, c]).look!) < 1e-12)
        #expect(SubjectGrouping.group([a, b, c]).eyes == nil)
    }

    @Test func theNumbersAreTheDocumentedOnes() {
        #expect(grouping == SubjectGrouping(sizeRatio: 1.6, maxGap: 1.5, maxRowOffset: 2.0))
        let a = face(100, 200, 40)
        // Gap exactly 1.5 widths (60 px) joins; 61 px does not.
        #expect(grouping.adjacent(a, face(200, 200, 40)))
        #expect(!grouping.adjacent(a, face(201, 200, 40)))
        // Centres two face heights apart vertically (a back row) join; more does not.
        #expect(grouping.adjacent(a, face(150, 280, 40)))
        #expect(!grouping.adjacent(a, face(150, 281, 40)))
        // Width 40 / 1.6 = 25 is the smallest comparable face (25.01 joins, 24.9 does not).
        #expect(grouping.groups([a, face(150, 207, 25.01)]) == [[0, 1]])
        #expect(grouping.groups([a, face(150, 207, 24.9)]) == [])
    }

    @Test func twoOfVeryDifferentSizeAreNotAGroup() {
        let big = face(200, 150, 90), small = face(300, 170, 40)  // 2.25x smaller, touching
        #expect(grouping.groups([big, small]) == [])
        #expect(grouping.candidates([big, small]) == [big, small])
    }

    @Test func farApartAreNotGrouped() {
        let a = face(40, 200, 48), b = face(500, 200, 48)  // 412 px = 8.6 widths apart
        #expect(grouping.groups([a, b]) == [])
        // A third face near b makes a pair without a.
        let c = face(590, 205, 44)
        #expect(grouping.groups([a, b, c]) == [[1, 2]])
        #expect(grouping.candidates([a, b, c]).map(\.kind) == [.group, .face])
    }

    @Test func aSmallBackgroundFaceNextToTheGroupStaysOut() {
        let row = [face(100, 200, 50), face(190, 200, 50), face(280, 205, 50)]
        let background = face(350, 180, 24)  // half the size, right next to the row
        #expect(grouping.groups(row + [background]) == [[0, 1, 2]])
        #expect(grouping.candidates(row + [background]).last == background)
    }

    @Test func aChainOfShrinkingFacesStopsAtTheSizeRatio() {
        // 60, 45, 34: each within 1.6 of its neighbour, but 34 < 60 / 1.6 = 37.5.
        let faces = [face(100, 200, 60), face(180, 205, 45), face(245, 210, 34)]
        #expect(grouping.groups(faces) == [[0, 1]])
    }

    @Test func familiesDoNotMix() {
        let f = face(100, 200, 48), p = face(170, 200, 48, kind: .profileFace)
        let body = Detection(box: Box(x: 240, y: 190, width: 48, height: 48), confidence: 0.5, kind: .upperBody)
        let salient = Detection(box: Box(x: 30, y: 200, width: 48, height: 48), confidence: 0.5, kind: .salient)
        // A profile is a face; a body and a salient region stay alone.
        #expect(grouping.groups([f, p, body, salient]) == [[0, 1]])
        let b2 = Detection(box: Box(x: 320, y: 195, width: 50, height: 50), confidence: 0.5, kind: .upperBody)
        #expect(grouping.groups([body, b2]) == [[0, 1]])
    }

    @Test func aLoneFaceStaysALoneFace() {
        let a = face(300, 200, 60)
        #expect(grouping.groups([a]) == [] && grouping.candidates([a]) == [a])
        #expect(grouping.candidates([]) == [])
    }
}

extension SubjectGroupingTests {
    /// Real group photos from the labelled set (launch/testdata, `face_labels.json`), analysed at 640 px with the
    /// engine `auto` puts first (the cnn, when installed; else the verified cascades): the subject is the group,
    /// its box holds every face the engine found, and the thirds advice is about the group's centre, not a face's.
    @Test(arguments: ["multi_face", "family"]) func aRealGroupPhotoMakesTheGroupTheSubject(name: String) throws {
        let set = try FaceLabelSet.load(FaceRecallTests.fixture)
        let photo = try #require(set.photos.first { $0.name == name })
        let r = FaceRecall()
        let image = r.analysed(try FaceRecallTests.load(photo))
        let engine: any DetectionEngine = try (try? CNNFaceEngine(threads: 1, minFace: 0)) ?? FaceEngine(verify: true, rotations: false)
        let g = CompositionAnalyzer(engines: [engine], engine: "auto", rule: ThirdsRule()).analyze(image)
        let subject = try #require(g.subject)
        #expect(subject.kind == .group, "\(name): \(subject.kind) of \(g.detections.count) detections")
        // Every face found is a member, inside the subject's box; and they are the labelled faces (4 of the 5 in
        // multi_face at least: the cascades miss the one behind sunglasses).
        let faces = g.detections.filter { $0.kind == .face || $0.kind == .profileFace }
        #expect(subject.members.count == faces.count && faces.count >= photo.faces.count - 1)
        let s = r.scale(for: photo)
        for f in faces {
            let b = f.box
            #expect(b.x >= subject.box.x - 0.5 && b.y >= subject.box.y - 0.5)
            #expect(b.x + b.width <= subject.box.x + subject.box.width + 0.5 && b.y + b.height <= subject.box.y + subject.box.height + 0.5)
            #expect(photo.faces.contains { $0.scaled(s, s).iou(b) >= 0.5 }, "\(name): \(b) is not a labelled face")
        }
        // The union spans most of the faces' row: wider than three times the largest face.
        let widest = faces.map(\.box.width).max() ?? 0
        #expect(subject.box.width > 3 * widest, "\(name): \(subject.box)")
    }
}
