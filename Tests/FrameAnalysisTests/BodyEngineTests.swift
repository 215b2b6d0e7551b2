import Testing

@testable import FrameAnalysis

/// The bodies engine on a frame of opencv-doc's pedestrian video (`vtest.avi` at 4 s, extracted by
/// launch/testdata).
@Suite struct BodyEngineTests {
    /// Pedestrians in vtest-0100 (768x576), annotated by eye: two men talking, the man walking behind
    /// them, the couple walking right, and the person at the right edge.
    static let pedestrians = [
        Box(x: 374, y: 176, width: 30, height: 84), Box(x: 396, y: 182, width: 26, height: 82),
        Box(x: 437, y: 192, width: 26, height: 82), Box(x: 566, y: 232, width: 40, height: 100),
        Box(x: 600, y: 230, width: 36, height: 96), Box(x: 738, y: 288, width: 30, height: 104),
    ]

    /// A detection is a pedestrian when it covers at least half of an annotated person (of the person's
    /// upper half for upper-body detections) and is not more than 8 times the person's size.
    static func isPedestrian(_ d: Detection) -> Bool {
        pedestrians.contains { person in
            let p = d.kind == .upperBody ? Box(x: person.x, y: person.y, width: person.width, height: person.height / 2) : person
            let ix = max(0, min(p.x + p.width, d.box.x + d.box.width) - max(p.x, d.box.x))
            let iy = max(0, min(p.y + p.height, d.box.y + d.box.height) - max(p.y, d.box.y))
            return ix * iy >= 0.5 * p.area && d.box.area <= 8 * p.area
        }
    }

    @Test func findsAtLeastTwoPedestrians() throws {
        let engine = try BodyEngine()
        #expect(engine.name == "bodies")
        let found = engine.detect(in: try TestImages.rgb("vtest-0100"))
        let people = found.filter(Self.isPedestrian)
        #expect(people.count >= 2, "\(found.map { "\($0.kind.rawValue) \($0.box)" })")
        // The two strongest detections are people: the walking couple (upper body) and the two men (full body).
        #expect(found.count >= 2 && found.prefix(2).allSatisfy(Self.isPedestrian))
        #expect(Set(found.prefix(2).map(\.kind)) == [.upperBody, .fullBody])
        #expect(found.allSatisfy { $0.confidence > 0 && $0.confidence <= 1 })
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
    }

    @Test func nothingOnAFlatFrame() throws {
        #expect(try BodyEngine().detect(luma: GrayImage(width: 320, height: 240, value: 90)).isEmpty)
    }
}
