import Foundation

/// The time source of the host, its services, the stages that use time and the plugin: one protocol, a
/// system implementation (`SystemClock`) and a manual one for tests (`ManualClock`). Everything that waits,
/// retries or measures an interval reads this instead of `Date()`, so a test moves time on by hand instead of
/// waiting for it.
///
/// `now` is monotonic seconds from an arbitrary origin (intervals, deadlines); `wallNow` is the wall clock, only
/// for timestamps written into a file or a message. Threads: every member may be called from any thread.
public protocol HostClock: AnyObject, Sendable {
    /// Monotonic seconds (intervals and deadlines only: the origin means nothing).
    var now: Double { get }
    /// The wall clock, for timestamps written into files and messages.
    var wallNow: Date { get }
    /// Blocks the calling thread until `now >= deadline` (at once when it already is).
    func sleep(until deadline: Double)
    /// Suspends the calling task until `now >= deadline` (or the task is cancelled).
    func sleep(untilAsync deadline: Double) async
    /// Blocks the calling thread until `now >= deadline` or `wakeup` is signalled; true when woken by the signal
    /// (a stop request) rather than by the clock.
    func sleep(until deadline: Double, unlessSignalled wakeup: Wakeup) -> Bool
}

extension HostClock {
    /// Blocks the calling thread for `seconds`.
    public func sleep(seconds: Double) { sleep(until: now + seconds) }
    /// Suspends the calling task for `seconds` (returns early when the task is cancelled).
    public func sleep(forAsync seconds: Double) async { await sleep(untilAsync: now + seconds) }
    /// Seconds since `start` (a value of `now`).
    public func elapsed(since start: Double) -> Double { now - start }
    /// Blocks for `seconds` or until `wakeup` is signalled; true when woken by the signal.
    public func sleep(seconds: Double, unlessSignalled wakeup: Wakeup) -> Bool {
        sleep(until: now + seconds, unlessSignalled: wakeup)
    }
}

/// The real clock: `CLOCK_MONOTONIC` for `now`, `Date()` for `wallNow`, real sleeps.
public final class SystemClock: HostClock {
    /// The one instance (it has no state).
    public static let shared = SystemClock()

    public init() {}

    public var now: Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    // The wall clock: the one place Date() is read for the host (see ARCHITECTURE.md "Time").
    public var wallNow: Date { Date() }

    public func sleep(until deadline: Double) {
        let left = deadline - now
        guard left > 0 else { return }
        // usleep takes at most ~71 minutes in one call on some libcs: wait in slices.
        var remaining = left
        while remaining > 0 {
            let slice = min(remaining, 60)
            usleep(UInt32(slice * 1_000_000))
            remaining = deadline - now
        }
    }

    public func sleep(untilAsync deadline: Double) async {
        let left = deadline - now
        guard left > 0 else { return }
        try? await Task.sleep(nanoseconds: UInt64(min(left, 86_400) * 1e9))
    }

    public func sleep(until deadline: Double, unlessSignalled wakeup: Wakeup) -> Bool {
        wakeup.condition.lock()
        defer { wakeup.condition.unlock() }
        while !wakeup.signalledLocked {
            let left = deadline - now
            guard left > 0 else { return false }
            // NSCondition waits on the wall clock: a slice at most, then the monotonic clock is asked again.
            _ = wakeup.condition.wait(until: wallNow.addingTimeInterval(min(left, 60)))
        }
        return true
    }

    /// Waits on `condition` (locked by the caller) for at most `seconds` of real time; false on timeout. For
    /// waits on real threads (GStreamer's, a worker's), which are bounded in real time whatever clock the
    /// owner was given (see ARCHITECTURE.md "Time").
    @discardableResult
    public func wait(on condition: NSCondition, seconds: Double) -> Bool {
        condition.wait(until: wallNow.addingTimeInterval(max(0, seconds)))
    }
}
