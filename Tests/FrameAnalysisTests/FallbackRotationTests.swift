import Foundation
import Synchronization
import TestTags
import Testing

@testable import FrameAnalysis

/// `FallbackRotation`: engine=auto's fallbacks one per analysis, their results kept for a while of stream time.
@Suite(.tier) struct FallbackRotationTests {
    /// What engines were called, in order, and whether the scripted "cnn" sees a face.
    final class Script: Sendable {
        let calls = Mutex<[String]>([])
        let face = Mutex(false)
        func take() -> [String] { calls.withLock { c in defer { c = [] }; return c } }
    }

    /// An engine answering from the script: `finds` its box, the "cnn" only while the script shows a face.
    struct Scripted: DetectionEngine {
        let name: String
        let script: Script
        var finds: Box?
        func detect(in image: RGBImage) -> [Detection] {
            script.calls.withLock { $0.append(name) }
            if name == "cnn" {
                return script.face.withLock { $0 } ? [Detection(box: Box(x: 10, y: 10, width: 20, height: 20), confidence: 0.9, kind: .face)] : []
            }
            return finds.map { [Detection(box: $0, confidence: 0.8, kind: .fullBody)] } ?? []
        }
    }

    static let person = Box(x: 100, y: 40, width: 30, height: 90)
    static let salient = Box(x: 0, y: 0, width: 50, height: 50)

    /// cnn, faces, people (finds `person`), bodies, saliency (finds `salient`).
    static func chain(_ s: Script) -> [any DetectionEngine] {
        [
            Scripted(name: "cnn", script: s), Scripted(name: "faces", script: s), Scripted(name: "people", script: s, finds: person),
            Scripted(name: "bodies", script: s), Scripted(name: "saliency", script: s, finds: salient),
        ]
    }

    static let frame = RGBImage(width: 320, height: 180, pixels: [UInt8](repeating: 128, count: 320 * 180 * 3))
    static func pts(_ seconds: Double) -> UInt64 { UInt64((seconds * 1e9).rounded()) }

