import Stages

/// Makes the session's `RecordingsService` when its description has `recordings` elements (it claims that element;
/// each becomes a splitmuxsink before planning: `RecordingsElement.spec`).
struct RecordingsFactory: ServiceFactory {
    var elements: [ServiceElementSpec] { [RecordingsElement.spec] }

    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        let claims = build.claims(of: RecordingsElement.factory)
        guard !claims.isEmpty else { return [] }
        let plans = try RecordingsElement.plans(claims)
        let recorders = zip(plans, claims).map { plan, claim in
            let start = claim.replacement?.properties.first { $0.key == "start-index" }.flatMap { Int($0.value) } ?? 0
            return Recorder(plan: plan, startIndex: start, clock: build.options.clock)
        }
        return [RecordingsService(recorders: recorders, clock: build.options.clock)]
    }
}

extension Session {
    /// The recorders of the `recordings` elements, in description order.
    public var recorders: [Recorder] { services(RecordingsService.self).first?.recorders ?? [] }
}
