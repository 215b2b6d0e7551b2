import Foundation
import TestTags
import Testing

@testable import FrameAnalysis

/// The faces engine on real photos (issue 3, Proof (a) and (b), tilted faces).
@Suite(.tier) struct FaceEngineTests {
    /// Engines are loaded once (five XML cascades each).
    static let verified = Result { try FaceEngine() }
    static let upright = Result { try FaceEngine(rotations: false) }
    static let raw = Result { try FaceEngine(verify: false, rotations: false, profiles: false) }

    /// The faces in the three portraits (OpenCV's frontal boxes at the settings).
    static let faces: [String: Box] = [
        "basketball1": Box(x: 72, y: 91, width: 39, height: 39),
        "messi5": Box(x: 227, y: 94, width: 37, height: 37),
        "astronaut": Box(x: 177, y: 66, width: 95, height: 95),
    ]
    static let lefts = (1...14).filter { $0 != 10 }.map { String(format: "left%02d", $0) }

    @Test func nameAndOptions() throws {
        let e = try Self.verified.get()
        #expect(e.name == "faces")
        #expect(e.minFace == 24 && e.verify && e.rotations && e.profiles)
        let custom = try FaceEngine(minFace: 40, verify: false, rotations: false, profiles: false)
        #expect(custom.minFace == 40 && !custom.verify && custom.verifier == nil && custom.profile == nil)
    }

    /// Proof (a): with verification (and the extra passes) off, the engine is OpenCV's
    /// `detectMultiScale(gray, 1.1, 5, minSize 24)`: same count and IoU >= 0.8 per box on every photo
    /// (reference boxes from `Fixtures/make_opencv_boxes.py`, Debian python3-opencv 4.6).
    @Test(.tags(.evaluation)) func withoutVerificationItReturnsOpenCVsBoxes() throws {
        let run = try #require(try OpenCVFixture.load().run("haarcascades/haarcascade_frontalface_default.xml"))
        let engine = try Self.raw.get()
        #expect(run.boxes.count == 16)
        for (name, expected) in run.boxes.sorted(by: { $0.key < $1.key }) {
            let found = engine.detect(in: try TestImages.rgb(name))
            #expect(found.count == expected.count, "\(name): \(found.map(\.box)) vs \(expected)")
            for row in expected {
                let box = CascadeTestSupport.box(row)
                let match = found.max { $0.box.iou(box) < $1.box.iou(box) }
                #expect((match?.box.iou(box) ?? 0) >= 0.8, "\(name): OpenCV box \(box) not matched in \(found.map(\.box))")
                #expect(match?.confidence == min(1, Double(row[4]) / 24))
            }
        }
    }

    /// Proof (b): OpenCV's cascade alone puts a false face on the monitor in left01/02/05/08/11/14; with
    /// the default verification no false face is left on any of the 13 photos. (left06 shows the person's
    /// real profile at the monitor; a detection there is a true face, nothing else may be reported.)
    @Test(.tags(.evaluation)) func noFalseFaceOnTheChessboardPhotos() throws {
        let engine = try Self.verified.get()
        let profileInLeft06 = Box(x: 218, y: 113, width: 124, height: 124)  // OpenCV's profile cascade box
        let monitor = Box(x: 136, y: 215, width: 56, height: 56)
        #expect(Self.lefts.count == 13)
        for name in Self.lefts {
            let found = engine.detect(in: try TestImages.rgb(name))
            let falseFaces = found.filter { name != "left06" || $0.box.iou(profileInLeft06) < 0.3 }
            #expect(falseFaces.isEmpty, "\(name): false faces \(falseFaces.map(\.box))")
            #expect(!found.contains { $0.box.iou(monitor) > 0.1 }, "\(name)")
        }
    }

    /// Proof (b), second half: every face in the portraits is still found, once, with its OpenCV box.
    @Test(.tags(.evaluation)) func everyFaceInThePortraitsIsFound() throws {
        let engine = try Self.verified.get()
        for (name, face) in Self.faces.sorted(by: { $0.key < $1.key }) {
            let found = engine.detect(in: try TestImages.rgb(name))
            #expect(found.count == 1, "\(name): \(found.map(\.box))")
            let best = try #require(found.first)
            #expect(best.kind == .face)
            #expect(best.box.iou(face) >= 0.8, "\(name): \(best.box) vs \(face)")
            #expect(best.confidence > 0.5 && best.confidence <= 1)
        }
    }

