/// `rule=auto`: applies the placement rule the subject is closest to satisfying, and says which.
///
/// Every placement rule (thirds, center, golden, ...) is evaluated; the one with the highest score wins
/// (ties go to the earlier rule in the list). Its result is returned with the advice prefixed by the
/// rule's name ("thirds: move the subject up and left"), so the user knows which rule is guiding.
/// Then every check (edges, horizon) is evaluated; the first one that fails overrides the advice, key,
/// and (when it has one) the target and direction: a cut subject or a tilted horizon matters more than
/// fine placement. The score becomes the minimum of the placement score and every failing check's
/// score, and `wellComposed` requires the placement and every check to pass. Checks that only report
/// "no subject" are ignored. `rule` stays the chosen placement rule's name.
/// Then every note (exposure) is evaluated: a failing note's advice is appended after the framing advice,
/// separated by "; " ("thirds: move the subject left; exposure: subject too dark: turn towards the light"),
/// and its key after "+" ("thirds.move.left+exposure.too-dark", so hysteresis sees the change). A note
/// never changes the score, `wellComposed`, the target or the direction: light and the camera's exposure
/// are not fixed by moving the subject, and a capture waiting for a well-composed frame must not be held
/// back (or triggered) by them; the framing advice comes first because it is what the user acts on while
/// aiming. Notes that only report "no subject" or have nothing to read are silent.
/// Details: the chosen rule's details, plus `<rule>.score` for every rule evaluated and
/// `<check>.<detail>` for every check's and note's details (`exposure.stops`, ...).
public struct AutoRule: CompositionRule {
    /// `"auto"`.
    public let name = "auto"
    /// Candidates, in tie-breaking order.
    public var placements: [any CompositionRule]
    /// Checks that can override the advice, in priority order.
    public var checks: [any CompositionRule]
    /// Notes whose advice is added after the framing advice, in order.
    public var notes: [any CompositionRule]

    /// Picks from the registry's placement rules, with the registry's checks.
    public init(from rules: [any CompositionRule] = RuleRegistry.all) {
        placements = rules.filter { $0.role == .placement }
        checks = rules.filter { $0.role == .check }
        notes = rules.filter { $0.role == .note }
    }

    /// Picks from explicit lists.
    public init(placements: [any CompositionRule], checks: [any CompositionRule], notes: [any CompositionRule] = []) {
        self.placements = placements; self.checks = checks; self.notes = notes
    }

    /// Evaluates every candidate, check and note, as documented on the type.
    public func evaluate(_ input: RuleInput) -> RuleResult {
        guard !placements.isEmpty else { return .noSubject(rule: name) }
        let results = placements.map { $0.evaluate(input) }
        var best = results[0]
        for r in results.dropFirst() where r.score > best.score { best = r }
        var out = best
        for r in results { out.details["\(r.rule).score"] = r.score }
        if input.subject != nil { out.advice = "\(best.rule): \(best.advice)" }
        var checksPass = true, overridden = false
        for check in checks {
            let r = check.evaluate(input)
            out.details["\(r.rule).score"] = r.score
            for (k, v) in r.details { out.details["\(r.rule).\(k)"] = v }
            // A subject check has nothing to say without a subject; the placement already says so.
            if r.wellComposed || r.adviceKey.hasSuffix(".no-subject") { continue }
            checksPass = false
            out.score = min(out.score, r.score)
            guard !overridden else { continue }
            overridden = true
            out.advice = "\(r.rule): \(r.advice)"
            out.adviceKey = r.adviceKey
            if let t = r.target { out.target = t; out.direction = r.direction }
        }
        out.wellComposed = best.wellComposed && checksPass
        for note in notes {
            let r = note.evaluate(input)
            out.details["\(r.rule).score"] = r.score
            for (k, v) in r.details { out.details["\(r.rule).\(k)"] = v }
            if r.wellComposed || r.adviceKey.hasSuffix(".no-subject") { continue }
            out.advice += "; \(r.rule): \(r.advice)"
            out.adviceKey += "+\(r.adviceKey)"
        }
        return out
    }
}
