import Foundation
import Synchronization
import Testing

@testable import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// `WorkerThread`: threads named for the kernel, at the process's priority whoever starts them.
@Suite struct WorkerThreadTests {
    /// What a worker saw of itself: its kernel id, /proc's name for it, its nice value.
    struct Seen: Sendable {
        var tid: id_t?
        var comm: String
        var nice: Int32?
    }

    static func comm(_ tid: id_t?) -> String {
        guard let tid, let s = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8) else { return "" }
        return s.trimmingCharacters(in: .newlines)
    }

    /// Starts a worker from a thread whose nice value was raised to 5 (as a Dispatch thread's differs from the
    /// main thread's); returns what the worker saw.
    static func startFromNiceThread(_ name: String) -> (creator: Int32?, worker: Seen) {
        let seen = Mutex<(Int32?, Seen?)>((nil, nil))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let me = WorkerThread.threadID()!
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), me, 5)
            seen.withLock { $0.0 = WorkerThread.priority(of: me) }
            WorkerThread.start(name) {
                let tid = WorkerThread.threadID()
                seen.withLock { $0.1 = Seen(tid: tid, comm: comm(tid), nice: tid.flatMap { WorkerThread.priority(of: $0) }) }
                done.signal()
            }
        }
        _ = done.wait(timeout: .now() + 10)
        return seen.withLock { ($0.0, $0.1 ?? Seen(tid: nil, comm: "", nice: nil)) }
    }

    /// The worker's kernel name is the given one cut to 15 bytes (never inside a UTF-8 character), and it runs at the
    /// main thread's nice value, not its creator's (lowering a raised nice value needs privilege: as root it is
    /// the main thread's; otherwise the kernel refuses and the creator's stays).
    @Test func aWorkerIsNamedAndRunsAtTheProcessPriority() throws {
        let main = try #require(WorkerThread.priority(of: id_t(getpid())))
        let (creator, worker) = Self.startFromNiceThread("vf-compose0-analysis")
        #expect(creator == 5)
        #expect(worker.tid != nil && worker.tid != id_t(getpid()))
        #expect(worker.comm == "vf-compose0-ana")
        #expect(worker.nice == (geteuid() == 0 ? main : 5))
        // A name cut inside "é" (2 bytes at bytes 14-15) keeps 14 bytes.
        #expect(Self.startFromNiceThread("vf-camera-abcdé").worker.comm == "vf-camera-abcd")
    }

    /// `threadID` is the calling thread's: the main thread's is the process id, another thread's differs and is
    /// one of the process's tasks while it runs.
    @Test func threadIDIsTheKernelsID() {
        let seen = Mutex<(id_t?, Bool)>((nil, false))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let tid = WorkerThread.threadID()
            seen.withLock { $0 = (tid, tid.map { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") } ?? false) }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        let (tid, listed) = seen.withLock { $0 }
        #expect(tid != nil && tid != id_t(getpid()))
        #expect(listed)
        #expect(WorkerThread.threadID() == id_t(getpid()) || !Thread.isMainThread)
    }
}
