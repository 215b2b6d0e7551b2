import Foundation
import Stages
import Testing
import Timing

@testable import Host

/// The source keeper's decisions on a manual clock, with no pipeline: when a source counts as lost, when the
/// attempts come (1 s, doubling to 30 s), when it gives up, when it is back, which placeholder slots are due.
/// (The keeper with a real source that ends and comes back: `SourceKeeperTests`.)
@Suite struct SourceRecoveryTests {
    /// A source under watch and the keeper's view of its group, ticked on a manual clock as the keeper's thread
    /// does (every 1/128 s here instead of 10 ms: binary fractions add up exactly, so times compare exactly).
    struct Watch {
        let clock = ManualClock(now: 500)
        var r: SourceRecovery
        var arrivals = 0
        var passed = 0
        /// Set while frames keep arriving (the lateness of the newest), nil when none arrived since the last look.
        var arriving = false
        /// Clock times of the attempts made.
        var attempts: [Double] = []

        init(_ policy: SourceKeeper.Policy = .init()) {
            r = SourceRecovery(element: "cam", policy: policy, now: clock.now)
            r.start(at: clock.now)
        }

        /// One look, as `SourceKeeper.tick`: observe, then attempts while lost. An attempt's state changes end at once.
        mutating func tick() {
            if arriving { arrivals += 1 }
            let lost = r.observe(
                now: clock.now, arrivals: arrivals, passed: passed, lateness: arriving ? 0 : nil, restoreFrames: 15)
            if lost, r.attemptIfDue(at: clock.now) {
                attempts.append(clock.now)
                r.restarting = false
            }
        }

        /// Ticks for `seconds` of the clock (rounded up to whole ticks).
        mutating func run(_ seconds: Double) {
            let end = clock.now + seconds - 0.005
            while clock.now < end {
                clock.advance(by: 1.0 / 128)
                tick()
            }
        }

        /// The messages so far, by state.
        mutating func messages() -> [SourceMessage] { r.drainMessages() }
    }

    @Test func aStallIsALossAndAttemptsComeAfterOneSecondDoublingToThirty() {
        var w = Watch()
        w.arriving = true
        w.run(1)
        #expect(w.r.phase == .live)
        w.arriving = false
        w.run(1.9)
        #expect(w.r.phase == .live)
        w.run(0.2)
        #expect(w.r.phase == .lost)
        let lostAt = w.r.lostAt
        // The outage counts from the last live frame, 2 s before the stall was noticed (to the tick of 1/128 s).
        #expect(abs(lostAt - w.r.outageStart - 2.0) <= 1.0 / 64, "\(lostAt - w.r.outageStart)")
        w.run(200)
        #expect(w.attempts.map { $0 - lostAt } == [1, 2, 4, 8, 16, 32, 62, 92, 122, 152, 182])
        let m = w.messages()
        #expect(m.first == SourceMessage(state: .lost, element: "cam", reason: "no frame for 2.0 s", retryIn: 1, losses: 1, restores: 0, placeholders: 0))
        let retrying = m.filter { $0.state == .retrying }
        #expect(retrying.map(\.attempt) == Array(1...11))
        #expect(retrying.map(\.retryIn) == [1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30])
        #expect(w.r.gaveUp == nil)
        let lines = w.r.drainLines()
        #expect(lines.first == "viewfinder: source 'cam' lost (no frame for 2.0 s); placeholder frames go on; retrying in 1 s\n")
    }

    @Test func noFirstFrameWithinTenSecondsIsALoss() {
        var w = Watch()
        w.run(9.9)
        #expect(w.r.phase == .waiting)
        w.run(0.2)
        #expect(w.r.phase == .lost)
        #expect(w.messages().map(\.reason) == ["no frame in the first 10 s"])
    }

    @Test func attemptsUsedUpGiveUp() {
        var policy = SourceKeeper.Policy()
        policy.attempts = 3
        var w = Watch(policy)
        _ = w.r.failed("end of stream", at: w.clock.now, passed: 0)
        let lostAt = w.clock.now
        w.run(30)
        #expect(w.attempts.map { $0 - lostAt } == [1, 2, 4])
        #expect(w.r.phase == .ended)
        let m = w.messages()
        #expect(m.map(\.state) == [.lost, .retrying, .retrying, .retrying, .gaveUp])
        // It gives up when the third attempt's wait (4 s) is over without the source back.
        let gaveUp = m.last
        #expect(gaveUp?.attempt == 3 && gaveUp?.reason == "end of stream")
        #expect(gaveUp?.outage == 8)
        #expect(w.r.gaveUp == "source 'cam' lost (end of stream) and not back after 3 attempts (--reconnect-attempts 3)")
    }

    @Test func backAfterHalfASecondOfLiveFramesAndTheScheduleStartsOver() {
        var w = Watch()
        w.arriving = true
        w.run(1)
        w.arriving = false
        _ = w.r.failed("end of stream", at: w.clock.now, passed: w.passed)
        let lostAt = w.clock.now
        w.run(2.5)
        #expect(w.attempts.map { $0 - lostAt } == [1, 2])
        // The second attempt brings it back: frames arrive and pass the worker; 15 frames is half a second here.
        w.arriving = true
        w.passed += 14
        w.run(0.1)
        #expect(w.r.phase == .lost)
        w.passed += 1
        w.run(0.01)
        #expect(w.r.phase == .live)
        let back = w.messages().last
        #expect(back?.state == .restored && back?.attempt == 2 && back?.restores == 1)
        #expect(back?.outage == 2.5 + 13.0 / 128 + 1.0 / 128)  // 2.5 s, then 13 ticks, then the one that saw the 15th frame
        // Lost again later: 1 s to the first attempt again, not the 4 s the schedule had reached.
        w.attempts = []
        _ = w.r.failed("end of stream", at: w.clock.now, passed: w.passed)
        w.arriving = false
        let again = w.clock.now
        w.run(3.5)
        #expect(w.attempts.map { $0 - again } == [1, 2])
        #expect(w.r.losses == 2)
    }

