import Host

/// `launch`'s arguments put in the order the parser wants: options first, then the description.
///
/// A description may span several arguments (like gst-launch-1.0), and no description token starts
/// with `-`, so options written after it (`launch 'a ! b' --set grid.lines=golden`) are recognised and
/// moved before it. `-h`/`--help` anywhere asks for help.
enum LaunchArguments {
    /// What the command line asks for.
    enum Outcome: Equatable {
        /// Arguments for the parser (`launch`, options, description).
        case arguments([String])
        /// Print `launch`'s help.
        case help
    }

    /// Options that take a value (`--set x=y` or `--set=x=y`).
    static let valued: Set<String> = ["--set", "--queue", "--queue-size", "--http", "--token", "--config", "--mqtt", "--topic", "--reconnect-attempts",
        "--mqtt-username", "--mqtt-password-file", "--mqtt-cafile", "--mqtt-cert", "--mqtt-key", "--discovery",
    ]
    /// Flags.
    static let flags: Set<String> = ["--print-expanded", "--dry-run", "--progress", "-m", "--messages", "--quiet", "--save-settings", "--reconnect", "--no-reconnect"]
    /// What a valued option looks like, for "needs a value".
    static let example = [
        "--set": "--set target.prop=value", "--queue": "--queue auto|leaky|lossless", "--queue-size": "--queue-size N",
        "--http": "--http HOST:PORT", "--token": "--token TOKEN", "--config": "--config FILE", "--mqtt": "--mqtt HOST:PORT",
        "--topic": "--topic TOPIC", "--reconnect-attempts": "--reconnect-attempts N", "--mqtt-username": "--mqtt-username NAME",
        "--mqtt-password-file": "--mqtt-password-file FILE", "--mqtt-cafile": "--mqtt-cafile FILE", "--mqtt-cert": "--mqtt-cert FILE",
        "--mqtt-key": "--mqtt-key FILE", "--discovery": "--discovery homeassistant",
    ]
    /// The options as listed in errors.
    static let listing =
        "--print-expanded, --dry-run, --progress, -m/--messages, --queue auto|leaky|lossless, --queue-size N, --set target.prop=value, --quiet, --http HOST:PORT, --token TOKEN, --config FILE, --save-settings, --mqtt HOST:PORT, --topic TOPIC, --mqtt-username NAME, --mqtt-password-file FILE, --mqtt-cafile FILE, --mqtt-cert FILE, --mqtt-key FILE, --discovery homeassistant, --reconnect, --no-reconnect, --reconnect-attempts N, -h/--help"

    /// Reorders `arguments` (all after the program name). Arguments of other subcommands pass unchanged.
    static func normalize(_ arguments: [String]) throws(HostError) -> Outcome {
        guard arguments.first == "launch" else { return .arguments(arguments) }
        var options: [String] = []
        var description: [String] = []
        var i = 1
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            // After "--" everything is description (an escape hatch gst-launch does not need, kept for safety).
            if a == "--" { description += arguments[i...]; break }
            guard a.hasPrefix("-"), a.count > 1 else { description.append(a); continue }
            if a == "-h" || a == "--help" { return .help }
            if flags.contains(a) { options.append(a); continue }
            let key = String(a.split(separator: "=", maxSplits: 1)[0])
            guard valued.contains(key) else {
                throw HostError(.usage, "unknown option '\(a)' for launch: options are \(listing) (before or after the description)")
            }
            if key != a { options.append(a); continue }
            guard i < arguments.count, !(valued.contains(arguments[i]) || flags.contains(arguments[i])) else {
                throw HostError(
                    .usage,
                    "option '\(a)' needs a value: \(example[a] ?? a + " VALUE")"
                )
            }
            options += [a, arguments[i]]
            i += 1
        }
        return .arguments(["launch"] + options + description)
    }
}
