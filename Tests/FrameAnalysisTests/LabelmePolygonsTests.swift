import Foundation
import Testing

@testable import FrameAnalysis

/// Rasterising labelme polygons.
@Suite struct LabelmePolygonsTests {
    @Test func aSquareAndATriangleFillTheirPixelCentres() throws {
        let json = """
            {"shapes": [
              {"label": "person", "points": [[2, 2], [6, 2], [6, 5], [2, 5]], "shape_type": "polygon"},
              {"label": "person", "points": [[4, 3], [9, 3], [9, 6]], "shape_type": "polygon"},
              {"label": "bottle", "points": [[0, 0], [1, 0], [1, 1]], "shape_type": "polygon"}],
             "imageWidth": 10, "imageHeight": 8}
            """
        let p = try LabelmePolygons(json: Data(json.utf8))
        #expect(p.width == 10 && p.height == 8 && p.shapes.count == 3)
        let m = p.mask(label: "person")
        // The square covers the centres x 2...5, y 2...4: 12 pixels. The triangle covers rows 3 (x 5...8), 4 (x 6...8;
        // the centre 6.5 lies on the diagonal: a left edge includes its centres) and 5 (x 8): 8, one shared.
        #expect(m[2 * 10 + 2] && m[4 * 10 + 5] && !m[5 * 10 + 2] && !m[2 * 10 + 6])
        #expect(m[3 * 10 + 8] && m[5 * 10 + 8] && !m[5 * 10 + 5] && !m[6 * 10 + 8])
        #expect(m.filter { $0 }.count == 12 + 7)
        #expect(p.mask(label: "bottle") == (0..<80).map { $0 == 0 })  // its diagonal runs through centre (0.5, 0.5)
        #expect(p.mask(label: "dog").allSatisfy { !$0 })
    }

    @Test func theRealAnnotationsCoverTheirPeople() throws {
        let url = TestImages.directory.appendingPathComponent("keying/2011_000006.json")
        let json = try #require(FileManager.default.contents(atPath: url.path), "run launch/testdata")
        let p = try LabelmePolygons(json: json)
        #expect(p.width == 500 && p.height == 375)
        #expect(p.shapes.filter { $0.label == "person" }.count == 4)
        // labelme's own export of this file (SegmentationClassNpy) counts 34 816 person pixels; its rasteriser
        // (PIL) differs from pixel centres only along the outlines.
        let n = p.mask(label: "person").filter { $0 }.count
        #expect(abs(n - 34_816) < 600, "\(n)")
    }
}
