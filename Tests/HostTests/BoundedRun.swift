import Foundation
import Synchronization

@testable import Host

/// Runs a session on a thread of its own, for a bounded time (the tests' way of never hanging on a run).
enum BoundedRun {
    /// Runs `session` until it ends or `timeout` s pass. Then, with `stopThenWait`, it asks for a stop (as
    /// Ctrl-C does) and waits that long more; a run still going after that (or after `timeout` without it) is
    /// aborted. Returns the exit code of a run that ended by itself or on the stop request, nil for an aborted one.
    static func run(_ session: Session, timeout: Double, stopThenWait: Double? = nil) -> Int32? {
        let result = Mutex<Int32?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let code = session.run()
            result.withLock { $0 = code }
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .success { return result.withLock { $0 } }
        if let stopThenWait {
            session.requestStop()
            if done.wait(timeout: .now() + stopThenWait) == .success { return result.withLock { $0 } }
        }
        session.abort()
        _ = done.wait(timeout: .now() + 5)
        return nil
    }
}
