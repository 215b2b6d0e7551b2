import Timing

/// How the host runs a description.
public struct SessionOptions: Sendable {
    /// The hand-off between a segment and a stage worker.
    public enum QueuePolicy: String, Sendable, CaseIterable {
        /// Leaky for live sources, lossless for the rest.
        case auto
        /// Keep at most `queueSize` frames, dropping the oldest (counted).
        case leaky
        /// Block upstream when the worker is behind; never lose a frame.
        case lossless
    }
    /// Queue policy.
    public var queue: QueuePolicy = .auto
    /// Frames held between a segment and its stage worker.
    public var queueSize: Int = 2
    /// Time allowed for the stages of one group, added to the latency of live outputs (ms).
    public var stageBudgetMs: Double = 20
    /// Print a live status line every second.
    public var progress = false
    /// Print element messages (stage messages, multifilesink...) as they arrive.
    public var printMessages = false
    /// `target.prop=value` overrides applied to the description.
    public var overrides: [String] = []
    /// Stage settings from a settings file (`--config`), applied between the description and `overrides`.
    public var settings: SettingsFile?
    /// Whether a lost source is restarted while everything downstream keeps running (`--reconnect`).
    public enum ReconnectMode: String, Sendable, CaseIterable {
        /// On for network sources (rtspsrc, srtsrc, udpsrc, souphttpsrc, a network `uri=`...), off for the rest.
        case auto
        /// On for every live source; refused (exit 2) when the description has none.
        case on
        /// Off: a source error ends the run, as in gst-launch.
        case off
    }
    /// Source supervision.
    public var reconnect: ReconnectMode = .auto
    /// Attempts after a loss before the run gives up (0: never gives up).
    public var reconnectAttempts: Int = 0
    /// Seconds without a frame from a supervised live source before it counts as lost.
    public var reconnectStallSeconds: Double = 2
    /// First delay between attempts, doubled after each failed one up to `reconnectMaxDelay` (s).
    public var reconnectFirstDelay: Double = 1
    /// Longest delay between attempts (s).
    public var reconnectMaxDelay: Double = 30
    /// Install SIGINT/SIGUSR1 handlers and read keys on a terminal.
    public var interactive = false
    /// The clock the session and its services time things by (a `ManualClock` in tests).
    public var clock: any HostClock = SystemClock.shared
    /// Services this process adds to the built-in ones (`ServiceRegistry.builtIn`): the settings writer, the
    /// control server, the MQTT bridge, a test's own. Made in this order, before the built-in ones.
    public var services: [any ServiceFactory] = []
    /// Creates default options.
    public init() {}
}
