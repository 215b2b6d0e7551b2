@_exported import Logging

/// The one way library modules report: swift-log `Logger`s, one label per module, whose backend the process
/// chooses once (`LoggingSystem.bootstrap`): the CLI prints the lines users read exactly as they are
/// (`ConsoleLogHandler`), the GStreamer plugin sends every line to GStreamer's debug log (a category per
/// label), a library user gets swift-log's default or whatever it bootstraps. Library code never writes to
/// stdout or stderr itself.
///
/// A line meant for the user as it is ("saved photos/IMG_00001.jpg (auto)", "WARNING from stage ...") is
/// logged with `Logger.say`, which marks it with `Log.consoleKey`; everything else is a plain log line
/// (`Log.host.debug(...)`), which the CLI shows only from `VIEWFINDER_LOG`'s level up.
public enum Log {
    /// The labels, one per module: `viewfinder.<module>`.
    public enum Label {
        public static let host = "viewfinder.host"
        public static let stages = "viewfinder.stages"
        public static let control = "viewfinder.control"
        public static let analysis = "viewfinder.analysis"
        public static let plugin = "viewfinder.plugin"
    }

    /// Metadata key of a line the user reads as it is; its value is the `Console` stream it belongs on.
    public static let consoleKey = "viewfinder.console"
    /// Metadata key of what ends such a line when it is not a newline (a progress line: "" after "\r[...]").
    public static let terminatorKey = "viewfinder.terminator"

    // Loggers are made on each use (cheap: the lines are few), so one made before the process bootstraps its
    // backend can never keep swift-log's default handler.

    /// `Host`: sessions, supervision, preview, settings.
    public static var host: Logger { Logger(label: Label.host) }
    /// `Stages`: the stages and their files (photos, metadata).
    public static var stages: Logger { Logger(label: Label.stages) }
    /// `Control`: the HTTP API and the MQTT bridge.
    public static var control: Logger { Logger(label: Label.control) }
    /// `FrameAnalysis`: engines and detectors.
    public static var analysis: Logger { Logger(label: Label.analysis) }
    /// `ViewfinderPlugin`: the GStreamer plugin's own lines.
    public static var plugin: Logger { Logger(label: Label.plugin) }
}

/// The stream a user-facing line belongs on.
public enum Console: String, Sendable {
    case standardError = "stderr"
    case standardOutput = "stdout"
}

extension Logger {
    /// Logs `message`, a line the user reads as it is: the CLI prints exactly `message` and `terminator` on
    /// `console` (standard error unless told); other backends log it at `level` like any other line. Use `.info`
    /// or above (the CLI passes nothing below `.info` for these): `.info` for what happened ("saved ..."),
    /// `.notice` for the run's own news, `.warning`/`.error` for problems.
    public func say(
        _ level: Logger.Level, _ message: @autoclosure () -> String, on console: Console = .standardError, terminator: String = "\n",
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        var marks: Logger.Metadata = [Log.consoleKey: .string(console.rawValue)]
        if terminator != "\n" { marks[Log.terminatorKey] = .string(terminator) }
        log(level: level, "\(message())", metadata: marks, file: file, function: function, line: line)
    }
}

extension LogEvent {
    /// The stream of a `say` line, nil for a plain log line.
    public var console: Console? {
        guard case .string(let s)? = metadata?[Log.consoleKey] else { return nil }
        return Console(rawValue: s)
    }

    /// What ends a `say` line: a newline unless it said otherwise.
    public var terminator: String {
        guard case .string(let s)? = metadata?[Log.terminatorKey] else { return "\n" }
        return s
    }
}
