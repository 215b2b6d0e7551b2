/// Picks the subject among an engine's detections.
///
/// Each candidate's box, normalised to the frame (`a` = its area share `w·h / (W·H)`, `c` its centre):
/// ```
/// confidence = detection.confidence, clamped to 0...1                               weight 0.4
/// coverage   = a < low  ? a / low                                                    weight 0.3
///            : a <= high ? 1
///            : max(0, (1 - a) / (1 - high))          sweet spot low = 0.03 ... high = 0.20
/// thirds     = max(0, 1 - d / (√2/3)),  d = distance from c to the nearest thirds point   weight 0.2
/// edgeSafety = min(1, m / 0.1),  m = smallest gap between the box and a frame edge          weight 0.1
/// total      = 0.4·confidence + 0.3·coverage + 0.2·thirds + 0.1·edgeSafety
/// ```
/// The sweet spot: a face or object filling 3 % to 20 % of the frame reads as the subject of a photo
/// (a head-and-shoulders portrait at 320x180 has a face of ~45 px, 3.5 %); smaller ones are
/// background people, linearly less likely; larger ones fill the frame, linearly less useful up to a
/// box covering everything. The best total wins; ties go to the earlier candidate (engines list
/// their best first).
///
/// Before scoring, `grouping` (when set, by default `SubjectGrouping()`) replaces faces or bodies that
/// stand together by one `.group` candidate (union box, mean confidence, see `SubjectGrouping`): the
/// group is scored like any detection, its members do not compete on their own. A lone face, or a
/// small face far from the others, stays a candidate by itself.
public struct SubjectSelector: Sendable {
    /// Weight of the detection's confidence.
    public var confidenceWeight: Double
    /// Weight of the area-share (coverage) term.
    public var coverageWeight: Double
    /// Weight of closeness to a thirds point.
    public var thirdsWeight: Double
    /// Weight of the distance from the frame border.
    public var edgeWeight: Double
    /// Lower end of the coverage sweet spot (area share).
    public var sweetSpotLow: Double
    /// Upper end of the coverage sweet spot (area share).
    public var sweetSpotHigh: Double
    /// Border gap (normalised) from which a box counts as fully safe.
    public var safeGap: Double
    /// Makes people standing together one candidate; nil scores every detection alone.
    public var grouping: SubjectGrouping?

    /// Creates a selector with the documented weights (0.4, 0.3, 0.2, 0.1), sweet spot 0.03...0.20 and
    /// safe gap 0.1, grouping on (`SubjectGrouping()`).
    public init(
        confidenceWeight: Double = 0.4, coverageWeight: Double = 0.3, thirdsWeight: Double = 0.2,
        edgeWeight: Double = 0.1, sweetSpotLow: Double = 0.03, sweetSpotHigh: Double = 0.20, safeGap: Double = 0.1,
        grouping: SubjectGrouping? = SubjectGrouping()
    ) {
        self.confidenceWeight = confidenceWeight; self.coverageWeight = coverageWeight
        self.thirdsWeight = thirdsWeight; self.edgeWeight = edgeWeight
        self.sweetSpotLow = sweetSpotLow; self.sweetSpotHigh = sweetSpotHigh; self.safeGap = safeGap
        self.grouping = grouping
    }

    /// One candidate's score and its parts (each part 0...1, before weighting).
    public struct Score: Sendable, Equatable {
        /// The detection's confidence, clamped.
        public var confidence: Double
        /// Area-share term.
        public var coverage: Double
        /// Closeness-to-thirds term.
        public var thirds: Double
        /// Edge-safety term.
        public var edgeSafety: Double
        /// Weighted sum.
        public var total: Double
    }

    /// Scores one detection (box in pixels of a `frameWidth` x `frameHeight` frame).
    public func score(_ d: Detection, frameWidth: Int, frameHeight: Int) -> Score {
        let fw = Double(max(1, frameWidth)), fh = Double(max(1, frameHeight))
        let b = Box(x: d.box.x / fw, y: d.box.y / fh, width: d.box.width / fw, height: d.box.height / fh)
        let conf = max(0, min(1, d.confidence))
        let a = min(1, b.area)
        let coverage: Double
        if a < sweetSpotLow {
            coverage = a / sweetSpotLow
        } else if a <= sweetSpotHigh {
            coverage = 1
        } else {
            coverage = max(0, (1 - a) / (1 - sweetSpotHigh))
        }
        let c = Point2D(x: b.x + b.width / 2, y: b.y + b.height / 2)
        let thirds = ThirdsRule.targets.score(distance: ThirdsRule.targets.nearest(to: c).distance)
        let gap = max(0, min(b.x, b.y, 1 - b.x - b.width, 1 - b.y - b.height))
        let edge = min(1, gap / safeGap)
        let total = confidenceWeight * conf + coverageWeight * coverage + thirdsWeight * thirds + edgeWeight * edge
        return Score(confidence: conf, coverage: coverage, thirds: thirds, edgeSafety: edge, total: total)
    }

    /// The best candidate and its score (a `.group` when the winner is people standing together); nil
    /// when there are none.
    public func select(_ candidates: [Detection], frameWidth: Int, frameHeight: Int) -> (detection: Detection, score: Score)? {
        var best: (detection: Detection, score: Score)?
        for d in grouping?.candidates(candidates) ?? candidates {
            let s = score(d, frameWidth: frameWidth, frameHeight: frameHeight)
            if best.map({ s.total > $0.score.total }) ?? true { best = (d, s) }
        }
        return best
    }
}
