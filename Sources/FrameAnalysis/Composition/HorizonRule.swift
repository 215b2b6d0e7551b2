import Foundation

/// Level horizon: finds the dominant near-horizontal straight line in the luma and asks to level the
/// camera when it tilts by more than `maxTilt` (2°).
///
/// Line finding (`HorizonRule.dominantLine`), on the luma reduced by box averaging to at most 320 px wide,
/// ignoring pixels within 3 % of the frame's sides (letterbox bars and lens-correction borders are
/// frame edges, not horizons):
/// 1. Sobel gradients `gx`, `gy`; edge pixels have L1 magnitude `|gx| + |gy| >= max(40, 2 · mean)` and
///    a near-horizontal edge direction, `|atan(gx/gy)| <= searchRange + 3°`.
/// 2. Hough transform over line angle `β ∈ [-searchRange, +searchRange]` (15°) in 0.5° steps and offset
///    `ρ = -x·sin β + y·cos β` (1 px bins, x and y from the image centre); each edge pixel votes only
///    for angles within 3° of its own edge direction.
/// 3. The strongest cell's inliers (|ρ - ρ*| <= 1.5 px, edge direction within 5°) are refitted by least
///    squares `y = a + b·x`, giving the angle `atan(b)` to a fraction of a degree.
/// 4. The line counts only if its inliers cover at least `minCoverage` (50 %) of the frame's columns.
///
/// The ±15° range and 50 % coverage keep perspective lines out: on opencv-doc basketball1 a floor line
/// at -13° covering 40 % of the width would otherwise ask for a 13° roll. Edge pixels inside the
/// subject's box do not vote: a horizon is a background feature, and a subject's own lines (the
/// chessboard held tilted in opencv-doc left02) say nothing about the camera's roll.
///
/// Angles are reported as seen: `angle > 0` when the line rises to the right (counter-clockwise tilt).
/// A camera rolled clockwise shows the world turned counter-clockwise, so the fix for `angle > 0` is to
/// rotate the camera counter-clockwise by `angle`, and clockwise for `angle < 0`:
/// ```
/// tilted = |angle| > maxTilt           wellComposed = !tilted
/// score = max(0, 1 - |angle| / 10°)    (1 when no line is found)
/// advice: "level the camera: rotate 3.5 degrees clockwise" | "the horizon is level" | "no horizon line found"
/// ```
/// No target point (direction zero). Details: `found` (0/1), `angle` (degrees, + = rising to the right),
/// `coverage` (0...1), `y` (normalised height where the line crosses the vertical centre line),
/// `tilted` (0/1).
public struct HorizonRule: CompositionRule {
    /// `"horizon"`.
    public let name = "horizon"
    /// A check: in `auto`, a tilted horizon overrides the placement advice.
    public var role: RuleRole { .check }
    /// Tilt (degrees) above which the camera should be levelled.
    public var maxTilt: Double
    /// Largest line angle (degrees either way) still taken for a horizon.
    public var searchRange: Double
    /// Share of the frame's columns the line must cover.
    public var minCoverage: Double

    /// Creates the rule (2°, ±15°, 50 % by default).
    public init(maxTilt: Double = 2, searchRange: Double = 15, minCoverage: Double = 0.5) {
        self.maxTilt = maxTilt; self.searchRange = searchRange; self.minCoverage = minCoverage
    }

    /// A straight line found in the luma.
    public struct Line: Sendable, Equatable {
        /// Degrees; positive when the line rises to the right (counter-clockwise as seen).
        public var angle: Double
        /// Normalised height (0 top, 1 bottom) where the line crosses the frame's vertical centre line.
        public var y: Double
        /// Share of the frame's columns covered by the line's pixels, 0...1.
        public var coverage: Double
    }