    /// Faces rolled by +-20 degrees (the photo rotated in Swift, bilinear) are found by the rotated passes;
    /// the expected box is the upright face box moved with the rotation.
    @Test(.tags(.evaluation)) func findsFacesTiltedBy20Degrees() throws {
        let engine = try Self.verified.get(), uprightOnly = try Self.upright.get()
        var missedUpright = 0
        for name in ["basketball1", "astronaut"] {
            let image = try TestImages.rgb(name)
            for angle in [20.0, -20.0] {
                let rotated = image.rotated(degrees: angle)
                let expected = Rotation(degrees: angle, width: image.width, height: image.height).forward(Self.faces[name]!)
                let found = engine.detect(in: rotated)
                #expect(found.count == 1, "\(name) at \(angle): \(found.map(\.box))")
                #expect(found.contains { $0.box.iou(expected) >= 0.6 }, "\(name) at \(angle): \(found.map(\.box)) vs \(expected)")
                if !uprightOnly.detect(in: rotated).contains(where: { $0.box.iou(expected) >= 0.3 }) { missedUpright += 1 }
            }
        }
        // Without the rotated passes at least half of them are missed (measured: 3 of 4).
        #expect(missedUpright >= 2)
    }

    /// Cut into its passes (compose's `fallbacks=staggered`), the search gives what it gives whole: one slice per
    /// pass (5 with rotations, 3 without, 1 frontal only), each pass's hits judged in its own frame, merged at the end.
    /// On the portraits and on a face tilted by 20 degrees (found by a rotated pass).
    @Test(.tags(.evaluation)) func itsPassesTogetherFindWhatTheWholeSearchFinds() throws {
        let verified = try Self.verified.get(), upright = try Self.upright.get()
        #expect([verified, upright, try Self.raw.get()].map { $0.sliceCount(width: 320, height: 240) } == [5, 3, 1])
        let tilted = try TestImages.rgb("basketball1").rotated(degrees: 20)
        var found = 0
        for (engine, image) in [(verified, tilted), (upright, try TestImages.rgb("astronaut")), (upright, try TestImages.rgb("messi5"))] {
            let n = engine.sliceCount(width: image.width, height: image.height)
            let parts = (0..<n).map { engine.slice($0, in: image) }
            let whole = engine.detect(in: image)
            #expect(engine.detections(from: parts, width: image.width, height: image.height) == whole)
            #expect(engine.slice(n, in: image) == SearchSlice())
            found += whole.count
            // The tilted face comes from a rotated pass (slice 3 or 4).
            if n == 5 { #expect(parts[3...].contains { !$0.detections.isEmpty }, "\(parts)") }
        }
        #expect(found >= 3)
    }

    @Test func missingCascadesAreNamed() {
        let dir = URL(fileURLWithPath: "/nonexistent/opencv4")
        #expect(
            throws: CascadeError(
                file: "/nonexistent/opencv4/haarcascades/haarcascade_frontalface_default.xml",
                reason: "expected the trained cascade here (Debian package opencv-data), found no file")
        ) {
            try FaceEngine(cascadeDirectory: dir)
        }
    }

    @Test func mergeKeepsTheMostConfidentAndPrefersFrontalHits() {
        let a = Detection(box: Box(x: 10, y: 10, width: 40, height: 40), confidence: 0.6, kind: .face)
        let b = Detection(box: Box(x: 14, y: 12, width: 40, height: 40), confidence: 0.9, kind: .face)
        let p = Detection(box: Box(x: 8, y: 8, width: 46, height: 46), confidence: 0.95, kind: .profileFace)
        let inner = Detection(box: Box(x: 20, y: 20, width: 20, height: 20), confidence: 0.99, kind: .face)
        let far = Detection(box: Box(x: 200, y: 10, width: 40, height: 40), confidence: 0.3, kind: .profileFace)
        // `inner` lies wholly inside `b` (covers > 60 % of the smaller box) and is more confident: it wins.
        #expect(FaceEngine.merge([a, b, p, far]) == [b, far])
        #expect(FaceEngine.merge([a, b, inner]) == [inner])
    }
}
