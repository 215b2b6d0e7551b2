import Foundation
import GStreamerKit
import Stages
import Timing

/// The default branch of an extra output nobody requested (`vfcapture`'s photo writers): the stage's
/// gst-launch fragment in a pipeline of its own, fed through an appsrc, as the host's extra-output
/// segments are. Its bus is read by the element on its streaming thread (after each frame, and until
/// end-of-stream when the stream ends), so multifilesink's reports reach the stage (`busMessage`).
///
/// A branch that fails is handled as the host's `BranchSupervisor` does: set to NULL (its frames are dropped),
/// the stage told `outputFailed`, `viewfinder/output-error` posted; started again after 5 s, doubling up to
/// 60 s (`restartIfDue`, then `outputRestarted` and `viewfinder/output-restarted`), unless the stream ended.
/// The schedule is `Backoff.outputRestart` on `clock`; a restart that cannot start the branch counts as a failure.
/// Threads: made, started and stopped on the state-change thread; pushed to and polled on the element's
/// streaming thread (a stage's own threads may push tags); `failed` is behind a mutex, the restart schedule
/// is the streaming thread's.
final class DefaultBranch: @unchecked Sendable {
    /// The output it serves.
    let output: String
    private let pipeline: Pipeline
    private let source: AppSource
    private let bus: Bus
    private let failure = NSLock()
    private var failedText: String?
    /// Times the restarts.
    private let clock: any HostClock

    /// Parses `appsrc ! fragment` (nothing runs yet); a fragment that does not parse is an error naming it.
    init(stage: String, output: String, fragment: String, clock: any HostClock = SystemClock.shared) throws(StageError) {
        self.output = output
        self.clock = clock
        do {
            // videoconvert: the element negotiated with its main output only; the branch converts what it
            // cannot take (a handful of photos, not every frame).
            pipeline = try Pipeline.parse("appsrc name=vf_src ! videoconvert ! " + fragment)
        } catch {
            throw StageError(.usage, "\(stage): default branch of '\(output)' (\(Echo.value(fragment, limit: 200))): \(error.message)")
        }
        guard let src = pipeline.appSource(named: "vf_src") else {
            throw StageError(.library, "\(stage): default branch of '\(output)' has no appsrc")
        }
        source = src
        bus = pipeline.bus
        // Not live, bounded and blocking like the host's extra outputs; each photo's TAG event replaces the last.
        source.configure(live: false, maxBuffers: 8, minLatency: 0)
        for e in pipeline.describedElements { e.replaceTagsOnEachEvent() }
    }

    /// When a failed branch is started again (`clock`'s seconds), and the schedule (5 s, doubling up to 60 s,
    /// kept for the element's run).
    private var restartAt: Double?
    private var backoff = Backoff.outputRestart

    /// After a failure: stops the branch (NULL) and schedules its restart.
    func failedNow() {
        pipeline.setState(.null)
        restartAt = clock.now + backoff.next()
    }

    /// Starts a failed branch again once its wait is over (PLAYING, caps set, pushes accepted again).
    /// True when it was restarted.
    func restartIfDue(caps: Caps?) -> Bool {
        let now = clock.now
        guard let at = restartAt, now >= at else { return false }
        restartAt = nil
        guard pipeline.setState(.playing) != .failure else {
            restartAt = now + backoff.next()
            return false
        }
        if let caps { source.setCaps(caps) }
        failure.withLock { failedText = nil }
        return true
    }

    /// The error that stopped the branch, if any.
    var failed: String? { failure.withLock { failedText } }

    /// Starts the branch (PLAYING: it prerolls on the first frame pushed). An error text when it cannot.
    func start() -> String? {
        pipeline.setState(.playing) == .failure ? "default branch of '\(output)' could not start" : nil
    }

    /// Sets the caps the next frames carry, so tags sent before the first frame keep their order.
    func setCaps(_ caps: Caps) { source.setCaps(caps) }

    /// Pushes a frame (a new reference to the same buffer). False once the branch failed.
    func push(_ frame: VideoFrame) -> Bool {
        guard failed == nil else { return false }
        return source.push(frame.buffer.shared(), caps: frame.caps, segment: frame.segment)
    }

    /// Sends tags before the next frame.
    func push(_ tags: TagList) -> Bool { failed == nil && source.sendTags(tags) }

    /// Sends a custom downstream event before the next frame.
    func push(event: MessageStructure) -> Bool { failed == nil && source.sendCustomEvent(event) }

    /// Frames queued and not yet taken by the branch.
    var backlog: Int { source.queuedBuffers }

    /// Hands the branch's messages to `report` without waiting: element messages (multifilesink's) and the
    /// first error. Returns true once the branch reached end-of-stream or failed.
    @discardableResult
    func poll(wait: UInt64 = 0, report: (BranchEvent) -> Void) -> Bool {
        var first = true
        while let m = bus.pop(timeout: first ? wait : 0) {
            first = false
            switch m.kind {
            case .element(let s): report(.message(BusMessage(source: m.source, structure: s)))
            case .error(let text, _):
                let already = failure.withLock { () -> Bool in
                    defer { if failedText == nil { failedText = text } }
                    return failedText != nil
                }
                if !already { report(.failed(element: m.source, text: text)) }
                return true
            case .eos: return true
            default: break
            }
        }
        return false
    }

    /// End of stream: ends the branch's input and waits (up to `timeout` s) until it has written everything,
    /// reporting its messages on the way.
    func finish(timeout: Double, report: (BranchEvent) -> Void) {
        guard failed == nil else { return }
        source.endOfStream()
        // Real time, whatever `clock` is: this waits for the branch's own streaming threads.
        let real = SystemClock.shared
        let deadline = real.now + timeout
        while real.now < deadline {
            if poll(wait: 50_000_000, report: report) { return }
        }
        report(.failed(element: "vf_src", text: "default branch of '\(output)' did not finish within \(Int(timeout)) s"))
    }

    /// Stops the branch (NULL): unwritten frames are dropped.
    func stop() { pipeline.setState(.null) }
}

/// What a default branch reports to its element.
enum BranchEvent {
    /// An element message from the branch (multifilesink's file reports).
    case message(BusMessage)
    /// The branch stopped with an error.
    case failed(element: String, text: String)
}
