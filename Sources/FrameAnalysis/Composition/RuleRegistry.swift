/// The composition rules `rule=` can name. Adding a rule: write a `CompositionRule` type and append an
/// instance to `builtIn`; `auto`, the analyzer, the stage's property listing and compose's drawing (the
/// rule's `marks`) pick it up from here.
public enum RuleRegistry {
    /// The rules that ship, in listing order.
    public static let builtIn: [any CompositionRule] = [
        ThirdsRule(), CenterRule(), GoldenRule(), PortraitRule(), LinesRule(), HorizonRule(), EdgesRule(), ExposureRule(),
    ]

    /// Rules added for the current task by `withRegistered` (after the built-in ones).
    @TaskLocal private static var added: [any CompositionRule] = []

    /// Every registered rule, in listing order: the built-in ones, then any added by `withRegistered`.
    public static var all: [any CompositionRule] { added.isEmpty ? builtIn : builtIn + added }

    /// Names accepted by `rule=`: `auto` followed by every registered rule.
    public static var names: [String] { ["auto"] + all.map(\.name) }

    /// The rule called `name` (`auto` builds an `AutoRule` over the registry); nil for unknown names.
    public static func rule(named name: String) -> (any CompositionRule)? {
        if name == "auto" { return AutoRule() }
        return all.first { $0.name == name }
    }

    /// Runs `body` with `rules` registered too: inside it (on this task and the tasks it starts) they are
    /// listed, named by `rule=` and drawn like built-in rules; afterwards the registry is as before. Scoped
    /// rather than process-wide, so code running beside it (parallel tests) keeps seeing the built-in list.
    public static func withRegistered<R>(_ rules: [any CompositionRule], _ body: () throws -> R) rethrows -> R {
        try $added.withValue(added + rules) { try body() }
    }
}
