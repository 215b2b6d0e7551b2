/// Leading lines: the dominant straight lines of the frame (`LineFinder`) should run towards the subject.
///
/// Geometry is in the luma's pixels (so the frame's aspect counts), distances divided by the frame diagonal.
/// For each segment `A → B` found (the subject's own box does not vote) and the subject's centre `c`:
/// ```
/// dist     = distance from c to the segment's line, / diagonal
/// u        = position of c's projection along the segment (0 at A, 1 at B)
/// one side = u <= 0.25 or u >= 0.75   (three quarters of the segment or more lie before the subject: it
///                                      runs towards it, not across it)
/// strength = min(1, length / fullLength)               fullLength 0.5 of the diagonal
/// lead     = strength · max(0, 1 - dist / reach)       reach 0.2; 0 when not one-sided
/// score    = the best lead (0 without lines)
/// wellComposed = some one-sided segment with strength >= minStrength (0.5) and dist <= tolerance (0.05)
/// ```
/// Why: a tolerance of 5 % of the diagonal is 18 px at 320x180 and about half a face's width at portrait
/// distance; a leading line should cross at least a quarter of the diagonal (strength 0.5) to lead the eye;
/// the 0.2 reach lets the score rise as the subject nears a line (thirds' spirit: a slope, not a step).
///
/// Target: well composed, the subject's own projection on its leading line (hold). Otherwise, the
/// convergence point nearest to `c`: an intersection, inside the frame, of two segments of strength >= 0.3
/// that meet at 10° or more and both end near it (each one-sided of it, as above: lines running to a
/// vanishing point, not a grid's crossings); without one, the point of the strongest segment's line nearest
/// to `c` moved out of the segment's middle half (u outside 0.25...0.75), inside the frame.
/// Advice: "hold: the lines lead to the subject" (`lines.hold`), "place the subject where the lines meet:
/// move it up and left" (`lines.meet.<dir>`), "put the subject at the end of the line: move it left"
/// (`lines.line.<dir>`), "no strong lines in the frame" (`lines.none`, score 0, no target), "no pixels to
/// find lines in" (`lines.no-pixels`, no luma); no subject: `.noSubject`.
///
/// Marks are static per rule (`RuleMarks`) and the lines are per frame, so the rule has no marks; the
/// segments found travel in `details` instead: `lines` (count), `line<i>.x1`, `.y1`, `.x2`, `.y2`
/// (normalised ends), `line<i>.angle` (degrees, 0...180, counter-clockwise as seen), `line<i>.strength`,
/// `line<i>.distance` (to the subject, / diagonal), strongest first; `best` (index of the best lead, -1
/// none), `bestDistance`, `bestStrength`, `meetX`, `meetY` (the convergence point, when found), `targetX`,
/// `targetY`.
///
/// Cost (release, a 640x360 luma reduced to 320x180, finder and rule, seven photos, shared 2-core machine at
/// load ~9): median 1.5-3.8 ms, p90 under 10 ms (ARCHITECTURE.md "Look direction, portraits, leading lines").
public struct LinesRule: CompositionRule {
    /// `"lines"`.
    public let name = "lines"
    /// Distance (share of the diagonal) within which a line leads to the subject.
    public var tolerance: Double
    /// Strength a leading line needs for the frame to count as well composed.
    public var minStrength: Double
    /// Finds the segments.
    public var finder: LineFinder

    /// Creates the rule (tolerance 0.05, strength 0.5, the finder's defaults).
    public init(tolerance: Double = 0.05, minStrength: Double = 0.5, finder: LineFinder = LineFinder()) {
        self.tolerance = tolerance; self.minStrength = minStrength; self.finder = finder
    }

    /// Length (share of the diagonal) at which a segment has full strength.
    static let fullLength = 0.5
    /// Distance (share of the diagonal) at which a line's pull reaches 0.
    static let reach = 0.2

    /// A segment's relation to the subject.
    struct Lead {
        var dist: Double, u: Double, strength: Double
        var oneSided: Bool { u <= 0.25 || u >= 0.75 }
        var value: Double { oneSided ? strength * max(0, 1 - dist / LinesRule.reach) : 0 }
    }

