import Foundation
import Stages
import Synchronization
import Timing

/// One named pipeline of `viewfinder serve`: a thread that builds its `Session`, runs it to the end, and decides
/// what comes next — after an error a restart on the back-off (1 s doubling to 30 s, `Backoff`), after
/// end-of-stream the end (unless its settings say `restart: always`), after a user's stop a wait for a start.
/// Each session is a whole one: its own stages, services and failures, so one camera's failure ends only its own
/// run. Every change of state is announced (`PipelineMessage`: the overview's events, MQTT).
///
/// Threads and locks: the thread `vf-camera-NAME` runs the loop and each session's `run()` (the session's bus loop
/// is on it). Commands (`start`, `stop`, `restart`, `remove`) come from any thread (the API's tasks, MQTT, the
/// signal thread): they change `want` under `inner`, ask the running session to stop (atomics only) and wake the
/// loop's sleep. `inner` is never held while calling into a session or the announcer.
public final class Camera: @unchecked Sendable {
    /// What a user asked for.
    enum Want: Sendable { case run, stop, remove }

    /// Where the camera is, with its figures.
    public struct Status: Sendable {
        /// The state the last announcement gave.
        public var state: PipelineMessage.State
        /// Why the last run ended with an error (restarting, failed), else empty.
        public var error: String
        /// Restarts after errors so far.
        public var restarts: Int
        /// When the next start is due (restarting), on the camera's clock.
        public var retryAt: Double?
    }

    /// The pipeline's name.
    public let name: String
    /// The clock restarts are timed by.
    public let clock: any HostClock
    /// Builds and prepares a session for the spec (usage errors: the spec no longer builds).
    let build: @Sendable (CameraSpec) throws(HostError) -> Session
    let announce: @Sendable (PipelineMessage) -> Void
    /// Real seconds a stop waits for end-of-stream before it aborts the run.
    let drainLimit: Double

    private struct Inner {
        var spec: CameraSpec
        var want: Want
        var status = Status(state: .starting, error: "", restarts: 0, retryAt: nil)
        var session: Session?
        /// Ends the loop's current sleep; a fresh one per sleep.
        var wake = Wakeup()
        /// A restart was asked for: the next end is not judged, the loop starts again at once.
        var restartNow = false
        var finished = false
        /// Announced when the loop ends.
        var final = PipelineMessage.State.removed
    }
    private let inner: Mutex<Inner>
    /// Signalled when the loop has ended (remove).
    private let done = NSCondition()

    /// A camera for `spec`; nothing runs until `launch`. `want` is where it starts: running or stopped.
    init(
        spec: CameraSpec, running: Bool, clock: any HostClock, drainLimit: Double = 10,
        build: @escaping @Sendable (CameraSpec) throws(HostError) -> Session, announce: @escaping @Sendable (PipelineMessage) -> Void
    ) {
        name = spec.name
        self.clock = clock; self.build = build; self.announce = announce; self.drainLimit = drainLimit
        inner = Mutex(Inner(spec: spec, want: running ? .run : .stop))
        if !running { inner.withLock { $0.status.state = .stopped } }
    }

    /// Starts the loop's thread; `first` is a session already built for the spec (the API's validation), run first.
    func launch(first: Session? = nil) {
        WorkerThread.start("vf-cam-\(name)") { [self] in loop(first: first) }
    }

    /// The spec it runs.
    public var spec: CameraSpec { inner.withLock { $0.spec } }
    /// Its state and figures.
    public var status: Status { inner.withLock { $0.status } }
    /// The running session, nil between runs.
    public var session: Session? { inner.withLock { $0.session } }

    /// Starts it (a stopped, ended or failed camera; one waiting for a restart starts at once).
    public func start() {
        let wake = inner.withLock { i -> Wakeup in
            if i.want != .remove { i.want = .run }
            return i.wake
        }
        wake.signal()
    }

    /// Stops it: end-of-stream (recordings finalised); it waits for a start.
    public func stop() {
        let (session, wake) = inner.withLock { i -> (Session?, Wakeup) in
            if i.want != .remove { i.want = .stop }
            return (i.session, i.wake)
        }
        if let session {
            session.requestStop()
            set(.stopping)
        }
        wake.signal()
    }

    /// Ends the current run with end-of-stream and starts a new one at once (a new session: new settings apply).
    public func restart() {
        let (session, wake) = inner.withLock { i -> (Session?, Wakeup) in
            guard i.want != .remove else { return (nil, i.wake) }
            i.want = .run
            i.restartNow = i.session != nil
            return (i.session, i.wake)
        }
        if let session {
            session.requestStop()
            set(.stopping)
        }
        wake.signal()
    }

    /// Replaces the spec (a new description or settings); applies from the next run.
    func replace(_ spec: CameraSpec) { inner.withLock { $0.spec = spec } }

