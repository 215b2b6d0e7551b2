import FrameAnalysis
import GStreamerKit

/// When `capture` takes a photo: the state machine's auto verdict on each frame, then the other
/// triggers — `viewfinder-capture` events, and the shared `ShotSchedule` (manual, at, interval) —
/// delayed by the self-timer, refused while the snapshot output is busy or a capture is under way.
/// Also says when the state, its reason or the readiness changed, for the bus.
///
/// A value with no lock of its own: the stage keeps it in its runtime mutex; `decide` runs from
/// `process` on the group's worker, the rest under that lock from any thread.
struct CaptureShutter {
    /// The capture state machine.
    var machine = CaptureStateMachine()
    /// interval, at, manual and max-shots.
    var schedule: ShotSchedule
    /// The self-timer.
    private(set) var timer = SelfTimer()
    /// `viewfinder-capture` events not handled yet.
    var events: [MessageStructure] = []
    /// The state last posted.
    private var posted: (CapturePhase, String, CaptureReadiness)?

    /// A shutter using `schedule`, set from `settings`, started.
    init(schedule: ShotSchedule, settings s: CaptureSettings) {
        self.schedule = schedule
        machine.maxPending = s.maxPending
        apply(s)
        _ = machine.handle(.start)
    }

    /// Takes the settings that may change while playing (auto, delay, cooldown, max-shots).
    mutating func apply(_ s: CaptureSettings) {
        machine.autoCapture = s.auto
        machine.delay = UInt64(s.delay * 1e9)
        machine.cooldown = UInt64(s.cooldown * 1e9)
        machine.maxShots = schedule.maxShots
    }

    /// The trigger of the capture to make on this frame, if any: `obs` for auto, the frame's number,
    /// running `time`, the manual shutter's generation `fired`, and `backlog` photos queued on the
    /// snapshot output. What it armed or refused is added to `messages`.
    mutating func decide(
        _ obs: CaptureStateMachine.Observation, frame: Int, time: UInt64, fired: Int, backlog: Int,
        settings s: CaptureSettings, messages: inout [CaptureMessage]
    ) -> CaptureTrigger? {
        // A branch of the user's own is not tracked file by file: its queue is the bound instead
        // (the appsrc blocks when full, and the video must never wait for a save).
        let busy = backlog >= s.maxPending
        if busy { machine.autoCapture = false }
        var decision = machine.handle(.observe(obs))
        machine.autoCapture = s.auto
        // Other triggers: manual shutter, events, frame numbers, interval; the self-timer delays them.
        let due = schedule.due(frame: frame, time: time, fired: fired)
        var asked: [(CaptureTrigger, Int?)] = due.contains(.manual) ? [(.manual, nil)] : []
        asked += events.map { (.event, $0.integer("timer").map { Int($0) }) }
        asked += due.filter { $0 != .manual }.map { ($0, nil) }
        events.removeAll()
        if busy && !asked.isEmpty {
            messages.append(
                CaptureMessage(.refused(trigger: nil, reason: "busy: \(backlog) photos queued on the snapshot output", readiness: .busy)))
            asked.removeAll()
        }
        for (kind, timerOverride) in asked {
            let secs = timerOverride ?? s.timer
            if secs > 0 {
                timer.arm(at: time, seconds: secs)
                messages.append(CaptureMessage(.timer(trigger: kind, seconds: secs, firesAt: timer.deadline ?? 0)))
            } else if case .none = decision {
                decision = machine.handle(.trigger(kind, time: time))
            } else {
                messages.append(CaptureMessage(.refused(trigger: kind, reason: "already capturing", readiness: nil)))
            }
        }
        if timer.fires(at: time), case .none = decision {
            decision = machine.handle(.trigger(.timer, time: time))
        }
        switch decision {
        case .none: return nil
        case .refused(let why):
            messages.append(CaptureMessage(.refused(trigger: nil, reason: why, readiness: machine.readiness)))
            return nil
        case .capture(let kind): return kind
        }
    }

    /// The state now, and a `state` message when it differs from the last one posted (`pts`: the frame's).
    mutating func state(at time: UInt64, pts: UInt64?) -> (phase: CapturePhase, reason: String, countdown: Int?, changed: CaptureMessage?) {
        let now = (machine.phase, machine.reason, machine.readiness)
        let countdown = timer.remaining(at: time)
        if let p = posted, p == now { return (now.0, now.1, countdown, nil) }
        posted = now
        return (
            now.0, now.1, countdown,
            CaptureMessage(
                .state(
                    now.0, reason: now.1, readiness: now.2, shots: machine.shots,
                    pending: machine.pending, pts: pts ?? UInt64.max))
        )
    }
}