    /// Judges how the lines lead to the subject, as documented on the type.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let s = input.subject, let c = input.subjectCenter else { return .noSubject(rule: name) }
        guard let luma = input.luma else {
            return RuleResult(
                rule: name, score: 0, wellComposed: false, target: nil, direction: .zero,
                advice: "no pixels to find lines in", adviceKey: "lines.no-pixels")
        }
        let segments = finder.segments(in: luma, ignoring: s)
        let space = Space(width: Double(luma.width), height: Double(luma.height))
        let leads = segments.map { space.lead(of: c, on: $0) }
        var details: [String: Double] = ["lines": Double(segments.count), "best": -1]
        for (i, (seg, lead)) in zip(segments, leads).enumerated() {
            details["line\(i).x1"] = seg.from.x; details["line\(i).y1"] = seg.from.y
            details["line\(i).x2"] = seg.to.x; details["line\(i).y2"] = seg.to.y
            details["line\(i).angle"] = seg.angle; details["line\(i).strength"] = lead.strength
            details["line\(i).distance"] = lead.dist
        }
        guard !segments.isEmpty else {
            return RuleResult(
                rule: name, score: 0, wellComposed: false, target: nil, direction: .zero,
                advice: "no strong lines in the frame", adviceKey: "lines.none", details: details)
        }
        let best = leads.indices.max { leads[$0].value < leads[$1].value } ?? 0
        let score = leads[best].value
        if score > 0 {
            details["best"] = Double(best); details["bestDistance"] = leads[best].dist
            details["bestStrength"] = leads[best].strength
        }
        let well = leads.contains { $0.oneSided && $0.strength >= minStrength && $0.dist <= tolerance }
        let meet = space.meeting(segments, near: c)
        if let meet { details["meetX"] = meet.x; details["meetY"] = meet.y }
        let target: Point2D, advice: String, key: String
        if well {
            let i = leads.indices.filter { leads[$0].oneSided && leads[$0].strength >= minStrength && leads[$0].dist <= tolerance }
                .max { leads[$0].value < leads[$1].value } ?? best
            target = space.point(on: segments[i], at: leads[i].u)
            (advice, key) = ("hold: the lines lead to the subject", "lines.hold")
        } else if let meet {
            target = meet
            let dir = MoveDirection(Vector2D(from: c, to: meet))
            (advice, key) = (
                "place the subject where the lines meet" + (dir.map { ": move it \($0.phrase)" } ?? ""),
                "lines.meet." + (dir?.rawValue ?? "here")
            )
        } else {
            // The strongest segment is the first (the finder sorts by votes).
            let u = leads[0].u < 0.5 ? min(leads[0].u, 0.25) : max(leads[0].u, 0.75)
            target = space.point(on: segments[0], at: u).clamped
            let dir = MoveDirection(Vector2D(from: c, to: target))
            (advice, key) = (
                "put the subject at the end of the line" + (dir.map { ": move it \($0.phrase)" } ?? ""),
                "lines.line." + (dir?.rawValue ?? "here")
            )
        }
        details["targetX"] = target.x; details["targetY"] = target.y
        return RuleResult(
            rule: name, score: score, wellComposed: well, target: target, direction: Vector2D(from: c, to: target),
            advice: advice, adviceKey: key, details: details)
    }

    /// Normalised points measured in the luma's pixels.
    struct Space {
        var width: Double, height: Double
        var diag: Double { (width * width + height * height).squareRoot() }

        func px(_ p: Point2D) -> (Double, Double) { (p.x * width, p.y * height) }

        /// `c`'s distance to `s`'s line (/ diagonal), its position along `s`, and `s`'s strength.
        func lead(of c: Point2D, on s: LineFinder.Segment) -> Lead {
            let (ax, ay) = px(s.from), (bx, by) = px(s.to), (x, y) = px(c)
            let dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy
            let u = l2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / l2 : 0
            let dist = l2 > 0 ? abs((x - ax) * dy - (y - ay) * dx) / l2.squareRoot() / diag : 1
            return Lead(dist: dist, u: u, strength: min(1, s.length / LinesRule.fullLength))
        }

        /// The point at `u` along `s` (0 at `from`, 1 at `to`), normalised.
        func point(on s: LineFinder.Segment, at u: Double) -> Point2D {
            Point2D(x: s.from.x + u * (s.to.x - s.from.x), y: s.from.y + u * (s.to.y - s.from.y))
        }

        /// The convergence point nearest to `c` (see the type), nil when no pair converges in the frame.
        func meeting(_ segments: [LineFinder.Segment], near c: Point2D) -> Point2D? {
            let strong = segments.filter { min(1, $0.length / LinesRule.fullLength) >= 0.3 }
            var best: Point2D?, bestDistance = Double.infinity
            for i in strong.indices {
                for j in strong.indices where j > i {
                    guard let p = intersection(strong[i], strong[j]), (0...1).contains(p.x), (0...1).contains(p.y),
                        lead(of: p, on: strong[i]).oneSided, lead(of: p, on: strong[j]).oneSided
                    else { continue }
                    let d = Space.distance(p, c, self)
                    if d < bestDistance { best = p; bestDistance = d }
                }
            }
            return best
        }

        /// Where the lines of `a` and `b` cross, normalised; nil when they meet at less than 10°.
        func intersection(_ a: LineFinder.Segment, _ b: LineFinder.Segment) -> Point2D? {
            var d = abs(a.angle - b.angle)
            d = min(d, 180 - d)
            guard d >= 10 else { return nil }
            let (ax, ay) = px(a.from), (bx, by) = px(a.to), (cx, cy) = px(b.from), (dx, dy) = px(b.to)
            let r = (bx - ax, by - ay), s = (dx - cx, dy - cy)
            let den = r.0 * s.1 - r.1 * s.0
            guard abs(den) > 1e-9 else { return nil }
            let t = ((cx - ax) * s.1 - (cy - ay) * s.0) / den
            return Point2D(x: (ax + t * r.0) / width, y: (ay + t * r.1) / height)
        }

        /// Distance between two normalised points in pixels.
        static func distance(_ p: Point2D, _ q: Point2D, _ space: Space) -> Double {
            let dx = (p.x - q.x) * space.width, dy = (p.y - q.y) * space.height
            return (dx * dx + dy * dy).squareRoot()
        }
    }
}

extension Point2D {
    /// The point moved into the unit square.
    var clamped: Point2D { Point2D(x: max(0, min(1, x)), y: max(0, min(1, y))) }
}
