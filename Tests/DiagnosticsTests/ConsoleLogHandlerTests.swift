import Diagnostics
import Foundation
import Synchronization
import Testing

/// The CLI's backend: `say` lines exactly as they are on their stream, plain lines from the detail level up
/// as `<label> <level>: <message>`, nothing else.
@Suite(.serialized) struct ConsoleLogHandlerTests {
    /// The lines a handler wrote, with their streams.
    final class Lines: Sendable {
        let written = Mutex<[String]>([])
        var all: [String] { written.withLock { $0 } }
        func logger(_ label: String = Log.Label.stages, detail: Logger.Level = .warning) -> Logger {
            Logger(label: label) { label in
                ConsoleLogHandler(label: label, detailLevel: detail) { text, console in
                    self.written.withLock { $0.append("\(console.rawValue): \(text)") }
                }
            }
        }
    }

    @Test func userLinesArePrintedExactlyOnTheirStream() {
        let lines = Lines()
        let log = lines.logger()
        log.say(.info, "saved photos/IMG_00001.jpg (auto)")
        log.say(.warning, "WARNING from stage capture0: cannot write metadata-location 'm.json': No space left on device")
        log.say(.notice, "preview: off: no frame yet")
        log.say(.info, "stage compose0: viewfinder/composition", on: .standardOutput)
        log.say(.error, "people engine: OpenCV failed")
        #expect(
            lines.all == [
                "stderr: saved photos/IMG_00001.jpg (auto)\n",
                "stderr: WARNING from stage capture0: cannot write metadata-location 'm.json': No space left on device\n",
                "stderr: preview: off: no frame yet\n",
                "stdout: stage compose0: viewfinder/composition\n",
                "stderr: people engine: OpenCV failed\n",
            ])
    }

    /// A progress line ends with what it says ("" after "\r[...]"); the line after it ends the row.
    @Test func aLineMayEndWithoutANewline() {
        let lines = Lines()
        let log = lines.logger(Log.Label.host)
        log.say(.info, "\r[   1.0 s] in 30 out 30 dropped 0  30.0 fps   ", terminator: "")
        log.say(.info, "", terminator: "\n")
        #expect(lines.all == ["stderr: \r[   1.0 s] in 30 out 30 dropped 0  30.0 fps   ", "stderr: \n"])
    }

    /// Plain lines below the detail level are dropped (warning by default); those at or above it are labelled.
    @Test func plainLinesFromTheDetailLevelUp() {
        let lines = Lines()
        let log = lines.logger(Log.Label.host)
        log.debug("negotiated caps")
        log.info("segment 1 playing")
        log.warning("latency recalculated", metadata: ["segment": "1"])
        log.error("bus error")
        #expect(
            lines.all == [
                "stderr: viewfinder.host warning: latency recalculated segment=1\n", "stderr: viewfinder.host error: bus error\n",
            ])

        let detailed = Lines()
        detailed.logger(Log.Label.analysis, detail: .debug).debug("cascade loaded")
        detailed.logger(Log.Label.analysis, detail: .debug).trace("window 24 px")
        #expect(detailed.all == ["stderr: viewfinder.analysis debug: cascade loaded\n"])
    }

    /// `say` lines are for `.info` and up: the handler passes nothing lower unless the detail level asks.
    @Test func theHandlersLevelLetsUserLinesThrough() {
        #expect(ConsoleLogHandler(label: "x").logLevel == .info)
        #expect(ConsoleLogHandler(label: "x", detailLevel: .error).logLevel == .info)
        #expect(ConsoleLogHandler(label: "x", detailLevel: .trace).logLevel == .trace)
        var h = ConsoleLogHandler(label: "x")
        h.detailLevel = .debug
        #expect(h.logLevel == .debug)
        let lines = Lines()
        lines.logger().say(.debug, "below info")
        #expect(lines.all.isEmpty)
    }

    @Test func handlerMetadataIsKeptPerHandler() {
        let lines = Lines()
        var log = lines.logger(Log.Label.control)
        log[metadataKey: "broker"] = "127.0.0.1:1883"
        log.warning("slow broker")
        log.say(.notice, "mqtt: connected to 127.0.0.1:1883 topic viewfinder")
        #expect(
            lines.all == [
                "stderr: viewfinder.control warning: slow broker broker=127.0.0.1:1883\n",
                "stderr: mqtt: connected to 127.0.0.1:1883 topic viewfinder\n",
            ])
    }

    /// `VIEWFINDER_LOG` names the detail level; unset or unknown means warning.
    @Test func theEnvironmentChoosesTheDetailLevel() {
        defer { unsetenv("VIEWFINDER_LOG") }
        unsetenv("VIEWFINDER_LOG")
        #expect(ConsoleLogHandler.fromEnvironment(label: "x").detailLevel == .warning)
        setenv("VIEWFINDER_LOG", "DEBUG", 1)
        #expect(ConsoleLogHandler.fromEnvironment(label: "x").detailLevel == .debug)
        #expect(ConsoleLogHandler.fromEnvironment(label: "x").logLevel == .debug)
        setenv("VIEWFINDER_LOG", "loud", 1)
        #expect(ConsoleLogHandler.fromEnvironment(label: "x").detailLevel == .warning)
    }
}
