import Foundation

/// The exposure figures of one analysed frame, as `ExposureRule` measures them (and as compose publishes
/// them in its meta, its `viewfinder/composition` message and its JSON lines).
public struct ExposureFigures: Sendable, Equatable, Codable {
    /// Mean luma (0...255, gamma-encoded as in the frame) inside the subject box.
    public var subjectLuma: Double
    /// Mean luma (0...255) of the frame outside the subject box (the whole frame's when the box covers it).
    public var backgroundLuma: Double
    /// Share (0...1) of the frame's pixels at luma 250 or more: clipped highlights.
    public var clipped: Double
    /// The subject's exposure offset in stops: `log2(linear subject mean / target)`; negative is under-exposed.
    public var stops: Double

    /// Creates figures.
    public init(subjectLuma: Double, backgroundLuma: Double, clipped: Double, stops: Double) {
        self.subjectLuma = subjectLuma; self.backgroundLuma = backgroundLuma; self.clipped = clipped; self.stops = stops
    }

    /// The figures in a rule's details: `subject-luma`, `background-luma`, `clipped`, `stops` after `prefix`
    /// (`""` for `rule=exposure`, `"exposure."` inside `auto`'s details); nil unless all four are there.
    public init?(details: [String: Double], prefix: String = "") {
        guard let s = details[prefix + "subject-luma"], let b = details[prefix + "background-luma"],
            let c = details[prefix + "clipped"], let e = details[prefix + "stops"]
        else { return nil }
        self.init(subjectLuma: s, backgroundLuma: b, clipped: c, stops: e)
    }
}

/// Exposure as a photographer reads it: is the subject itself well exposed, is it lit from behind, do the
/// highlights clip? Read from the analysis frame's luma and the subject box; the rule has no target (the
/// fix is light or the camera's exposure, not moving the subject) and draws nothing.
///
/// Each luma value `Y` (0...255) is taken to linear light with the sRGB curve, `lin(Y)`; means in linear
/// light are what a light meter reads (a few bright pixels weigh as much light as they carry).
/// ```
/// subjectLinear = mean lin(Y) in the subject box     backgroundLinear = mean lin(Y) outside it
/// stops    = log2(subjectLinear / target)            target = 0.29 (luma 147)
/// contrast = log2(backgroundLinear / subjectLinear)  (how many stops brighter the surroundings are)
/// clipped  = share of the frame with Y >= 250        subjectClipped = the same inside the box
/// ```
/// Verdict, first that applies:
/// 1. backlit: `contrast >= 1.5` and `stops < -0.5` -> "subject backlit: face the light or add fill
///    light" (`exposure.backlit`);
/// 2. `stops < -1` -> "subject too dark: turn towards the light" (`exposure.too-dark`);
/// 3. `stops > 1` or `subjectClipped > 0.25` -> "subject too bright: step out of direct light"
///    (`exposure.too-bright`);
/// 4. `clipped > 0.05` -> "highlights clip: expose less or reframe"
///    (`exposure.clipping`);
/// 5. otherwise well exposed: "the subject is well exposed" (`exposure.good`).
/// The lines are short on purpose: in `auto` they follow the framing advice on the same overlay line,
/// which is drawn on one row and cut at the frame's right edge.
///
/// Why these thresholds:
/// - target 0.29 (two thirds of a stop over 18 % middle grey, luma 147): photographers place skin and a
///   typical subject there (zone VI), not at middle grey; the well-exposed face of scikit-image's
///   `astronaut` measures +0.4 against it, and a darker subject still reads as exposed within 1 stop.
/// - ±1 stop: the range a camera's exposure compensation is set in and that an 8-bit JPEG carries without
///   losing the subject's tones; real, well-exposed scenes spread about ±0.5 stop around the target, so a
///   narrower band would nag good photos, and a wider one would pass a subject two stops off.
/// - backlit at 1.5 stops (2.8 x the light) with the subject under by more than half a stop: the bright
///   surroundings pulled the camera's meter down; bright surroundings behind a well-exposed subject are
///   no fault (clipping may still be), and a dark subject before a dark background is just "too dark".
/// - clip level 250: within 2 % of full scale, where camera tone curves and JPEG have flattened the
///   detail; 5 % of the frame: a lamp or a specular highlight is smaller, a blown sky or wall is larger.
/// - subject clipped 25 %: a quarter of the subject blown is burnt skin even when hair and eyes keep the
///   mean under +1 stop.
/// Score: `max(0, 1 - |stops| / 3)` (0 three stops off), times `max(0, 1 - (clipped - 0.05) / 0.25)` when
/// `clipped > 0.05`. Details: `subject-luma`, `background-luma`, `clipped`, `stops` (see `ExposureFigures`),
/// `contrast`, `subject-clipped`. Without luma the rule passes with `exposure.no-luma` (nothing to read).
///
/// In `auto` it is a note (`RuleRole.note`): see `AutoRule` for how its advice joins the others.
public struct ExposureRule: CompositionRule {
    /// `"exposure"`.
    public let name = "exposure"
    /// A note: in `auto`, its advice is added to the others without changing the framing verdict.
    public var role: RuleRole { .note }
    /// Linear-light level the subject's mean should have.
    public var target: Double
    /// Stops under the target from which the subject is too dark (negative).
    public var darkStops: Double
    /// Stops over the target from which the subject is too bright.
    public var brightStops: Double
    /// Stops by which the surroundings must outshine the subject to call it backlit.
    public var backlitContrast: Double
    /// Stops under the target the subject must also be to call it backlit (negative).
    public var backlitStops: Double
    /// Luma at and above which a pixel counts as clipped.
    public var clipLevel: UInt8
    /// Share of the frame clipped from which highlights clip.
    public var clipShare: Double
    /// Share of the subject clipped from which the subject is too bright.
    public var subjectClipShare: Double

