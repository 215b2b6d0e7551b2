import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization

/// Writes a settings file back after live property changes (`--save-settings`), coalesced: `record` only
/// updates the copy in memory and, when no write is under way, starts one on the writer's own serial queue;
/// changes made while a write is in flight set the pending flag and are written by the next round. So a
/// burst of 50 PATCHes costs the caller's thread nothing but a mutex, at most one write is in flight, and
/// the last state always lands. `flush()` waits for it (at exit). A failed write is reported ("settings:
/// cannot write FILE: reason", each distinct failure once until a write succeeds) and the run goes on.
///
/// Threads and locks: `state` (the settings, the pending and running flags, the last failure) is one mutex
/// taken briefly by `record` (any thread: the control server's tasks, later MQTT) and by the queue, never
/// while saving. Nothing here runs on a video thread or the bus loop.
public final class SettingsWriter: Sendable {
    /// What the writer holds.
    struct State {
        var settings: SettingsFile
        /// Changes not written yet.
        var pending = false
        /// A round is queued or writing.
        var running = false
        /// The last failure reported (not repeated until a write succeeds).
        var lastFailure: String?
        /// Completed write attempts.
        var writes = 0
    }

    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "vf-settings-writer")
    private let save: @Sendable (SettingsFile) throws(HostError) -> Void
    private let report: @Sendable (String) -> Void

    /// A writer for `settings`; `save` writes one state (default `SettingsFile.save`), `report` gets failure
    /// lines (default: stderr).
    public init(
        _ settings: SettingsFile,
        save: @escaping @Sendable (SettingsFile) throws(HostError) -> Void = { s throws(HostError) in try s.save() },
        report: @escaping @Sendable (String) -> Void = { Log.host.say(.warning, $0) }
    ) {
        state = Mutex(State(settings: settings))
        self.save = save
        self.report = report
    }

    /// The settings as they stand (written or about to be).
    public var settings: SettingsFile { state.withLock { $0.settings } }

    /// Write attempts made so far (each writes the newest state).
    public var writes: Int { state.withLock { $0.writes } }

    /// True while a round is queued or writing.
    public var isWriting: Bool { state.withLock { $0.running } }

    /// Records live changes of stage `name` and schedules a write. Any thread; never waits on a write.
    public func record(stage name: String, _ changes: [(String, PropertyValue)]) {
        guard !changes.isEmpty else { return }
        let start = state.withLock { s in
            s.settings.record(stage: name, changes)
            s.pending = true
            guard !s.running else { return false }
            s.running = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    /// Writes until nothing is pending; runs on the queue, one round at a time.
    private func drain() {
        while true {
            let next: SettingsFile? = state.withLock { s in
                guard s.pending else { s.running = false; return nil }
                s.pending = false
                return s.settings
            }
            guard let next else { return }
            var failure: String?
            do { try save(next) } catch { failure = error.message }
            let line: String? = state.withLock { s in
                s.writes += 1
                defer { s.lastFailure = failure }
                return failure != nil && failure != s.lastFailure ? failure : nil
            }
            if let line { report(line) }
        }
    }

    /// Waits until every recorded change was written (or failed). Call at exit, not on a video thread.
    public func flush() { queue.sync {} }
}
