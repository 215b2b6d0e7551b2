import Foundation

/// A clock that moves only when a test says so (`advance(by:)`), for time-dependent behaviour (reconnect
/// schedules, restart back-offs, timers, coalescing) without waiting in real time.
///
/// A thread that sleeps on it blocks until the clock has been advanced past its deadline; an async sleeper is
/// resumed likewise. `waitForSleepers(_:)` lets a test wait (in real time, bounded) until the code under test
/// has reached its sleep, so "advance, then look" is deterministic.
///
/// Threads and locks: one `NSCondition` guards the time, the wall time and the sleepers; any thread.
public final class ManualClock: HostClock, @unchecked Sendable {
    private let lock = NSCondition()
    private var time: Double
    private var wall: Date
    /// Threads blocked in `sleep(until:)`: their deadlines by id (for `waitForSleepers`). `advance` takes out
    /// those it wakes at once, so right after it returns they no longer count, even before they run again.
    private var blocked: [Int: Double] = [:]
    private var waiters: [(id: Int, deadline: Double, resume: CheckedContinuation<Void, Never>)] = []
    private var nextID = 0

    /// A clock at `now` (monotonic seconds) and `wall` (wall time).
    public init(now: Double = 0, wall: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        time = now
        self.wall = wall
    }

    public var now: Double { locked { time } }

    public var wallNow: Date { locked { wall } }

    /// Moves both clocks on by `seconds` (>= 0) and wakes every sleeper whose deadline is reached.
    public func advance(by seconds: Double) {
        precondition(seconds >= 0, "a manual clock does not go back")
        let due: [CheckedContinuation<Void, Never>] = locked {
            time += seconds
            wall = wall.addingTimeInterval(seconds)
            blocked = blocked.filter { $0.value > time }
            lock.broadcast()
            let ready = waiters.filter { $0.deadline <= time }
            waiters.removeAll { $0.deadline <= time }
            return ready.map(\.resume)
        }
        for c in due { c.resume() }
    }

    /// Sets the wall clock (the monotonic clock is left alone).
    public func setWall(_ date: Date) { locked { wall = date } }

    /// How many threads and tasks are asleep on the clock now.
    public var sleepers: Int { locked { blocked.count + waiters.count } }

    /// Waits in real time (at most `timeout` seconds) until at least `count` sleepers are asleep on the clock;
    /// true when they are.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, timeout: Double = 10) -> Bool {
        // Real time: the code under test runs on real threads.
        let real = SystemClock.shared
        let limit = real.now + timeout
        lock.lock()
        defer { lock.unlock() }
        while blocked.count + waiters.count < count {
            let left = limit - real.now
            guard left > 0 else { return false }
            real.wait(on: lock, seconds: left)
        }
        return true
    }

    /// `waitForSleepers` for async code: polls (1 ms real steps) instead of blocking the thread. A blocking wait
    /// on Swift concurrency's cooperative pool (2 threads on a 2-core machine) can starve the very task it waits
    /// for.
    public func sleepersArrive(_ count: Int = 1, timeout: Double = 10) async -> Bool {
        let real = SystemClock.shared
        let limit = real.now + timeout
        while sleepers < count {
            guard real.now < limit else { return false }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    /// Advances in steps of `step` until `condition` holds or `limit` seconds of clock time passed, letting
    /// real threads run between steps (a short real pause each); true when the condition held.
    @discardableResult
    public func advance(until condition: () -> Bool, step: Double, limit: Double, realPause: Double = 0.002) -> Bool {
        var moved = 0.0
        while !condition() {
            guard moved < limit else { return false }
            advance(by: step)
            moved += step
            usleep(UInt32(realPause * 1_000_000))
        }
        return true
    }

    public func sleep(until deadline: Double) {
        lock.lock()
        defer { lock.unlock() }
        guard time < deadline else { return }
        nextID += 1
        let id = nextID
        blocked[id] = deadline
        lock.broadcast()
        while time < deadline { lock.wait() }
        blocked[id] = nil
        lock.broadcast()
    }

    public func sleep(until deadline: Double, unlessSignalled wakeup: Wakeup) -> Bool {
        let waker = wakeup.addWaker { [weak self] in
            guard let self else { return }
            self.lock.lock()
            self.lock.broadcast()
            self.lock.unlock()
        }
        defer { wakeup.removeWaker(waker) }
        lock.lock()
        defer { lock.unlock() }
        // The order clock lock, then the wakeup's: `signal` calls the waker with the wakeup's lock released.
        if wakeup.isSignalled { return true }
        guard time < deadline else { return false }
        nextID += 1
        let id = nextID
        blocked[id] = deadline
        lock.broadcast()
        while time < deadline && !wakeup.isSignalled { lock.wait() }
        blocked[id] = nil
        lock.broadcast()
        return time < deadline
    }

    /// A cancelled task stops waiting at once (as `Task.sleep` does on the system clock).
    public func sleep(untilAsync deadline: Double) async {
        let id: Int = locked {
            nextID += 1
            return nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now: Bool = locked {
                    guard time < deadline, !Task.isCancelled else { return true }
                    waiters.append((id, deadline, c))
                    lock.broadcast()
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, Never>? = locked {
                guard let i = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: i).resume
            }
            c?.resume()
        }
    }
}

extension ManualClock {
    fileprivate func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