    /// Creates the rule with the documented thresholds by default.
    public init(
        target: Double = 0.29, darkStops: Double = -1, brightStops: Double = 1, backlitContrast: Double = 1.5,
        backlitStops: Double = -0.5, clipLevel: UInt8 = 250, clipShare: Double = 0.05, subjectClipShare: Double = 0.25
    ) {
        self.target = target; self.darkStops = darkStops; self.brightStops = brightStops
        self.backlitContrast = backlitContrast; self.backlitStops = backlitStops; self.clipLevel = clipLevel
        self.clipShare = clipShare; self.subjectClipShare = subjectClipShare
    }

    /// sRGB decoding of every 8-bit level to linear light (0...1).
    static let linear: [Double] = (0...255).map {
        let v = Double($0) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Sums over the subject box and the rest of the frame, in one pass over the luma.
    struct Sums {
        var inside = 0, outside = 0, insideClipped = 0, outsideClipped = 0
        var insideLuma = 0.0, outsideLuma = 0.0, insideLinear = 0.0, outsideLinear = 0.0
    }

    /// Measures the luma inside the box `[x0, x1) x [y0, y1)` and outside it.
    static func sums(_ luma: GrayImage, x0: Int, y0: Int, x1: Int, y1: Int, clipLevel: UInt8) -> Sums {
        var s = Sums()
        let lin = linear
        for y in 0..<luma.height {
            let row = y * luma.width, rowInside = y >= y0 && y < y1
            for x in 0..<luma.width {
                let v = luma.pixels[row + x]
                let clip = v >= clipLevel ? 1 : 0
                if rowInside && x >= x0 && x < x1 {
                    s.inside += 1; s.insideClipped += clip; s.insideLuma += Double(v); s.insideLinear += lin[Int(v)]
                } else {
                    s.outside += 1; s.outsideClipped += clip; s.outsideLuma += Double(v); s.outsideLinear += lin[Int(v)]
                }
            }
        }
        return s
    }

    /// Judges the subject's exposure, as documented on the type.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard let box = input.subject else { return .noSubject(rule: name) }
        guard let luma = input.luma, luma.width > 0, luma.height > 0 else {
            return RuleResult(
                rule: name, score: 1, wellComposed: true, target: nil, direction: .zero,
                advice: "no pixels to judge the exposure", adviceKey: "exposure.no-luma")
        }
        let w = luma.width, h = luma.height
        // The box in luma pixels, at least one pixel, inside the frame.
        let x0 = max(0, min(w - 1, Int((box.x * Double(w)).rounded(.down))))
        let y0 = max(0, min(h - 1, Int((box.y * Double(h)).rounded(.down))))
        let x1 = max(x0 + 1, min(w, Int(((box.x + box.width) * Double(w)).rounded(.up))))
        let y1 = max(y0 + 1, min(h, Int(((box.y + box.height) * Double(h)).rounded(.up))))
        let s = Self.sums(luma, x0: x0, y0: y0, x1: x1, y1: y1, clipLevel: clipLevel)
        let n = Double(s.inside), total = Double(s.inside + s.outside)
        // A subject filling the frame has no surroundings: they are taken to be the subject's own.
        let m = s.outside > 0 ? Double(s.outside) : n
        let subjectLinear = s.insideLinear / n
        let backgroundLinear = s.outside > 0 ? s.outsideLinear / m : subjectLinear
        // A black subject would be -inf stops: floor at 1/1000 of full scale (about -8 stops).
        let floor = 1e-3
        let stops = log2(max(floor, subjectLinear) / target)
        let contrast = log2(max(floor, backgroundLinear) / max(floor, subjectLinear))
        let clipped = Double(s.insideClipped + s.outsideClipped) / total
        let subjectClipped = Double(s.insideClipped) / n
        let figures = ExposureFigures(
            subjectLuma: s.insideLuma / n, backgroundLuma: s.outside > 0 ? s.outsideLuma / m : s.insideLuma / n,
            clipped: clipped, stops: stops)
        let details: [String: Double] = [
            "subject-luma": figures.subjectLuma, "background-luma": figures.backgroundLuma, "clipped": clipped,
            "stops": stops, "contrast": contrast, "subject-clipped": subjectClipped,
        ]
        var score = max(0, 1 - abs(stops) / 3)
        if clipped > clipShare { score *= max(0, 1 - (clipped - clipShare) / 0.25) }
        let advice: String, key: String
        if contrast >= backlitContrast && stops < backlitStops {
            advice = "subject backlit: face the light or add fill light"; key = "exposure.backlit"
        } else if stops < darkStops {
            advice = "subject too dark: turn towards the light"; key = "exposure.too-dark"
        } else if stops > brightStops || subjectClipped > subjectClipShare {
            advice = "subject too bright: step out of direct light"; key = "exposure.too-bright"
        } else if clipped > clipShare {
            advice = "highlights clip: expose less or reframe"; key = "exposure.clipping"
        } else {
            advice = "the subject is well exposed"; key = "exposure.good"
        }
        return RuleResult(
            rule: name, score: score, wellComposed: key == "exposure.good", target: nil, direction: .zero,
            advice: advice, adviceKey: key, details: details)
    }
}

extension Guidance {
    /// The exposure figures of this verdict: from `rule=exposure`'s details, or from `auto`'s
    /// (`exposure.`-prefixed); nil when exposure was not measured (no subject, no luma, another rule).
    public var exposure: ExposureFigures? {
        ExposureFigures(details: details) ?? ExposureFigures(details: details, prefix: "exposure.")
    }
}
