import FrameAnalysis
import Testing

@testable import Stages

@Suite struct ShotScheduleTests {
    static let second: UInt64 = 1_000_000_000

    static func schedule(_ assignments: [(String, String)], triggers: Triggers = Triggers()) throws -> ShotSchedule {
        let values = try PropertyValues(specs: SnapshotStage.descriptor.properties, assignments: assignments, stage: "snap")
        return ShotSchedule(values, keys: SnapshotStage.schedule, triggers: triggers)
    }

    @Test func intervalFiresOnTheFirstFrameThenEveryIntervalWithOneMillisecondSlack() throws {
        var s = try Self.schedule([("interval", "1")])
        let frameTime: UInt64 = 33_333_333
        var fired: [Int] = []
        for i in 0..<61 {
            let due = s.due(frame: i, time: UInt64(i) * frameTime, fired: 0)
            if !due.isEmpty { fired.append(i) }
        }
        // 30 * 33.333 ms = 999.99999 ms: within the 1 ms slack, so whole seconds land on frames 30 and 60.
        #expect(fired == [0, 30, 60])
        #expect(s.lastInterval == 60 * frameTime)
    }

    @Test func noTimeNoIntervalShot() throws {
        var s = try Self.schedule([("interval", "1")])
        let got1 = s.due(frame: 0, time: nil, fired: 0)
        #expect(got1 == [])
        #expect(s.lastInterval == nil)
    }

    @Test func atFramesFireOnceAndPassedOnesAreSkipped() throws {
        var s = try Self.schedule([("at", "2,5,9")])
        let got2 = s.due(frame: 0, time: 0, fired: 0)
        #expect(got2 == [])
        let got3 = s.due(frame: 2, time: 0, fired: 0)
        #expect(got3 == [.at])
        let got4 = s.due(frame: 2, time: 0, fired: 0)
        #expect(got4 == [])
        // Frame 5 never came (dropped): 9 still fires.
        let got5 = s.due(frame: 9, time: 0, fired: 0)
        #expect(got5 == [.at])
    }

    @Test func manualCountsPressesAfterCreationOnlyAndOnlyWhenOn() throws {
        let triggers = Triggers()
        triggers.fire()
        var s = try Self.schedule([], triggers: triggers)
        let got6 = s.due(frame: 0, time: 0, fired: triggers.count)
        #expect(got6 == [])
        triggers.fire()
        let got7 = s.due(frame: 1, time: 0, fired: triggers.count)
        #expect(got7 == [.manual])
        let got8 = s.due(frame: 2, time: 0, fired: triggers.count)
        #expect(got8 == [])
        var off = try Self.schedule([("manual", "false")], triggers: triggers)
        triggers.fire()
        let got9 = off.due(frame: 0, time: 0, fired: triggers.count)
        #expect(got9 == [])
    }

    @Test func allTriggersInOrderOrTheFirstOnly() throws {
        var all = try Self.schedule([("interval", "1"), ("at", "0")])
        let got10 = all.due(frame: 0, time: 0, fired: 1)
        #expect(got10 == [.manual, .at, .interval])
        var first = try Self.schedule([("interval", "1"), ("at", "0")])
        let got11 = first.due(frame: 0, time: 0, fired: 1, firstOnly: true)
        #expect(got11 == [.manual])
        // The interval was not consumed by the manual shot: it fires on the next frame.
        let got12 = first.due(frame: 1, time: Self.second / 30, fired: 1, firstOnly: true)
        #expect(got12 == [.interval])
    }

    @Test func maxShotsStopsEverythingButStillSeesTheShutter() throws {
        let triggers = Triggers()
        var s = try Self.schedule([("max-shots", "2"), ("at", "0,1")], triggers: triggers)
        triggers.fire()
        let got13 = s.due(frame: 0, time: 0, fired: triggers.count, shots: 2)
        #expect(got13 == [])
        #expect(s.limitReached(shots: 2))
        #expect(!s.limitReached(shots: 1))
        // The press made while stopped does not come back once the limit is raised.
        let known15 = try s.update("max-shots", value: .int(0), keys: SnapshotStage.schedule, stage: "snap")
        #expect(known15)
        let got14 = s.due(frame: 1, time: 0, fired: triggers.count, shots: 2)
        #expect(got14 == [.at])
    }

    @Test func updateChangesOnlyPlayingProperties() throws {
        var s = try Self.schedule([])
        let keys = SnapshotStage.schedule
        let known16 = try s.update("interval", value: .double(2.5), keys: keys, stage: "snap")
        #expect(known16)
        #expect(s.interval == 2.5)
        let known17 = try s.update("manual", value: .bool(false), keys: keys, stage: "snap")
        #expect(known17)
        #expect(s.manual == false)
        let known18 = try s.update("at", value: .intList([1]), keys: keys, stage: "snap")
        #expect(!known18)
        do {
            _ = try s.update("interval", value: .string("x"), keys: keys, stage: "snap")
            Issue.record("a string for a double was taken")
        } catch {
            #expect(error == StageError(.usage, "snap: bad value 'x' for property 'interval': expected double 0.0 - 86400.0"))
        }
    }

    @Test func anotherShotStartsTheIntervalClockOnce() throws {
        var s = try Self.schedule([])
        s.startIntervalClock(at: 5 * Self.second)
        s.startIntervalClock(at: 7 * Self.second)
        #expect(s.lastInterval == 5 * Self.second)
    }

    @Test func bothStagesDeclareTheSameNamesRangesAndDefaultsWithTheirOwnBlurbs() {
        let snap = SnapshotStage.schedule, cap = CaptureSettings.schedule
        #expect(snap.interval.spec.type == cap.interval.spec.type)
        #expect(snap.maxShots.spec.defaultText == "0" && cap.maxShots.spec.defaultText == "0")
        #expect(snap.quality.spec.type == .int(1...100))
        #expect(snap.manual.spec.blurb == cap.manual.spec.blurb)
        #expect(snap.at.spec.blurb == "Frame numbers (from 0) to snapshot, comma-separated")
        #expect(cap.at.spec.blurb == "Frame numbers (from 0) that trigger a capture, comma-separated")
    }
}