    /// Counted steps: without a face every analysis runs the cnn, one fallback in turn, and saliency only when no
    /// kept fallback result stands; the person HOG found stays the subject while the other fallbacks take their turns.
    @Test func oneFallbackPerAnalysisAndThePersonIsKept() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        var runs: [[String]] = [], suppliers: [String?] = []
        for i in 0..<7 {
            let (found, engine) = r.detect(chain, in: Self.frame, pts: Self.pts(0.1 * Double(i)))
            runs.append(s.take())
            #expect(runs.last == r.lastRun)
            suppliers.append(engine)
            if engine == "people" { #expect(found.map(\.box) == [Self.person]) }
        }
        #expect(
            runs == [
                ["cnn", "faces", "saliency"], ["cnn", "people"], ["cnn", "bodies"], ["cnn", "faces"], ["cnn", "people"], ["cnn", "bodies"],
                ["cnn", "faces"],
            ])
        #expect(suppliers == ["saliency", "people", "people", "people", "people", "people", "people"])
        #expect(runs.allSatisfy { $0.count <= 3 && $0.filter { ["faces", "people", "bodies"].contains($0) }.count == 1 })
    }

    /// A face found runs nothing else; a person's kept result goes stale after `hold` seconds of stream time (here
    /// while faces were found), and a pts going backwards (a seek) makes it stale at once.
    @Test func keptResultsAgeInStreamTime() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        _ = r.detect(chain, in: Self.frame, pts: Self.pts(0))  // faces
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(0.1)).engine == "people")
        s.face.withLock { $0 = true }
        _ = s.take()
        for t in [0.2, 0.5, 1.0] {
            #expect(r.detect(chain, in: Self.frame, pts: Self.pts(t)).engine == "cnn")
            #expect(s.take() == ["cnn"])
        }
        s.face.withLock { $0 = false }
        // 1.0 s after HOG's frame: still held (bodies' turn).
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(1.1)).engine == "people")
        #expect(s.take() == ["cnn", "bodies"])
        // 1.1 s after: stale; faces' turn finds nothing, saliency supplies.
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(1.2)).engine == "saliency")
        #expect(s.take() == ["cnn", "faces", "saliency"])
        // HOG again at 1.3; a seek back to 0.5 makes its result stale.
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(1.3)).engine == "people")
        #expect(r.detect(chain, in: Self.frame, pts: Self.pts(0.5)).engine == "saliency")
    }

    /// Without pts a kept result stands for one turn of the fallbacks (3 analyses here).
    @Test func withoutPtsAResultStandsForOneTurn() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        let engines = (0..<8).map { _ in r.detect(chain, in: Self.frame, pts: nil).engine }
        // people runs at analyses 2, 5, 8 and stands for 3 analyses each time.
        #expect(engines == ["saliency", "people", "people", "people", "people", "people", "people", "people"])
        // hold: a round of turns plus one analysis, at least 1 s.
        #expect(r.hold(round: 3) == 1)
        #expect(FallbackRotation(interval: 0.5).hold(round: 3) == 2)
        #expect(FallbackRotation(interval: 0.1).hold(round: 12) == 1.3)
    }

    /// A scripted search in `count` slices: slice i finds `box` when i is `hitSlice`; whole, it finds what its slices
    /// find together.
    struct Sliced: SlicedDetectionEngine {
        let name: String
        let script: Script
        let count: Int, hitSlice: Int
        let box: Box
        func detect(in image: RGBImage) -> [Detection] { detections(from: (0..<count).map { slice($0, in: image) }, width: 0, height: 0) }
        func sliceCount(width: Int, height: Int) -> Int { count }
        func slice(_ index: Int, in image: RGBImage) -> SearchSlice {
            script.calls.withLock { $0.append("\(name)#\(index)") }
            return SearchSlice(detections: index == hitSlice ? [Detection(box: box, confidence: 0.7, kind: .fullBody)] : [])
        }
        func detections(from slices: [SearchSlice], width: Int, height: Int) -> [Detection] { slices.flatMap(\.detections) }
    }

    /// Every fallback has a slot per slice in one schedule (faces 2, people 3, bodies 1 here): the sliced search's
    /// result is kept only once its last slice ran, from all its slices, and stands a whole round (6 slots).
    @Test func aSlicedFallbackTakesASlotPerSlice() {
        let s = Script()
        let chain: [any DetectionEngine] = [
            Scripted(name: "cnn", script: s), Sliced(name: "faces", script: s, count: 2, hitSlice: -1, box: Self.person),
            Sliced(name: "people", script: s, count: 3, hitSlice: 1, box: Self.person), Scripted(name: "bodies", script: s),
            Scripted(name: "saliency", script: s, finds: Self.salient),
        ]
        var r = FallbackRotation(interval: 0.1)
        var turns: [String?] = [], suppliers: [String?] = []
        for i in 0..<13 {
            suppliers.append(r.detect(chain, in: Self.frame, pts: Self.pts(0.1 * Double(i))).engine)
            turns.append(r.lastTurn)
            _ = s.take()
        }
        #expect(
            turns == [
                "faces 0/2", "faces 1/2", "people 0/3", "people 1/3", "people 2/3", "bodies", "faces 0/2", "faces 1/2", "people 0/3",
                "people 1/3", "people 2/3", "bodies", "faces 0/2",
            ])
        // people is whole at analysis 4 (its second slice found the person two analyses before) and is kept a round.
        #expect(suppliers == ["saliency", "saliency", "saliency", "saliency"] + Array(repeating: "people", count: 9))
    }

    /// `every: 3`: a turn on the first face-less analysis and every third after it; the analyses between run the cnn,
    /// and saliency only while no kept result stands (the person HOG found stands on them). Analyses with a face do
    /// not count; a round is `every` times the slots.
    @Test func everyThirdFacelessAnalysisTakesATurn() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1, every: 3)
        var runs: [[String]] = []
        for i in 0..<8 {
            if i == 4 { s.face.withLock { $0 = true } }
            if i == 5 { s.face.withLock { $0 = false } }
            _ = r.detect(chain, in: Self.frame, pts: Self.pts(0.1 * Double(i)))
            runs.append(s.take())
        }
        #expect(
            runs == [
                ["cnn", "faces", "saliency"], ["cnn", "saliency"], ["cnn", "saliency"], ["cnn", "people"], ["cnn"], ["cnn"], ["cnn"],
                ["cnn", "bodies"],
            ])
        // A round of 3 slots at 3 analyses a slot: 9 analyses, held (9 + 1) x 0.1 s.
        #expect(r.hold(round: 9) == 1)
        #expect(FallbackRotation(interval: 0.2, every: 3).hold(round: 9) == 2)
    }

    /// On a loaded machine analyses come further apart than `interval`: the hold follows the measured pts step (a
    /// quarter of each new step), so a kept person still stands until its fallback searched again. Pauses over 5 s
    /// and steps back are left out of the pace.
    @Test func theHoldFollowsTheMeasuredPace() {
        let s = Script()
        let chain = Self.chain(s)
        var r = FallbackRotation(interval: 0.1)
        #expect(r.pace == nil)
        var suppliers: [String?] = []
        for i in 0..<8 { suppliers.append(r.detect(chain, in: Self.frame, pts: Self.pts(0.4 * Double(i))).engine) }
        #expect(abs((r.pace ?? 0) - 0.4) < 1e-9)
        // people at 0.4 s stands (3 + 1) x 0.4 = 1.6 s, until it searches again at 1.6 s: never stale in between.
        #expect(suppliers == ["saliency"] + Array(repeating: "people", count: 7))
        #expect(r.hold(round: 3) > 1.59 && r.hold(round: 3) < 1.61)
        _ = r.detect(chain, in: Self.frame, pts: Self.pts(20))  // a pause: not a pace
        _ = r.detect(chain, in: Self.frame, pts: Self.pts(1))  // a seek: not a pace
        #expect(abs((r.pace ?? 0) - 0.4) < 1e-9)
        _ = r.detect(chain, in: Self.frame, pts: Self.pts(1.2))
        #expect(abs((r.pace ?? 0) - 0.35) < 1e-9)
    }

    /// The real chain compose builds for engine=auto without a face (the cnn when installed, the face cascades in
    /// their passes, HOG people in `slices`, the upper-body cascade, saliency) on vtest-1000 at 320x240: staggered,
    /// the walkers are the subject once the people search is whole, as with every fallback run, and stay it on the
    /// following analyses; no analysis runs more than one fallback, and one runs on every `every`-th.
    @Test(arguments: [(1, 1), (4, 1), (6, 2)]) func theStaggeredChainFindsTheWalkers(slices: Int, every: Int) throws {
        let image = PeopleEngineTests.resized(try TestImages.rgb("vtest-1000"), width: 320)
        var engines: [any DetectionEngine] = []
        if let cnn = try? CNNFaceEngine(threads: 1, minFace: 6) { engines.append(cnn) }
        engines += [try FaceEngine(minFace: 24, rotations: false), PeopleEngine(slices: slices), try BodyEngine(fullBody: false), SaliencyEngine()]
        let analyzer = CompositionAnalyzer(engines: engines, engine: "auto")
        let fallbacks = Array(analyzer.chain.dropFirst().dropLast())
        let slots = fallbacks.map { ($0 as? any SlicedDetectionEngine)?.sliceCount(width: image.width, height: image.height) ?? 1 }
        let people = try #require(fallbacks.firstIndex { $0.name == "people" })
        #expect(slots[people] == slices)
        // The face cascades (behind the cnn) are cut into their 3 passes: frontal, profile, mirrored profile.
        if fallbacks.first?.name == "faces" { #expect(slots[0] == 3) }
        let whole = analyzer.analyze(image)
        #expect(whole.engine == "people")
        var rotation = FallbackRotation(interval: 0.1, every: every)
        var smoother = GuidanceSmoother()
        var firstPeople: Int?, peopleSlices: [Int] = []
        let total = slots.reduce(0, +)
        for i in 0..<((total + 1) * every) {
            let g = analyzer.analyze(image, pts: UInt64(i) * 100_000_000, smoother: &smoother, rotation: &rotation)
            #expect(rotation.lastRun.count <= 3, "\(rotation.lastRun)")
            let ran = rotation.lastRun.filter { ["faces", "people", "bodies"].contains($0) }.count
            #expect(ran == (i % every == 0 ? 1 : 0), "analysis \(i): \(rotation.lastRun)")
            if rotation.lastRun.contains("people") { peopleSlices.append(rotation.lastSlice ?? -1) }
            if g.engine == "people" {
                if firstPeople == nil { firstPeople = i }
                #expect(g.detections.map(\.box) == whole.detections.map(\.box))
            } else {
                #expect(firstPeople == nil, "analysis \(i): \(g.engine ?? "none") after people")
            }
        }
        let first = try #require(firstPeople)
        // Whole at its last slot: after the slots of the fallbacks before it, a slot every `every` analyses.
        #expect(first == (slots[..<people].reduce(0, +) + slices - 1) * every)
        #expect(peopleSlices.prefix(slices) == (slices == 1 ? [-1] : Array(0..<slices))[...], "\(peopleSlices)")
        let walkers = try #require(PeopleEngineTests.pedestrians["vtest-1000"]).map { $0.scaled(320.0 / 768, 320.0 / 768) }
        #expect(PeopleEngineTests.score(whole.detections, walkers).found >= 2, "\(whole.detections)")
    }
}
