#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CLI's backend: a `say` line is printed exactly as it is (with its terminator, a newline unless told), on its stream (standard error by write(2),
/// unbuffered and never trapping on a closed stream; standard output through `print`, so it keeps its
/// order with the CLI's own `print` lines). A plain log line is printed on standard error as
/// `<label> <level>: <message>` (with its metadata) when at or above `detailLevel`, else dropped.
public struct ConsoleLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    /// Where the text goes, exactly as given (newline included; tests pass their own).
    public typealias Writer = @Sendable (_ text: String, _ console: Console) -> Void

    /// This handler's label (the module's `Log.Label`).
    public let label: String
    /// Plain lines at or above this level are printed; `say` lines from `.info` up always are.
    public var detailLevel: Logger.Level {
        didSet { logLevel = min(detailLevel, .info) }
    }
    /// The lowest level that reaches the handler: `.info` (for `say` lines) or `detailLevel` when lower.
    public var logLevel: Logger.Level
    private let sink: Writer

    /// A handler for `label`, printing plain lines from `detailLevel` up.
    public init(label: String, detailLevel: Logger.Level = .warning, write: @escaping Writer = ConsoleLogHandler.standardStreams) {
        self.label = label
        self.detailLevel = detailLevel
        self.logLevel = min(detailLevel, .info)
        self.sink = write
    }

    /// The handler the CLI bootstraps for `label`: plain lines from the level `VIEWFINDER_LOG` names (trace, debug,
    /// info, notice, warning, error, critical; warning when unset or unknown).
    public static func fromEnvironment(label: String) -> ConsoleLogHandler {
        let named = getenv("VIEWFINDER_LOG").map { String(cString: $0).lowercased() } ?? ""
        return ConsoleLogHandler(label: label, detailLevel: Logger.Level(rawValue: named) ?? .warning)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        if let console = event.console {
            sink(event.message.description + event.terminator, console)
            return
        }
        guard event.level >= detailLevel else { return }
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink("\(label) \(event.level): \(event.message)\(extra)\n", .standardError)
    }

    /// Writes `text` to its stream: standard error with write(2) (resuming after EINTR and short writes; a failure
    /// such as EPIPE is dropped, never a trap), standard output with `print` (Swift's buffered stdout).
    public static let standardStreams: Writer = { text, console in
        switch console {
        case .standardOutput: print(text, terminator: "")
        case .standardError: writeAll(2, Array(text.utf8))
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                #if canImport(Glibc)
                return Glibc.write(fd, base + done, bytes.count - done)
                #else
                return Darwin.write(fd, base + done, bytes.count - done)
                #endif
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }
}
