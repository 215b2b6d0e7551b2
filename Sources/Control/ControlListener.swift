import Diagnostics
import Foundation
import HummingbirdCore
import NIOCore
import Synchronization

/// How many connections the listener takes: at most `maxConnections`, and only while more than `reserve` descriptors
/// are free in the process. Out of descriptors, a Swift process dies: libdispatch's thread-pool monitor opens
/// /proc/self/task/TID/stat and traps (SIGILL in `_dispatch_workq_monitor_pools`) when it cannot (measured: the
/// limit lowered under a running viewfinder, 48 connections held, 1 run in 5 died). So the control port never takes
/// the last `reserve` (a sixteenth of the limit, at least 32); clients past it wait in the listen backlog.
///
/// Hummingbird asks `isAcceptingNewConnections` before each read of the listener, and again when one of our
/// connections closes; `nudge` asks once a second too, so that descriptors freed elsewhere (or a raised limit) let
/// the waiting clients in although none of ours closed. A refusal episode is said once through the control logger
/// ("not accepting connections: N descriptors left ..."), its end once ("accepting connections again").
///
/// Threads: the listener's event loop (one), which is why a struct with a shared reporter will do.
struct DescriptorReserve: AvailableConnectionsDelegate {
    let maxConnections: Int
    private var open = 0
    private let report = Report()

    init(maxConnections: Int) { self.maxConnections = maxConnections }

    mutating func connectionOpened() { open += 1 }
    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool {
        guard open < maxConnections else { return false }
        let (free, limit) = Self.freeDescriptors()
        let reserve = Self.reserve(limit: limit)
        let ok = free > reserve
        report.episode(accepting: ok, free: free, limit: limit, reserve: reserve)
        return ok
    }

    /// Descriptors the process may still open (the soft limit minus those open; 0 when /proc/self/fd cannot even be
    /// listed), and the soft limit.
    static func freeDescriptors() -> (free: Int, limit: Int) {
        var r = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &r) == 0, let limit = Int(exactly: r.rlim_cur) else {
            return (Int.max, Int.max)
        }
        guard let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count else { return (0, limit) }
        // Listing the directory took one descriptor of its own, closed again.
        return (Swift.max(0, limit - Swift.max(0, open - 1)), limit)
    }

    /// Descriptors left to the rest of the process: a sixteenth of the limit, at least 32.
    static func reserve(limit: Int) -> Int { Swift.max(32, limit / 16) }

    /// Asks the listener to read once a second (Hummingbird's handler then asks `isAcceptingNewConnections` again)
    /// until it closes.
    static func nudge(_ channel: any Channel) {
        let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in channel.read() }
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }

    /// Says each refusal episode once, and its end.
    final class Report: Sendable {
        private let refusing = Mutex(false)

        func episode(accepting: Bool, free: Int, limit: Int, reserve: Int) {
            let changed = refusing.withLock { r -> Bool in
                defer { r = !accepting }
                return r == accepting
            }
            guard changed else { return }
            if accepting {
                Log.control.warning("accepting connections again")
            } else {
                Log.control.warning(
                    "not accepting connections: \(free) descriptors left of \(limit) (keeping \(reserve) for the rest of the process); clients wait")
            }
        }
    }
}

/// Says once, through the control logger, that the listener cannot accept (EMFILE, ENFILE, ENOBUFS, ENOMEM), and
/// once that it accepts again; NIO's `AcceptBackoffHandler` behind it waits 1 s before each new try. While
/// descriptors come and go (one freed, taken by the next accept, failing again) a new episode within a minute of
/// the last report is not said again, nor its end.
final class AcceptFailureReport: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel
    private struct State {
        var failing = false
        /// Whether the current episode was said (so its end is said too).
        var said = false
        var lastReport: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let io = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(io.errnoCode) {
            let say = state.withLock { s in
                guard !s.failing else { return false }
                s.failing = true
                let now = ContinuousClock.now
                s.said = s.lastReport.map { now - $0 >= .seconds(60) } ?? true
                if s.said { s.lastReport = now }
                return s.said
            }
            if say {
                Log.control.warning(
                    "cannot accept connections: \(String(cString: strerror(io.errnoCode))) (\(io.errnoCode)); retrying every second")
            }
        }
        context.fireErrorCaught(error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let say = state.withLock { s in
            defer { s.failing = false; s.said = false }
            return s.failing && s.said
        }
        if say { Log.control.warning("accepting connections again") }
        context.fireChannelRead(data)
    }
}
