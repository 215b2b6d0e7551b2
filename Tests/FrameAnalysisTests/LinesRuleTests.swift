import Foundation
import Testing

@testable import FrameAnalysis

/// Leading lines: the finder on a real photo against lines measured by hand, and the rule on a drawn pair
/// of converging lines whose vanishing point is known.
@Suite struct LinesRuleTests {
    /// 320x180, grey 40, two bright lines (antialiased, ~3 px wide) from the bottom corners towards the
    /// vanishing point (200, 60), stopping 85 % of the way there (18 px short of it, as rails or a road's
    /// edges fade before the horizon).
    static func converging() -> GrayImage {
        let w = 320, h = 180
        var g = GrayImage(width: w, height: h, value: 40)
        let vp = (200.0, 60.0)
        for start in [(10.0, 175.0), (310.0, 175.0)] {
            let end = (start.0 + 0.85 * (vp.0 - start.0), start.1 + 0.85 * (vp.1 - start.1))
            let dx = end.0 - start.0, dy = end.1 - start.1, l2 = dx * dx + dy * dy
            for y in 0..<h {
                for x in 0..<w {
                    let u = max(0, min(1, ((Double(x) - start.0) * dx + (Double(y) - start.1) * dy) / l2))
                    let px = start.0 + u * dx - Double(x), py = start.1 + u * dy - Double(y)
                    let v = 40 + 180 * max(0, 1 - (px * px + py * py).squareRoot() / 1.5)
                    g[x, y] = max(g[x, y], UInt8(v.rounded()))
                }
            }
        }
        return g
    }

    /// The vanishing point, normalised the finder's way (pixel centres).
    static let vanishing = Point2D(x: 200.5 / 320, y: 60.5 / 180)

    static func input(_ centre: Point2D, luma: GrayImage? = converging()) -> RuleInput {
        RuleInput(
            subject: Box(x: centre.x - 12.0 / 320, y: centre.y - 12.0 / 180, width: 24.0 / 320, height: 24.0 / 180),
            frameWidth: 320, frameHeight: 180, luma: luma)
    }

    @Test func findsTheTwoDrawnLinesAtTheirAngles() {
        let s = LineFinder().segments(in: Self.converging())
        #expect(s.count == 2, "\(s)")
        // Left line: direction (190, -115) as drawn: atan(115/190) = 31.18° rising to the right; right line
        // (-110, -115): 180° - atan(115/110) = 133.73°. Lengths 0.85 · 222.1 and 0.85 · 159.1 px of a 367.2 px
        // diagonal: 0.514 and 0.368.
        let left = s.first { $0.angle < 90 }, right = s.first { $0.angle > 90 }
        #expect(abs((left?.angle ?? 0) - 31.18) < 1, "\(s)")
        #expect(abs((right?.angle ?? 0) - 133.73) < 1, "\(s)")
        #expect(abs((left?.length ?? 0) - 0.514) < 0.03 && abs((right?.length ?? 0) - 0.368) < 0.03, "\(s)")
    }

    @Test func aSubjectAtTheVanishingPointIsLedTo() {
        let r = LinesRule().evaluate(Self.input(Self.vanishing))
        #expect(r.wellComposed && r.adviceKey == "lines.hold" && r.advice == "hold: the lines lead to the subject")
        #expect(r.score > 0.95, "\(r.score) \(r.details)")
        #expect(r.details["lines"] == 2 && r.details["bestDistance"]! < 0.01)
        // Where the two lines meet: within 3 px of (200, 60).
        let meet = Point2D(x: r.details["meetX"]!, y: r.details["meetY"]!)
        #expect(abs(meet.x - Self.vanishing.x) * 320 < 3 && abs(meet.y - Self.vanishing.y) * 180 < 3, "\(meet)")
    }

