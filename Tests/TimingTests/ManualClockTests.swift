import Foundation
import Testing
import Timing

@Suite struct ManualClockTests {
    @Test func aSleepingThreadWakesOnlyWhenTheClockPassesItsDeadline() throws {
        let clock = ManualClock(now: 100)
        let woke = Mutexed<Double?>(nil)
        let t = Thread {
            clock.sleep(seconds: 5)
            woke.set(clock.now)
        }
        t.start()
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 4.9)
        usleep(20_000)
        #expect(woke.get() == nil)
        clock.advance(by: 0.1)
        for _ in 0..<500 where woke.get() == nil { usleep(2_000) }
        #expect(woke.get() == 105)
        #expect(clock.sleepers == 0)
    }

    /// "Advance, then wait for the next sleep" must not see the sleeper it just woke (it may not have run yet):
    /// SettingsWriterTests hung on that race, advancing before the next save slept.
    @Test func aSleeperWokenByAdvanceNoLongerCountsAtOnce() {
        let clock = ManualClock()
        let rounds = Mutexed(0)
        let t = Thread {
            for _ in 0..<2 {
                clock.sleep(seconds: 1)
                rounds.set(rounds.get() + 1)
            }
        }
        t.start()
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 1)
        // The second sleep, not the first: by then the first round is counted.
        #expect(clock.waitForSleepers(1))
        #expect(rounds.get() == 1)
        clock.advance(by: 1)
        for _ in 0..<500 where rounds.get() < 2 { usleep(2_000) }
        #expect(rounds.get() == 2)
    }

    @Test func anAsyncSleeperResumesWhenAdvanced() async throws {
        let clock = ManualClock()
        let task = Task { () -> Double in
            await clock.sleep(forAsync: 2)
            return clock.now
        }
        #expect(await clock.sleepersArrive(1))
        clock.advance(by: 2)
        #expect(await task.value == 2)
    }

    @Test func aCancelledAsyncSleeperStopsWaiting() async {
        let clock = ManualClock()
        let task = Task { () -> Double in
            await clock.sleep(forAsync: 60)
            return clock.now
        }
        #expect(await clock.sleepersArrive(1))
        task.cancel()
        #expect(await task.value == 0)
        #expect(clock.sleepers == 0)
    }

    @Test func waitingForSleepersGivesUpInRealTime() {
        let clock = ManualClock()
        let real = SystemClock.shared
        let start = real.now
        #expect(!clock.waitForSleepers(1, timeout: 0.05))
        #expect(real.elapsed(since: start) >= 0.05)
    }

    @Test func wallTimeMovesWithTheClock() {
        let start = Date(timeIntervalSince1970: 1_000)
        let clock = ManualClock(now: 0, wall: start)
        clock.advance(by: 90)
        #expect(clock.wallNow == Date(timeIntervalSince1970: 1_090))
        #expect(clock.elapsed(since: 30) == 60)
    }

    @Test func advanceUntilStopsAtTheCondition() {
        let clock = ManualClock()
        let held = clock.advance(until: { clock.now >= 3 }, step: 0.5, limit: 10, realPause: 0)
        #expect(held)
        #expect(clock.now == 3)
        #expect(!clock.advance(until: { false }, step: 1, limit: 2, realPause: 0))
        #expect(clock.now == 5)
    }

    @Test func aPastDeadlineDoesNotBlock() {
        let clock = ManualClock(now: 10)
        clock.sleep(until: 9)
        #expect(clock.sleepers == 0)
    }
}

/// A value shared between a test and a thread it starts.
final class Mutexed<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ v: T) { value = v }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
}
