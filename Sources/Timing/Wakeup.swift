import Foundation

/// Ends a sleep early: a thread asleep in `HostClock.sleep(until:unlessSignalled:)` returns as soon as its
/// wakeup is signalled (a stop request), whatever the clock says. Once signalled it stays signalled, so a sleep
/// begun after the signal returns at once.
///
/// Threads and locks: one `NSCondition` guards the flag and the registered wakers; `signal` calls the wakers
/// (a `ManualClock`'s broadcast) after releasing it, so a waker may take its own lock freely.
public final class Wakeup: @unchecked Sendable {
    /// Guards `signalled` and `wakers`; `SystemClock` sleeps on it.
    let condition = NSCondition()
    private var signalled = false
    private var wakers: [Int: @Sendable () -> Void] = [:]
    private var nextWaker = 0

    public init() {}

    /// Wakes every sleeper, now and later.
    public func signal() {
        condition.lock()
        signalled = true
        condition.broadcast()
        let calls = Array(wakers.values)
        condition.unlock()
        for c in calls { c() }
    }

    /// True once `signal()` was called.
    public var isSignalled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return signalled
    }

    /// Calls `waker` on the next `signal()` until removed (for clocks that sleep on a lock of their own).
    func addWaker(_ waker: @escaping @Sendable () -> Void) -> Int {
        condition.lock()
        defer { condition.unlock() }
        nextWaker += 1
        wakers[nextWaker] = waker
        return nextWaker
    }

    func removeWaker(_ id: Int) {
        condition.lock()
        wakers[id] = nil
        condition.unlock()
    }

    /// The flag, read with the condition already locked.
    var signalledLocked: Bool { signalled }
}
