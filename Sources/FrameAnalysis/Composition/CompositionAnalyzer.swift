/// Analyses one (small) frame: detect candidates, choose the subject, judge the composition.
///
/// Steps, each timed into `Guidance.timings`:
/// 1. `luma`: the frame's luma (for rules that read pixels).
/// 2. `detect`: the engine chain. `engine = "auto"` tries `engines` in the order given (pass faces, then
///    bodies) and then saliency (a default `SaliencyEngine` is appended when none is in the list); the
///    first engine that finds anything supplies the candidates. Any other value runs only the engine
///    with that name. With a `FallbackRotation` (compose on a stream), `auto` runs its first engine and at
///    most one fallback per analysis, keeping the fallbacks' results for a while of stream time (see there).
/// 3. `select`: `SubjectSelector` picks the subject among that engine's detections; faces (or bodies)
///    standing together compete as one `.group` candidate (`SubjectGrouping`), so the subject of a
///    group photo is the group: its union box is smoothed, judged by the rule (at its size-weighted
///    centre, `Detection.anchor`), drawn, and cropped around by capture. `detections` keeps the single faces.
/// 4. `smooth` (only with a smoother): EWMA on the subject box, so the rule judges the steady box.
/// 5. `rule`: the rule (for example `AutoRule`, `ThirdsRule`) on the normalised subject box, the frame
///    size, the luma, and the subject's eyes (moved with the box when smoothed) and look direction; its verdict fills the guidance. With a smoother, advice hysteresis and the lock
///    follow (`GuidanceSmoother.stabilize`).
///
/// Boxes are in the analysed image's pixels (`Guidance.subject`) and normalised
/// (`Guidance.subjectNormalized`); analyse a downscaled frame (e.g. 320 px wide) and map back with
/// `Guidance.subjectBox(width:height:)`.
public struct CompositionAnalyzer: Sendable {
    /// Engines available to `engine`, in `auto` priority order.
    public var engines: [any DetectionEngine]
    /// `auto` or the name of one engine.
    public var engine: String
    /// The rule that judges the composition.
    public var rule: any CompositionRule
    /// Chooses the subject among candidates.
    public var selector: SubjectSelector

    /// Creates an analyzer.
    public init(
        engines: [any DetectionEngine] = [], engine: String = "auto", rule: any CompositionRule = AutoRule(),
        selector: SubjectSelector = SubjectSelector()
    ) {
        self.engines = engines; self.engine = engine; self.rule = rule; self.selector = selector
    }

    /// The engines `analyze` tries, in order, for the current `engine` setting.
    public var chain: [any DetectionEngine] {
        let hasSaliency = engines.contains { $0.name == "saliency" }
        if engine == "auto" { return engines + (hasSaliency ? [] : [SaliencyEngine()]) }
        let named = engines.filter { $0.name == engine }
        if named.isEmpty && engine == "saliency" { return [SaliencyEngine()] }
        return named
    }

    /// Analyses one frame without smoothing.
    public func analyze(_ image: RGBImage, pts: UInt64? = nil) -> Guidance {
        var none: GuidanceSmoother?
        var whole: FallbackRotation?
        return run(image, pts: pts, smoother: &none, rotation: &whole)
    }

    /// Analyses one frame of a stream: the subject box is smoothed before the rule judges it, then
    /// advice hysteresis and the lock are applied (see `GuidanceSmoother`).
    public func analyze(_ image: RGBImage, pts: UInt64? = nil, smoother: inout GuidanceSmoother) -> Guidance {
        var s: GuidanceSmoother? = smoother
        var whole: FallbackRotation?
        defer { smoother = s! }
        return run(image, pts: pts, smoother: &s, rotation: &whole)
    }

    /// Analyses one frame of a stream as `analyze(_:pts:smoother:)` does, with `auto`'s fallbacks spread over
    /// analyses by `rotation` (one fallback per analysis without a face; see `FallbackRotation`).
    public func analyze(
        _ image: RGBImage, pts: UInt64? = nil, smoother: inout GuidanceSmoother, rotation: inout FallbackRotation
    ) -> Guidance {
        var s: GuidanceSmoother? = smoother
        var r: FallbackRotation? = rotation
        defer {
            smoother = s!
            rotation = r!
        }
        return run(image, pts: pts, smoother: &s, rotation: &r)
    }

    private func run(
        _ image: RGBImage, pts: UInt64?, smoother: inout GuidanceSmoother?, rotation: inout FallbackRotation?
    ) -> Guidance {
        let clock = ContinuousClock()
        var timings: [Guidance.Timing] = []
        timings.reserveCapacity(5)
        var t = clock.now
        func lap(_ step: String) {
            let now = clock.now
            let d = (now - t).components
            timings.append(Guidance.Timing(step: step, ms: Double(d.seconds) * 1000 + Double(d.attoseconds) / 1e15))
            t = now
        }
        let w = image.width, h = image.height
        let luma = image.gray
        lap("luma")

        var found: [Detection] = [], engineName: String?
        if rotation != nil && engine == "auto" {
            (found, engineName) = rotation!.detect(chain, in: image, pts: pts)
        } else {
            for e in chain {
                let d = e.detect(in: image)
                if !d.isEmpty { found = d; engineName = e.name; break }
            }
        }
        lap("detect")

        var subject = selector.select(found, frameWidth: w, frameHeight: h)?.detection
        let measured = subject?.box
        lap("select")

        if smoother != nil {
            if let b = smoother!.smooth(subject?.box, frameWidth: w, frameHeight: h) { subject?.box = b }
            lap("smooth")
        }

        var g = Guidance(
            pts: pts, frameWidth: w, frameHeight: h, subject: subject, engine: engineName,
            detections: found, rule: rule.name)
        g.measuredBox = measured
        let sx = 1 / Double(max(1, w)), sy = 1 / Double(max(1, h))
        let members = (subject?.members ?? []).map { $0.scaled(sx, sy) }
        // The eyes keep their place inside the box when the smoother moved it (as `anchor` does).
        var eyes = subject?.eyes
        if let e = eyes, let from = measured, let to = subject?.box { eyes = Self.moved(e, from: from, to: to) }
        let input = RuleInput(
            subject: g.subjectNormalized, frameWidth: w, frameHeight: h, luma: luma, anchor: subject?.anchor, members: members,
            eyes: eyes?.scaled(sx, sy), look: subject?.look, kind: subject?.kind)
        g.apply(rule.evaluate(input))
        if smoother != nil { g = smoother!.stabilize(g) }
        lap("rule")
        g.timings = timings
        return g
    }

    /// `eyes` measured in box `from`, kept at the same place relative to the box when it became `to` (the
    /// smoothed box): `to.x + (e.x - from.x) · to.width / from.width`, and likewise vertically.
    static func moved(_ eyes: Detection.Eyes, from: Box, to: Box) -> Detection.Eyes {
        guard from != to, from.width > 0, from.height > 0 else { return eyes }
        func map(_ p: Point2D) -> Point2D {
            Point2D(x: to.x + (p.x - from.x) * to.width / from.width, y: to.y + (p.y - from.y) * to.height / from.height)
        }
        return Detection.Eyes(left: map(eyes.left), right: map(eyes.right))
    }
}
