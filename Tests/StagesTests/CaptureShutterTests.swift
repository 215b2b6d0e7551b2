import FrameAnalysis
import GStreamerKit
import Testing

@testable import Stages

@Suite struct CaptureShutterTests {
    static let second: UInt64 = 1_000_000_000
    static let steady = CaptureStateMachine.Observation(time: 0, stable: false, subject: false, composed: false)

    /// A started shutter that has seen its first frame, with `assignments` on capture's defaults.
    static func shutter(_ assignments: [(String, String)] = [], triggers: Triggers = Triggers()) throws -> (CaptureShutter, CaptureSettings)
    {
        let p = try PropertyValues(specs: CaptureSettings.specs, assignments: [("auto", "false")] + assignments, stage: "cap")
        let s = CaptureSettings(p)
        var shutter = CaptureShutter(schedule: ShotSchedule(p, keys: CaptureSettings.schedule, triggers: triggers), settings: s)
        _ = shutter.machine.handle(.firstFrame)
        return (shutter, s)
    }

    @Test func aManualPressCapturesAndASecondIsRefusedWhileCapturing() throws {
        var (shutter, s) = try Self.shutter()
        var messages: [CaptureMessage] = []
        let first = shutter.decide(Self.steady, frame: 0, time: 0, fired: 1, backlog: 0, settings: s, messages: &messages)
        #expect(first == .manual)
        #expect(messages.isEmpty)
        let second = shutter.decide(Self.steady, frame: 1, time: Self.second / 30, fired: 2, backlog: 0, settings: s, messages: &messages)
        #expect(second == nil)
        #expect(messages == [CaptureMessage(.refused(trigger: nil, reason: "already capturing", readiness: .capturing))])
    }

    @Test func aFullSnapshotQueueRefusesEveryTriggerAsBusy() throws {
        var (shutter, s) = try Self.shutter([("at", "0")])
        var messages: [CaptureMessage] = []
        let kind = shutter.decide(Self.steady, frame: 0, time: 0, fired: 1, backlog: 4, settings: s, messages: &messages)
        #expect(kind == nil)
        #expect(
            messages == [CaptureMessage(.refused(trigger: nil, reason: "busy: 4 photos queued on the snapshot output", readiness: .busy))])
    }

    @Test func theSelfTimerDelaysATriggerAndFiresAtItsDeadline() throws {
        var (shutter, s) = try Self.shutter([("timer", "3"), ("at", "0")])
        var messages: [CaptureMessage] = []
        let now = shutter.decide(Self.steady, frame: 0, time: Self.second, fired: 0, backlog: 0, settings: s, messages: &messages)
        #expect(now == nil)
        #expect(messages == [CaptureMessage(.timer(trigger: .at, seconds: 3, firesAt: 4 * Self.second))])
        #expect(shutter.state(at: 2 * Self.second, pts: nil).countdown == 2)
        let later = shutter.decide(Self.steady, frame: 90, time: 4 * Self.second, fired: 0, backlog: 0, settings: s, messages: &messages)
        #expect(later == .timer)
    }

    @Test func anEventsTimerFieldOverridesTheSetting() throws {
        var (shutter, s) = try Self.shutter()
        shutter.events.append(MessageStructure(CaptureStage.eventName, [("timer", .int(5))]))
        var messages: [CaptureMessage] = []
        let kind = shutter.decide(Self.steady, frame: 0, time: 0, fired: 0, backlog: 0, settings: s, messages: &messages)
        #expect(kind == nil)
        #expect(messages == [CaptureMessage(.timer(trigger: .event, seconds: 5, firesAt: 5 * Self.second))])
        #expect(shutter.events.isEmpty)
    }

    @Test func theStateIsReportedOncePerChange() throws {
        var (shutter, _) = try Self.shutter()
        let first = shutter.state(at: 0, pts: 7)
        #expect(
            first.changed
                == CaptureMessage(.state(.waitingForStability, reason: first.reason, readiness: .ready, shots: 0, pending: 0, pts: 7)))
        #expect(shutter.state(at: 1, pts: 8).changed == nil)
    }
}
