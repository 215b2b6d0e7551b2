import CViewfinderPlugin
import Diagnostics
import Foundation

// The plugin's logging backend: inside a GStreamer application every line the library logs (`Diagnostics`:
// "saved ...", "WARNING from stage ...") goes to GStreamer's debug log, in a category named after the logger's
// label (`viewfinder.stages`, ...: `GST_DEBUG=viewfinder*:4` shows them), never to the application's stdout or
// stderr. Binding code next to PluginEntry.swift: plugin.c's vf_log_* functions, plain C types only.

/// Bootstraps swift-log once for the plugin's copy of it (the .so links its own, static); plugin_init calls this
/// before any element exists, gst-plugin-scanner included.
@_cdecl("vfsw_logging_install") public func vfswLoggingInstall() { PluginLogging.install() }

enum PluginLogging {
    private static let installed: Void = LoggingSystem.bootstrap { GStreamerLogHandler(label: $0) }
    /// Installs `GStreamerLogHandler` as the process's backend (the first call only).
    static func install() { _ = installed }
}

/// A swift-log handler over one GStreamer debug category. Its level is GStreamer's: `logLevel` reads the
/// category's threshold (GST_DEBUG), so a line GStreamer would drop is never even formatted.
struct GStreamerLogHandler: LogHandler, @unchecked Sendable {  // the category pointer: made once, kept, thread-safe
    var metadata: Logger.Metadata = [:]
    private let category: UnsafeMutableRawPointer?

    init(label: String) { category = vf_log_category(label) }

    var logLevel: Logger.Level {
        get { Self.lowestLevel(threshold: vf_log_threshold(category)) }
        set {}  // GST_DEBUG decides (gst_debug_set_threshold_for_name at run time)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // The console marks mean nothing here (nor a terminal's "\r"); other metadata follows as key=value.
        let text = event.message.description.trimmingCharacters(in: .whitespacesAndNewlines)
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }.filter {
            $0.key != Log.consoleKey && $0.key != Log.terminatorKey
        }
        guard !text.isEmpty || !all.isEmpty else { return }
        let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        vf_log(category, Self.gstLevel(event.level), event.file, event.function, Int32(clamping: event.line), text + extra)
    }

    /// swift-log's level as GStreamer's: critical and error → ERROR, warning → WARNING, notice and info → INFO,
    /// debug → DEBUG, trace → TRACE.
    static func gstLevel(_ level: Logger.Level) -> Int32 {
        let value: Int
        switch level {
        case .critical, .error: value = VF_LOG_ERROR
        case .warning: value = VF_LOG_WARNING
        case .notice, .info: value = VF_LOG_INFO
        case .debug: value = VF_LOG_DEBUG
        case .trace: value = VF_LOG_TRACE
        }
        return Int32(value)
    }

    /// The lowest swift-log level a category with `threshold` prints (critical when it prints nothing).
    static func lowestLevel(threshold: Int32) -> Logger.Level {
        switch Int(threshold) {
        case VF_LOG_TRACE...: .trace
        case VF_LOG_DEBUG...: .debug
        case VF_LOG_INFO...: .info
        case VF_LOG_WARNING...: .warning
        case VF_LOG_ERROR...: .error
        default: .critical
        }
    }
}
