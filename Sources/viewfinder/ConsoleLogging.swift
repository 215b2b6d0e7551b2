import Diagnostics

/// The CLI's logging backend (`Diagnostics.ConsoleLogHandler`), installed once, first thing in `main()`: the
/// library's `say` lines ("saved ...", "WARNING from stage ...", "mqtt: connected to ...") are printed exactly as
/// they are, on the stream they name; other log lines from `VIEWFINDER_LOG`'s level up (warning by default).
enum ConsoleLogging {
    /// Bootstraps swift-log (at most once per process: `main()` calls it before anything logs).
    static func install() { LoggingSystem.bootstrap(ConsoleLogHandler.fromEnvironment) }
}
