import Stages
import Synchronization

/// Every stage's current property values in a session: the validated description (+ overrides), then each
/// change that took while playing; and the hook told of those changes.
///
/// Threads and locks: two mutexes, each taken alone and briefly; any thread.
final class PropertyStore: Sendable {
    private let values: Mutex<[String: [String: PropertyValue]]>
    let changeHook = Mutex<(@Sendable (String, [(String, PropertyValue)]) -> Void)?>(nil)

    /// The values of every stage of `plan` as planned (stages whose properties do not validate are left out:
    /// the builder refused them already).
    init(plan: ExpansionPlan) {
        var current: [String: [String: PropertyValue]] = [:]
        for g in plan.groups {
            for p in g.stages {
                guard let t = StageRegistry.type(of: p.kind),
                    let v = try? PropertyValues(
                        specs: t.descriptor.properties, assignments: p.properties.map { ($0.key, $0.value) }, stage: p.name)
                else { continue }
                current[p.name] = Dictionary(
                    uniqueKeysWithValues: t.descriptor.properties.compactMap { s in v.value(named: s.name).map { (s.name, $0) } })
            }
        }
        values = Mutex(current)
    }

    /// The current values of stage `name`, nil for an unknown stage.
    func values(ofStage name: String) -> [String: PropertyValue]? { values.withLock { $0[name] } }

    /// Records one change that took.
    func set(_ value: PropertyValue, of property: String, stage name: String) {
        values.withLock { $0[name, default: [:]][property] = value }
    }
}