    @Test func noAttemptWhileFramesArriveAgain() {
        var w = Watch()
        _ = w.r.failed("end of stream", at: w.clock.now, passed: 0)
        // Frames come back by themselves (but not yet past the worker): attempts wait while they do.
        w.arriving = true
        w.run(5)
        #expect(w.attempts.isEmpty)
        w.arriving = false
        // The attempt waits until half a second passed with no frame, and half a second more.
        let stopped = w.clock.now
        w.run(1.5)
        #expect(w.attempts.count == 1)
        #expect(w.attempts.first.map { $0 - stopped > 0.5 && $0 - stopped <= 1 } == true, "\(w.attempts.map { $0 - stopped })")
    }

    @Test func anErrorWhileLostIsTheAttemptFailingAndTheScheduleStands() {
        var w = Watch()
        let first = w.r.failed("connection refused", at: w.clock.now, passed: 0)
        #expect(first == nil)
        let beforeAnAttempt = w.r.failed("connection refused", at: w.clock.now, passed: 0)
        #expect(beforeAnAttempt == nil)  // no attempt yet: nothing to say
        w.run(1)
        #expect(w.attempts.count == 1)
        let note = w.r.failed("connection refused", at: w.clock.now, passed: 0)
        #expect(note == "viewfinder: source 'cam': attempt 1 failed: connection refused\n")
        #expect(w.r.losses == 1)
        w.run(1)
        #expect(w.attempts.count == 2)
    }

    @Test func releaseSaysWhetherTheSourceWasDown() {
        var waiting = Watch()
        let wasDown = waiting.r.end()
        #expect(wasDown)
        var live = Watch()
        live.arriving = true
        live.run(0.1)
        let liveWasDown = live.r.end()
        #expect(!liveWasDown)
        #expect(live.r.phase == .ended)
        // Ended: no more losses or attempts.
        live.arriving = false
        live.run(5)
        #expect(live.messages().isEmpty && live.attempts.isEmpty)
    }

    /// Placeholder slots: from the last frame passed on to what a live frame would carry now, one per frame
    /// duration, at most 5 s back, each counted once.
    @Test func placeholdersFillFromTheLastFrameToNowAtMostFiveSecondsBack() {
        var w = Watch()
        let d: UInt64 = 40_000_000  // 25 fps
        let notLost = w.r.duePlaceholders(clockRunningTime: 3_000_000_000, after: 1_000_000_000, duration: d, now: w.clock.now)
        #expect(notLost.isEmpty)
        _ = w.r.failed("end of stream", at: w.clock.now, passed: 0)
        let due = w.r.duePlaceholders(clockRunningTime: 3_000_000_000, after: 1_000_000_000, duration: d, now: w.clock.now)
        #expect(due.map(\.0) == stride(from: 1_040_000_000 as UInt64, through: 2_960_000_000, by: 40_000_000).map { $0 })
        #expect(due.allSatisfy { $0.1 == "signal lost, retrying in 1 s" })
        // The same moment again: nothing new; 100 ms later: the slots since.
        let again = w.r.duePlaceholders(clockRunningTime: 3_000_000_000, after: 1_000_000_000, duration: d, now: w.clock.now)
        #expect(again.isEmpty)
        let later = w.r.duePlaceholders(clockRunningTime: 3_100_000_000, after: 1_000_000_000, duration: d, now: w.clock.now)
        #expect(later.map(\.0) == [3_000_000_000, 3_040_000_000, 3_080_000_000])
        #expect(w.r.placeholders == due.count + 3)
        // A long silence: only the last 5 s are filled.
        var far = Watch()
        _ = far.r.failed("end of stream", at: far.clock.now, passed: 0)
        let long = far.r.duePlaceholders(clockRunningTime: 60_000_000_000, after: 0, duration: d, now: far.clock.now)
        #expect(long.first?.0 == 54_980_000_000 && long.last?.0 == 59_980_000_000)
        #expect(long.count == 126)
    }

    @Test func theWorkersHoleIsFilledUpToOneFrameBeforeTheLiveFrame() {
        var w = Watch()
        let d: UInt64 = 40_000_000
        let notLost = w.r.holeSlots(after: 0, before: 400_000_000, duration: d, now: w.clock.now)
        #expect(notLost.isEmpty)
        _ = w.r.failed("end of stream", at: w.clock.now, passed: 0)
        w.run(1)  // the first attempt is under way
        w.r.restarting = true
        let hole = w.r.holeSlots(after: 1_000_000_000, before: 1_200_000_000, duration: d, now: w.clock.now)
        #expect(hole.map(\.0) == [1_040_000_000, 1_080_000_000, 1_120_000_000, 1_160_000_000])
        #expect(hole.allSatisfy { $0.1 == "signal lost: reconnecting (attempt 1)" })
        // Less than one and a half frames: no hole.
        let small = w.r.holeSlots(after: 2_000_000_000, before: 2_050_000_000, duration: d, now: w.clock.now)
        #expect(small.isEmpty)
    }
}