    /// Ends it for good: end-of-stream, recordings finalised; waits (in real time) until its thread has left, at
    /// most `drainLimit` s before the run is aborted, then 5 s more. False when the thread is still there.
    /// `final` is the state announced at the end: `removed` (deleted) or `stopped` (the process ends).
    @discardableResult
    public func remove(final: PipelineMessage.State = .removed) -> Bool {
        let (session, wake) = inner.withLock { i -> (Session?, Wakeup) in
            i.want = .remove
            i.final = final
            return (i.session, i.wake)
        }
        if let session {
            session.requestStop()
            set(.stopping)
        }
        wake.signal()
        if !waitFinished(seconds: drainLimit) {
            self.session?.abort()
            _ = waitFinished(seconds: 5)
        }
        return inner.withLock { $0.finished }
    }

    /// Waits in real time until the loop has ended, at most `seconds` (a wake-up without the end waits on).
    private func waitFinished(seconds: Double) -> Bool {
        let real = SystemClock.shared
        let deadline = real.now + seconds
        done.lock()
        defer { done.unlock() }
        while !inner.withLock({ $0.finished }) {
            let left = deadline - real.now
            guard left > 0 else { return false }
            real.wait(on: done, seconds: left)
        }
        return true
    }

    // MARK: the loop

    private func loop(first: Session?) {
        var ready = first
        var backoff = Backoff(first: 1, maximum: 30)
        /// The last run ended by itself and the loop starts it again (not a user's start).
        var retrying = false
        while true {
            let (want, spec, wake) = inner.withLock { i -> (Want, CameraSpec, Wakeup) in
                i.wake = Wakeup()
                return (i.want, i.spec, i.wake)
            }
            switch want {
            case .remove:
                ready?.close()
                finish()
                return
            case .stop:
                ready?.close()
                ready = nil
                retrying = false
                // Waits for a command (an hour at a time: a command's wakeup ends it).
                _ = clock.sleep(seconds: 3600, unlessSignalled: wake)
                continue
            case .run: break
            }
            let session: Session
            if let r = ready {
                session = r
                ready = nil
            } else {
                set(.starting)
                do { session = try build(spec) } catch {
                    // Restarting after an error, a build that fails (a directory gone, a port taken) is one more
                    // failed attempt on the back-off: what it needs may come back. Started by a user, it waits.
                    if retrying {
                        restartAfter(backoff.next(), error: error.message, wake: wake)
                        continue
                    }
                    inner.withLock { i in
                        if i.want == .run { i.want = .stop }
                    }
                    set(.failed, error: error.message)
                    continue
                }
            }
            // A stop or removal that came while the session was being built: it never plays.
            let proceed = inner.withLock { i -> Bool in
                if i.want == .run { i.session = session }
                return i.want == .run
            }
            guard proceed else {
                session.close()
                continue
            }
            session.onPlaying = { [weak self] _ in self?.set(.playing) }
            let code = session.run()
            session.close()
            let ran = session.report?.seconds ?? 0
            let (wantNow, restartNow) = inner.withLock { i -> (Want, Bool) in
                i.session = nil
                defer { i.restartNow = false }
                return (i.want, i.restartNow)
            }
            if wantNow != .run || restartNow {
                if wantNow == .stop { set(.stopped) }
                backoff.reset()
                retrying = false
                continue
            }
            retrying = true
            // A run that played a while proves the spec: its next failure starts the back-off from 1 s again.
            if ran >= 30 { backoff.reset() }
            if code == 0 {
                if spec.restart == .always {
                    restartAfter(backoff.next(), error: "", wake: wake)
                } else {
                    inner.withLock { i in
                        if i.want == .run { i.want = .stop }
                    }
                    set(.ended)
                }
                continue
            }
            let why = session.errors.joined(separator: "; ")
            if spec.restart == .never {
                inner.withLock { i in
                    if i.want == .run { i.want = .stop }
                }
                set(.failed, error: why)
                continue
            }
            restartAfter(backoff.next(), error: why, wake: wake)
        }
    }

    /// Announces the restart, then sleeps `delay` s of the clock unless a command comes first.
    private func restartAfter(_ delay: Double, error: String, wake: Wakeup) {
        let due = clock.now + delay
        inner.withLock { i in
            i.status.restarts += 1
            i.status.retryAt = due
        }
        set(.restarting, error: error, retryIn: delay)
        _ = clock.sleep(until: due, unlessSignalled: wake)
        inner.withLock { $0.status.retryAt = nil }
    }

    private func set(_ state: PipelineMessage.State, error: String = "", retryIn: Double = 0) {
        let restarts = inner.withLock { i -> Int in
            i.status.state = state
            if state != .playing && state != .starting { i.status.error = error }
            if state == .playing { i.status.error = "" }
            return i.status.restarts
        }
        announce(PipelineMessage(name: name, state: state, error: error, retryIn: retryIn, restarts: restarts))
    }

    private func finish() {
        set(inner.withLock { $0.final })
        done.lock()
        inner.withLock { $0.finished = true }
        done.broadcast()
        done.unlock()
    }
}