    /// Judges the tilt of the dominant line.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let luma = input.luma,
            let line = Self.dominantLine(luma, searchRange: searchRange, minCoverage: minCoverage, ignoring: input.subject)
        else {
            return RuleResult(
                rule: name, score: 1, wellComposed: true, target: nil, direction: .zero,
                advice: "no horizon line found", adviceKey: "horizon.none",
                details: ["found": 0, "angle": 0, "coverage": 0, "y": 0, "tilted": 0])
        }
        let tilt = abs(line.angle)
        let tilted = tilt > maxTilt
        let advice: String, key: String
        if tilted {
            let way = line.angle > 0 ? "counter-clockwise" : "clockwise"
            advice = "level the camera: rotate \(String(format: "%.1f", tilt)) degrees \(way)"
            key = line.angle > 0 ? "horizon.rotate.ccw" : "horizon.rotate.cw"
        } else {
            advice = "the horizon is level"; key = "horizon.level"
        }
        return RuleResult(
            rule: name, score: max(0, 1 - tilt / 10), wellComposed: !tilted, target: nil, direction: .zero,
            advice: advice, adviceKey: key,
            details: ["found": 1, "angle": line.angle, "coverage": line.coverage, "y": line.y, "tilted": tilted ? 1 : 0])
    }

    /// The dominant near-horizontal line of a luma image, or nil when none covers `minCoverage` of the
    /// width (see the type's documentation for the method).
    /// Edge pixels inside `ignoring` (a normalised box, e.g. the subject) do not vote.
    public static func dominantLine(
        _ image: GrayImage, searchRange: Double = 15, minCoverage: Double = 0.5,
        ignoring: Box? = nil
    ) -> Line? {
        let luma = reduced(image, maxWidth: 320)
        let w = luma.width, h = luma.height
        guard w >= 16, h >= 16 else { return nil }
        // Pixels within 3 % of a side (at least 2) are ignored: letterbox bars, vignetting and
        // lens-correction borders are frame edges, not horizons.
        let bx = max(2, w * 3 / 100), by = max(2, h * 3 / 100)
        // 1. Sobel, L1 magnitude |gx| + |gy|.
        let sobel = Sobel(luma, marginX: bx, marginY: by)
        let gxs = sobel.gx, gys = sobel.gy
        let threshold = Int32(max(40, 2 * sobel.meanMagnitude))
        let window = 3.0, step = 0.5
        let maxSlope = tan((searchRange + window) * Double.pi / 180)
        // Edge pixels: (x, y) from the centre, their edge angle (degrees, image coordinates, y down), column.
        var ex: [Double] = [], ey: [Double] = [], eb: [Double] = [], ecol: [Int] = []
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        let skip = ignoring.map {
            (
                x0: Int($0.x * Double(w)), y0: Int($0.y * Double(h)),
                x1: Int((($0.x + $0.width) * Double(w)).rounded(.up)),
                y1: Int((($0.y + $0.height) * Double(h)).rounded(.up))
            )
        }
        for y in by..<(h - by) {
            for x in bx..<(w - bx) {
                if let k = skip, x >= k.x0, x < k.x1, y >= k.y0, y < k.y1 { continue }
                let i = y * w + x
                let gx = gxs[i], gy = gys[i]
                guard abs(gx) + abs(gy) >= threshold, gy != 0 else { continue }
                let slope = -Double(gx) / Double(gy)  // dy/dx of the edge line, y down
                guard abs(slope) <= maxSlope else { continue }
                ex.append(Double(x) - cx); ey.append(Double(y) - cy); eb.append(atan(slope) * 180 / Double.pi); ecol.append(x)
            }
        }
        guard ex.count >= Int(minCoverage * Double(w)) else { return nil }
        // 2. Hough accumulator; ρ is shifted by rhoMax + 0.5 so truncation rounds.
        let nb = Int((2 * searchRange / step).rounded()) + 1
        let sinT = (0..<nb).map { sin((-searchRange + Double($0) * step) * Double.pi / 180) }
        let cosT = (0..<nb).map { cos((-searchRange + Double($0) * step) * Double.pi / 180) }
        let rhoMax = Int((Double(w * w + h * h).squareRoot() / 2).rounded(.up)) + 2
        let nr = 2 * rhoMax + 1
        let shift = Double(rhoMax) + 0.5
        var acc = [Int32](repeating: 0, count: nb * nr)
        let reach = Int(window / step)
        for e in 0..<ex.count {
            let centre = Int((eb[e] + searchRange) / step + 0.5 + Double(reach)) - reach
            let x = ex[e], y = ey[e]
            for bi in max(0, centre - reach)...min(nb - 1, centre + reach) {
                acc[bi * nr + Int(-x * sinT[bi] + y * cosT[bi] + shift)] += 1
            }
        }
        var best = 0, bestVotes: Int32 = -1
        for i in 0..<acc.count where acc[i] > bestVotes { bestVotes = acc[i]; best = i }
        let bi = best / nr, rhoStar = Double(best % nr - rhoMax)
        let betaStar = -searchRange + Double(bi) * step
        // 3. Least-squares refit of the inliers, 4. coverage.
        var covered = [Bool](repeating: false, count: w)
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for e in 0..<ex.count where abs(eb[e] - betaStar) <= 5 {
            let rho = -ex[e] * sinT[bi] + ey[e] * cosT[bi]
            guard abs(rho - rhoStar) <= 1.5 else { continue }
            covered[ecol[e]] = true
            n += 1; sx += ex[e]; sy += ey[e]; sxx += ex[e] * ex[e]; sxy += ex[e] * ey[e]
        }
        let coverage = Double(covered.reduce(0) { $0 + ($1 ? 1 : 0) }) / Double(w)
        guard coverage >= minCoverage, n >= 2 else { return nil }
        let den = n * sxx - sx * sx
        guard den > 0 else { return nil }
        let b = (n * sxy - sx * sy) / den
        let a = (sy - b * sx) / n
        return Line(angle: -atan(b) * 180 / Double.pi, y: (a + cy) / Double(h - 1), coverage: coverage)
    }

    /// Box-averages by the smallest integer factor that brings the width to `maxWidth` or less.
    static func reduced(_ g: GrayImage, maxWidth: Int) -> GrayImage {
        let f = (g.width + maxWidth - 1) / maxWidth
        guard f > 1 else { return g }
        let w = g.width / f, h = g.height / f
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0
                for j in 0..<f { for i in 0..<f { s += Int(g.pixels[(y * f + j) * g.width + x * f + i]) } }
                out[y * w + x] = UInt8(s / (f * f))
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
