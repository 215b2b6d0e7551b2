import Dispatch
import Foundation
import GStreamerKit
import Host
import Synchronization

/// A live `Session` run on a thread of its own, so a bench can run several side by side and measure them
/// while they play; `stop()` ends it with end-of-stream (as Ctrl-C does), aborting if it does not drain.
final class BackgroundRun: @unchecked Sendable {
    /// The session being run.
    let session: Session
    private let playing = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let code = Atomic<Int32>(-1)
    private let stopped = Atomic<Bool>(false)

    /// Starts `session` on a thread named `name` (`onPlaying` is taken for the start signal).
    init(_ session: Session, name: String) {
        self.session = session
        let playing = playing
        session.onPlaying = { _ in playing.signal() }
        // The thread keeps this object until the run ends.
        let thread = Thread {
            self.code.store(session.run(), ordering: .relaxed)
            self.playing.signal()  // a run that failed before playing must not leave waitPlaying waiting
            self.ended.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the pipelines play (at most `timeout` s); a run that ended or did not start is an error naming `what`.
    func waitPlaying(_ what: String, timeout: Double = 20) throws(HostError) {
        guard playing.wait(timeout: .now() + timeout) == .success, code.load(ordering: .relaxed) == -1 else {
            throw HostError(.runtime, "\(what) did not play within \(Int(timeout)) s: \(session.errors.joined(separator: "; "))")
        }
    }

    /// Requests end-of-stream and waits for the run to end (10 s, then abort and 5 s more). Returns its exit
    /// code (-1 if it never ended). Once only: later calls return the code at once.
    @discardableResult func stop() -> Int32 {
        guard !stopped.exchange(true, ordering: .relaxed) else { return code.load(ordering: .relaxed) }
        session.requestStop()
        if ended.wait(timeout: .now() + 10) == .timedOut {
            session.abort()
            _ = ended.wait(timeout: .now() + 5)
        }
        return code.load(ordering: .relaxed)
    }
}

/// Delays (ms) of the buffers reaching a pad, recorded between `start()` and `stop()`, at most `limit`
/// (the rest are only counted). Written on the streaming thread under one brief lock.
final class DelayRecorder: Sendable {
    private struct State {
        var on = false
        var ms: [Double] = []
        var overflow = 0
    }
    private let state = Mutex(State())
    private let limit: Int

    /// A recorder keeping at most `limit` values.
    init(limit: Int) {
        self.limit = max(1, limit)
        state.withLock { $0.ms.reserveCapacity(min(self.limit, 100_000)) }
    }

    /// The streaming thread: one delay in ns.
    func record(ns: Int64) {
        state.withLock { s in
            guard s.on else { return }
            if s.ms.count < limit { s.ms.append(Double(ns) / 1e6) } else { s.overflow += 1 }
        }
    }
    /// Starts recording.
    func start() { state.withLock { $0.on = true } }
    /// Values recorded so far.
    var count: Int { state.withLock { $0.ms.count } }
    /// Stops recording; the values recorded (sorted) and how many did not fit.
    func stop() -> (sorted: [Double], overflow: Int) {
        state.withLock { s in
            s.on = false
            return (s.ms.sorted(), s.overflow)
        }
    }
}

/// Counts buffers passing a pad (atomically, from the streaming thread).
final class FrameCounter: Sendable {
    private let n = Atomic<Int>(0)
    /// One more buffer.
    func add() { n.add(1, ordering: .relaxed) }
    /// Buffers so far.
    var count: Int { n.load(ordering: .relaxed) }
}

extension Bench {
    /// The process's user + system CPU time so far, ms (every thread: GStreamer's, x264's, the workers').
    static func processCPUMs() -> Double { PreviewWindow.cpuMs() }

    /// A latency query's answer in ms, for printing: "live, min 33.3 ms, max none".
    public struct LatencyAnswer: Sendable {
        /// Whether the pipeline is live.
        public var live: Bool
        /// Minimum latency, ms.
        public var minMs: Double
        /// Maximum latency, ms (nil: unlimited).
        public var maxMs: Double?
        /// The answer as ms, nil when the query was not answered.
        static func of(_ a: (live: Bool, min: UInt64, max: ClockTime)?) -> LatencyAnswer? {
            a.map { LatencyAnswer(live: $0.live, minMs: Double($0.min) / 1e6, maxMs: $0.max.map { Double($0) / 1e6 }) }
        }
        /// "live, min 33.3 ms, max 33.3 ms".
        public var text: String {
            String(
                format: "%@, min %.1f ms, max %@", live ? "live" : "not live", minMs, maxMs.map { String(format: "%.1f ms", $0) } ?? "none")
        }
    }
}
