import Diagnostics
import InMemoryLogging
import Testing

/// The per-module loggers and `say`: a user-facing line is a log line at its level marked with the stream it
/// belongs on; any backend sees it (here swift-log's in-memory handler), the console one prints it as it is.
struct LogTests {
    @Test func oneLabelPerModule() {
        #expect(Log.host.label == "viewfinder.host")
        #expect(Log.stages.label == "viewfinder.stages")
        #expect(Log.control.label == "viewfinder.control")
        #expect(Log.analysis.label == "viewfinder.analysis")
        #expect(Log.plugin.label == "viewfinder.plugin")
    }

    @Test func sayMarksTheLineWithItsStream() {
        let memory = InMemoryLogHandler()
        let logger = Logger(label: Log.Label.stages) { _ in memory }
        logger.say(.info, "saved photos/IMG_00001.jpg (auto)")
        logger.say(.warning, "WARNING from stage capture0: records.json was rebuilt")
        logger.say(.notice, "stage compose0: 3 messages", on: .standardOutput)
        logger.info("a plain line")
        logger.say(.info, "\r[   2.0 s] in 60", terminator: "")
        #expect(
            memory.entries == [
                .init(level: .info, message: "saved photos/IMG_00001.jpg (auto)", metadata: [Log.consoleKey: "stderr"]),
                .init(
                    level: .warning, message: "WARNING from stage capture0: records.json was rebuilt", metadata: [Log.consoleKey: "stderr"]),
                .init(level: .notice, message: "stage compose0: 3 messages", metadata: [Log.consoleKey: "stdout"]),
                .init(level: .info, message: "a plain line", metadata: [:]),
                .init(level: .info, message: "\r[   2.0 s] in 60", metadata: [Log.consoleKey: "stderr", Log.terminatorKey: ""]),
            ])
    }

    @Test func anEventTellsItsStreamAndTerminator() {
        func event(_ metadata: Logger.Metadata?) -> LogEvent {
            LogEvent(level: .info, message: "m", metadata: metadata, source: "s", file: "f", function: "g", line: 1)
        }
        #expect(event([Log.consoleKey: "stderr"]).console == .standardError)
        #expect(event([Log.consoleKey: "stdout"]).console == .standardOutput)
        #expect(event([Log.consoleKey: "elsewhere"]).console == nil)
        #expect(event(["other": "stderr"]).console == nil)
        #expect(event(nil).console == nil)
        #expect(event([Log.consoleKey: "stderr"]).terminator == "\n")
        #expect(event([Log.consoleKey: "stderr", Log.terminatorKey: ""]).terminator == "")
    }
}
