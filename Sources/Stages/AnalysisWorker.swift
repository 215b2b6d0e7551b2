import Foundation
import Synchronization
import Timing

/// Runs analysis jobs off the video thread: a single slot that always holds the latest job, so a
/// slow analysis skips frames instead of stalling the stream. Results carry their own timestamps.
final class AnalysisWorker<Job: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: Job?
    private var busy = false
    private var stopped = false
    private let work: @Sendable (Job) -> Void
    /// Jobs replaced before they ran (the stream was faster than the analysis).
    private(set) var skipped = 0
    /// Jobs run.
    private(set) var completed = 0

    init(name: String, work: @escaping @Sendable (Job) -> Void) {
        self.work = work
        // The thread keeps the worker alive until `stop()` lets the loop end (not kept here: a stored Thread would
        // hold its closure, and so this worker, for good).
        WorkerThread.start(name) { self.loop() }
    }

    /// Offers the newest job; replaces one not started yet (returned: it will never run). Never blocks on the analysis.
    @discardableResult func submit(_ job: Job) -> Job? {
        condition.lock()
        let replaced = pending
        if pending != nil { skipped += 1 }
        pending = job
        condition.signal()
        condition.unlock()
        return replaced
    }

    /// Waits (bounded in real time: the analysis thread runs in real time) until the pending job, if any, and
    /// the running one are done.
    func drain(timeout: TimeInterval = 10) {
        let real = SystemClock.shared
        let deadline = real.now + timeout
        condition.lock()
        while (pending != nil || busy) && real.now < deadline { real.wait(on: condition, seconds: min(deadline - real.now, 0.05)) }
        condition.unlock()
    }

    /// Ends the thread after the current job.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending == nil && !stopped { condition.wait() }
            if stopped { condition.unlock(); return }
            let job = pending!
            pending = nil
            busy = true
            condition.unlock()
            work(job)
            condition.lock()
            busy = false
            completed += 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
