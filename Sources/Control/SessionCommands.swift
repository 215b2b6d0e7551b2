import GStreamerKit
import Host
import Stages

/// What every way in (HTTP routes, MQTT commands) does the same way: the state object and the shutter.
/// Called on the transport's own threads (server tasks, libmosquitto's thread), never a video thread; it
/// reaches the session only through its thread-safe accessors.
enum SessionCommands {
    /// `{"state": phase}` plus, once the pipelines play, `framesIn`, `framesOut`, `dropped`, `fps`,
    /// `seconds`, `copies` (the stats line's figures); then the services' own fields (`webrtc` with a `webrtcserve`).
    static func state(of session: Session) -> [String: Any] {
        var o: [String: Any] = ["state": session.phase.rawValue]
        if let r = session.liveReport {
            o["framesIn"] = r.framesIn; o["framesOut"] = r.framesOut; o["dropped"] = r.dropped
            o["fps"] = r.fps; o["seconds"] = r.seconds; o["copies"] = r.copies
        }
        for s in session.services { o.merge(s.stateFields()) { a, _ in a } }
        return o
    }

    /// Fires the manual shutter (no fields: `fire`, as SIGUSR1 does), or with `timer` (integer 0 - 60 s)
    /// sends the `viewfinder-capture` custom event with that self-timer (trigger `event` in records.json).
    /// Returns what was done (`{"trigger": "manual"}` or `{"trigger": "event", "timer": N}`); a bad field is
    /// refused naming it, and then nothing fires.
    static func capture(_ fields: [(String, JSONScalar)], session: Session, fire: () -> Void) throws(JSONScalar.Problem) -> [String: Any] {
        try capture(timer: MQTTCommand.captureTimer(fields), session: session, fire: fire)
    }

    /// A shutter for `session` alone: the `viewfinder-capture` event (no self-timer) into its groups, where SIGUSR1's
    /// trigger fires every capture stage of the process (`serve` runs many sessions).
    static func eventShutter(_ session: Session) -> @Sendable () -> Void {
        { [weak session] in session?.sendCustomEvent(MessageStructure(CaptureStage.eventName, [])) }
    }

    /// The shutter with the self-timer already checked (`MQTTCommand.captureTimer`): nil fires it at once.
    static func capture(timer: Int?, session: Session, fire: () -> Void) throws(JSONScalar.Problem) -> [String: Any] {
        if let timer {
            guard let seconds = Int32(exactly: timer), (0...60).contains(seconds) else {
                throw JSONScalar.Problem(message: "bad value '\(timer)' for 'timer': expected an integer 0 - 60 (seconds)", field: "timer")
            }
            session.sendCustomEvent(MessageStructure(CaptureStage.eventName, [("timer", .int(seconds))]))
            return ["trigger": "event", "timer": timer]
        }
        fire()
        return ["trigger": "manual"]
    }
}
