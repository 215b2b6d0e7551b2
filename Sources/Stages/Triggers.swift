import Synchronization

/// Process-wide manual shutter: SIGUSR1 and the `s` key bump a generation that stages watch.
public final class Triggers: Sendable {
    /// The shared instance the host feeds.
    public static let shared = Triggers()
    private let generation = Atomic<Int>(0)
    /// Creates an independent trigger source (tests).
    public init() {}
    /// Fires once (async-signal-safe: a single atomic increment).
    public func fire() { generation.add(1, ordering: .relaxed) }
    /// How many times it has fired.
    public var count: Int { generation.load(ordering: .relaxed) }
}

/// Process-wide clip requests: SIGUSR2 and the `c` key each bump their count; the clip recorders (`clips`) watch both
/// and say which one asked.
public final class ClipRequests: Sendable {
    /// The shared instance the CLI feeds.
    public static let shared = ClipRequests()
    /// SIGUSR2.
    public let signal = Triggers()
    /// The `c` key.
    public let key = Triggers()
    /// Creates an independent source (tests).
    public init() {}
}
