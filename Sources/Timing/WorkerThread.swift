import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The host's long-lived threads (a camera's loop, a stage group's worker, an analysis thread, a source keeper's
/// ticks) are started here, the same way whoever asks for them: named (what `top -H`, gdb and /proc show), and at
/// the process's own scheduling priority.
///
/// A Linux thread inherits its creator's name and nice value, and `Thread.name` does not reach the kernel. So a
/// camera added through the API (its session built on a Dispatch user-initiated thread, nice -2) got worker and
/// analysis threads at nice -2 named "user-initiated-qos", and outran the cameras started from their files (nice 0):
/// in `bench cameras 7` the first camera got 2.5-5.1 analyses per second while the six added ones got 6.4-7.1.
public enum WorkerThread {
    /// Starts `body` on a new thread named `name` at the process's priority.
    @discardableResult
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread {
            adopt(name)
            body()
        }
        thread.name = name
        thread.start()
        return thread
    }

    /// Names the calling thread (the kernel keeps 15 bytes) and gives it the main thread's nice value when it has
    /// another (lowering a raised priority needs no privilege; a raise that is refused leaves it as it was). Swift's
    /// Glibc module has neither `gettid` nor `pthread_setname_np` (GNU extensions): both go through
    /// `/proc/thread-self`, as proc(5) documents for a thread's own `comm`.
    public static func adopt(_ name: String) {
        #if canImport(Glibc)
            var bytes = Array(name.utf8.prefix(15))
            while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            guard let tid = threadID(), let process = priority(of: id_t(getpid())), let mine = priority(of: tid), process != mine
            else { return }
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, process)
        #endif
    }

    /// The calling thread's kernel id (`/proc/thread-self` links to "PID/task/TID"), nil when it cannot be read.
    public static func threadID() -> id_t? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let last = link.split(separator: "/").last
        else { return nil }
        return id_t(last)
    }

    /// The nice value of thread (or process) `id`, nil when it cannot be read.
    public static func priority(of id: id_t) -> Int32? {
        #if canImport(Glibc)
            errno = 0
            let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id)
            return value == -1 && errno != 0 ? nil : value
        #else
            return nil
        #endif
    }
}
