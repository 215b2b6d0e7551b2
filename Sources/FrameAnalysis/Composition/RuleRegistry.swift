/// The composition rules `rule=` can name. Adding a rule: write a `CompositionRule` type and append an
/// instance to `all`; `auto`, the analyzer and the stage's property listing pick it up from here.
public enum RuleRegistry {
    /// Every registered rule, in listing order.
    public static let all: [any CompositionRule] = [
        ThirdsRule(), CenterRule(), GoldenRule(), HorizonRule(), EdgesRule(),
    ]

    /// Names accepted by `rule=`: `auto` followed by every registered rule.
    public static var names: [String] { ["auto"] + all.map(\.name) }

    /// The rule called `name` (`auto` builds an `AutoRule` over the registry); nil for unknown names.
    public static func rule(named name: String) -> (any CompositionRule)? {
        if name == "auto" { return AutoRule() }
        return all.first { $0.name == name }
    }
}
