import Foundation
import Testing
import Timing

@Suite struct WakeupTests {
    @Test func aSignalEndsAManualSleepBeforeItsDeadline() {
        let clock = ManualClock(now: 0)
        let wakeup = Wakeup()
        let woken = Mutexed<Bool?>(nil)
        let t = Thread {
            woken.set(clock.sleep(seconds: 30, unlessSignalled: wakeup))
        }
        t.start()
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 10)
        usleep(20_000)
        #expect(woken.get() == nil)
        wakeup.signal()
        for _ in 0..<500 where woken.get() == nil { usleep(2_000) }
        #expect(woken.get() == true)
        #expect(clock.now == 10)
        #expect(clock.sleepers == 0)
    }

    @Test func theClockEndsAManualSleepWhenNotSignalled() {
        let clock = ManualClock(now: 5)
        let wakeup = Wakeup()
        let woken = Mutexed<Bool?>(nil)
        let t = Thread { woken.set(clock.sleep(until: 7, unlessSignalled: wakeup)) }
        t.start()
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 2)
        for _ in 0..<500 where woken.get() == nil { usleep(2_000) }
        #expect(woken.get() == false)
        #expect(!wakeup.isSignalled)
    }

    @Test func aSignalBeforeTheSleepReturnsAtOnceOnBothClocks() {
        let wakeup = Wakeup()
        wakeup.signal()
        #expect(ManualClock().sleep(seconds: 3600, unlessSignalled: wakeup))
        let real = SystemClock.shared
        let start = real.now
        #expect(real.sleep(seconds: 3600, unlessSignalled: wakeup))
        #expect(real.elapsed(since: start) < 1)
    }

    @Test func aSignalEndsASystemSleep() {
        let real = SystemClock.shared
        let wakeup = Wakeup()
        let start = real.now
        let woken = Mutexed<Bool?>(nil)
        let t = Thread { woken.set(real.sleep(seconds: 30, unlessSignalled: wakeup)) }
        t.start()
        usleep(50_000)
        wakeup.signal()
        for _ in 0..<500 where woken.get() == nil { usleep(2_000) }
        #expect(woken.get() == true)
        #expect(real.elapsed(since: start) < 5)
    }

    @Test func aShortSystemSleepRunsOut() {
        let real = SystemClock.shared
        let start = real.now
        #expect(!real.sleep(seconds: 0.05, unlessSignalled: Wakeup()))
        #expect(real.elapsed(since: start) >= 0.05)
    }
}