    @Test func aSubjectAwayFromTheLinesIsSentWhereTheyMeet() {
        // (80, 40): 79 px from the left line and 73 px from the right one (0.22 and 0.20 of the diagonal).
        let r = LinesRule().evaluate(Self.input(Point2D(x: 80.5 / 320, y: 40.5 / 180)))
        #expect(!r.wellComposed && r.score < 0.05, "\(r.score) \(r.details)")
        #expect(r.adviceKey == "lines.meet.right" && r.advice == "place the subject where the lines meet: move it right")
        let t = r.target!
        #expect(abs(t.x - Self.vanishing.x) * 320 < 3 && abs(t.y - Self.vanishing.y) * 180 < 3, "\(t)")
        // On the left line but across its middle: close, yet not led to (the line runs past it).
        let across = LinesRule().evaluate(Self.input(Point2D(x: 105.5 / 320, y: 117.5 / 180)))
        #expect(!across.wellComposed && across.score == 0, "\(across.details)")
    }

    @Test func linesOfARealPhotoWhereMeasuredByHand() throws {
        // opencv-doc left01.jpg (640x480), measured on its pixels: two of the chessboard's column edges, the
        // largest step of a 5-row average on rows 100, 150, 200 and 250, at x = 371.5...373.5 and 406.5...407.5
        // (vertical); the bottom row edge, the largest step of a 3-column average within rows 275...315 on the
        // 29 columns 240, 250, ... 520 (zigzagging ±2 px at the squares' corners), fitted by least squares:
        // y = 287.0 at x = 280 and 298.8 at x = 475, falling to the right by 0.0603: 176.5°.
        let s = LineFinder().segments(in: try TestImages.rgb("left01").gray)
        #expect(s.count == 6, "\(s)")
        for x in [372.5, 407.0] {
            let v = s.first { abs($0.angle - 90) < 1.5 && abs(($0.from.x + $0.to.x) / 2 * 640 - 0.5 - x) < 2 }
            #expect(v != nil && v!.length > 0.25, "x \(x): \(s)")
        }
        let row = s.first { seg in
            guard abs(seg.angle - 176.5) < 1 else { return false }
            // The segment's row at columns 280 and 475 (pixel indices: normalised = (index + 0.5) / size).
            let y = { (x: Double) in
                let u = ((x + 0.5) / 640 - seg.from.x) / (seg.to.x - seg.from.x)
                return (seg.from.y + u * (seg.to.y - seg.from.y)) * 480 - 0.5
            }
            return abs(y(280) - 287.0) < 2.5 && abs(y(475) - 298.8) < 2.5
        }
        #expect(row != nil, "\(s)")
        // No line along the photo's black top rows (the margin), none shorter than 10 % of the diagonal.
        #expect(s.allSatisfy { min($0.from.y, $0.to.y) > 0.03 && $0.length >= 0.1 }, "\(s)")
    }

    @Test func withoutPixelsLinesOrSubject() {
        let none = LinesRule().evaluate(Self.input(Self.vanishing, luma: nil))
        #expect(none.adviceKey == "lines.no-pixels" && none.advice == "no pixels to find lines in" && none.score == 0)
        let flat = LinesRule().evaluate(Self.input(Self.vanishing, luma: GrayImage(width: 320, height: 180, value: 90)))
        #expect(flat.adviceKey == "lines.none" && flat.advice == "no strong lines in the frame" && flat.target == nil)
        #expect(LinesRule().evaluate(RuleInput(subject: nil, frameWidth: 320, frameHeight: 180, luma: Self.converging()))
            == .noSubject(rule: "lines"))
        #expect(LinesRule().marks == .none)
    }

    @Test func largeLumaIsReducedAndFindsTheSameLines() {
        // The drawing doubled to 640x360 (the analysis-width-640 case): box-averaged back to 320x180 first.
        let big = Self.converging().resized(width: 640, height: 360)
        let r = LinesRule().evaluate(Self.input(Self.vanishing, luma: big))
        #expect(r.wellComposed && r.details["lines"] == 2, "\(r.details)")
    }
}
