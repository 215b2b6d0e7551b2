/// Central, symmetric composition: the subject's centre on the frame's centre, and the picture
/// mirror-symmetric about the vertical centre line.
///
/// ```
/// d = |c - (0.5, 0.5)|                      wellComposed = d < tolerance (0.15)
/// position = max(0, 1 - d / √0.5)           (√0.5: centre-to-corner distance, so a corner scores 0)
/// symmetry = max(0, ncc(L(x, y), L(W-1-x, y)))  over the left half, x < W/2
/// score = 0.7 · position + 0.3 · symmetry   (position alone when no luma is given)
/// ```
/// `ncc` is the normalised cross-correlation (Pearson) between the left half of the luma and the
/// mirrored right half: 1 for a mirror-symmetric picture, about 0 for unrelated halves, independent of
/// brightness and contrast; two flat halves count as symmetric (1). Luma is read on every
/// `ceil(W/160)`-th column and row, so the cost stays under 160 x 90 pairs.
/// Placement dominates the score (the subject must be centred to count), symmetry adds up to 0.3.
/// Details: `distance`, `position`, `symmetry` (-1 when no luma was given).
public struct CenterRule: CompositionRule {
    /// `"center"`.
    public let name = "center"
    /// Distance under which the frame counts as well composed.
    public var tolerance: Double
    /// Weight of the symmetry term (position gets `1 - symmetryWeight`).
    public var symmetryWeight: Double

    /// The frame's centre, and the vertical and horizontal centre lines.
    public var marks: RuleMarks {
        RuleMarks(points: [Point2D(x: 0.5, y: 0.5)], lines: [.vertical(x: 0.5), .horizontal(y: 0.5)])
    }

    /// Creates the rule (tolerance 0.15, symmetry weight 0.3 by default).
    public init(tolerance: Double = 0.15, symmetryWeight: Double = 0.3) {
        self.tolerance = tolerance; self.symmetryWeight = symmetryWeight
    }

    /// Scores centring and mirror symmetry.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let c = input.subjectCenter else { return .noSubject(rule: name) }
        let p = Point2D(x: 0.5, y: 0.5)
        let d = c.distance(to: p)
        let position = max(0, 1 - d / 0.5.squareRoot())
        var score = position
        var details = ["distance": d, "position": position, "symmetry": -1.0]
        if let luma = input.luma {
            let s = Self.symmetry(luma)
            details["symmetry"] = s
            score = (1 - symmetryWeight) * position + symmetryWeight * s
        }
        let (advice, key) = TargetPoints.advice(
            rule: name, from: c, to: p, tolerance: tolerance,
            hold: "hold: the subject is centred")
        return RuleResult(
            rule: name, score: score, wellComposed: d < tolerance, target: p,
            direction: Vector2D(from: c, to: p), advice: advice, adviceKey: key, details: details)
    }

    /// Mirror symmetry about the vertical centre line: `max(0, ncc(left half, mirrored right half))`.
    public static func symmetry(_ luma: GrayImage) -> Double {
        let w = luma.width, h = luma.height
        guard w >= 2, h >= 1 else { return 1 }
        let step = max(1, (w + 159) / 160)
        var n = 0.0, sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
        var y = 0
        while y < h {
            let row = y * w
            var x = 0
            while x < w / 2 {
                let a = Double(luma.pixels[row + x]), b = Double(luma.pixels[row + w - 1 - x])
                n += 1; sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b
                x += step
            }
            y += step
        }
        let va = saa - sa * sa / n, vb = sbb - sb * sb / n, cov = sab - sa * sb / n
        let eps = 1e-6 * n
        if va <= eps && vb <= eps { return 1 }
        if va <= eps || vb <= eps { return 0 }
        return max(0, min(1, cov / (va * vb).squareRoot()))
    }
}
