import Foundation
import GStreamerKit
import Host
import Stages
import Synchronization

/// Signals and keys for a session run from a terminal: Ctrl-C drains, a second Ctrl-C aborts,
/// SIGUSR1 and the `s` key fire snapshot triggers, SIGUSR2 and the `c` key ask the clip recorders for a clip, `q`
/// drains like Ctrl-C.
enum Interactive {
    static func run(_ session: Session) -> Int32 {
        // A file-size limit (ulimit -f) must fail the write that hits it (an error for that branch),
        // not kill the whole process and leave its recordings unfinished.
        signal(SIGXFSZ, SIG_IGN)
        // No dispatch queue on this path: the signal thread acts itself, so nothing queued behind
        // compose's analysis (which keeps libdispatch's worker threads busy) can delay a Ctrl-C.
        let interrupts = Atomic<Int>(0)
        let terminal = TerminalMode()
        let onInterrupt: @Sendable () -> Void = {
            if interrupts.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                AppendFile.writeStandardError("\nviewfinder: stopping: sending end-of-stream (Ctrl-C again to abort)\n")
                session.requestStop()
            } else {
                // Never wait on GStreamer here: ask the session to stop, and if its thread is stuck in
                // GStreamer (a sink blocked on a client, a state change that does not return), leave
                // anyway after half a second, as gst-launch-1.0 does on a second Ctrl-C.
                AppendFile.writeStandardError("viewfinder: aborting\n")
                session.abort()
                Thread.detachNewThread {
                    usleep(abortGraceMicroseconds)
                    terminal.restore()
                    AppendFile.writeStandardError("viewfinder: aborted (the pipeline did not stop in time)\n")
                    _exit(abortExitCode)
                }
            }
        }
        SignalPipe.route { signo in
            switch signo {
            case SIGUSR1: Triggers.shared.fire()
            case SIGUSR2: ClipRequests.shared.signal.fire()
            default: onInterrupt()
            }
        }
        let keys = KeyReader(terminal: terminal) { key in
            switch key {
            case UInt8(ascii: "s"): Triggers.shared.fire()
            case UInt8(ascii: "c"): ClipRequests.shared.key.fire()
            case UInt8(ascii: "q"): onInterrupt()
            default: break
            }
        }
        defer {
            SignalPipe.route(nil)
            withExtendedLifetime(keys) {}
            terminal.restore()
        }
        return session.run()
    }
}

/// Signals through a self-pipe: the handler, run on whichever thread the kernel picks (GStreamer starts
/// many, all with the signals unblocked), only writes the signal's number; a thread of ours reads it.
///
/// Installed first thing in `main`, before the session is built (a debug build takes a second or two to
/// get there, and a Ctrl-C in that time used to be lost when the shell had started us with SIGINT
/// ignored, as it does for background jobs). Until a session is routed here, SIGINT and SIGTERM end the
/// process at once (nothing runs yet); SIGUSR1 and SIGUSR2 are ignored.
enum SignalPipe {
    /// The pipe's write end, set once before any handler is installed.
    nonisolated(unsafe) static var writeEnd: Int32 = -1
    private static let current = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    /// Sends the signals to `handler` from now on (nil: back to ending the process).
    static func route(_ handler: (@Sendable (Int32) -> Void)?) { current.withLock { $0 = handler } }

    /// Installs the handlers for SIGINT, SIGTERM, SIGUSR1 and SIGUSR2.
    static func install() {
        listen(to: [SIGINT, SIGTERM, SIGUSR1, SIGUSR2]) { signo in
            if let handler = current.withLock({ $0 }) { handler(signo); return }
            if signo != SIGUSR1 && signo != SIGUSR2 { _exit(128 + signo) }
        }
    }

    /// Installs the handlers and calls `handle` with each signal number, on a thread of its own.
    private static func listen(to signals: [Int32], handle: @escaping @Sendable (Int32) -> Void) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            AppendFile.writeStandardError(
                "viewfinder: cannot create the signal pipe: \(String(cString: strerror(errno))); Ctrl-C ends the process at once\n")
            return
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        writeEnd = fds[1]
        let readEnd = fds[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 { handle(Int32(byte)) } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
        // A parent may start us with these signals blocked (a process spawned from a libdispatch worker
        // thread inherits its mask, which blocks nearly everything): unblock them here, before any other
        // thread exists, so every thread inherits a mask that lets the handler run.
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for s in signals {
            // glibc's signal() installs the handler with SA_RESTART, so interrupted calls resume.
            signal(s) { signo in
                var b = UInt8(truncatingIfNeeded: signo)
                _ = write(SignalPipe.writeEnd, &b, 1)
            }
        }
    }
}

/// Exit code after a second Ctrl-C (128 + SIGINT, as a shell reports a process killed by it).
let abortExitCode: Int32 = 130
/// How long an abort may take before the process leaves without the pipelines' cooperation.
let abortGraceMicroseconds: useconds_t = 500_000

/// The terminal's saved mode, restored once from any thread (normal exit or a forced abort).
final class TerminalMode: @unchecked Sendable {
    private let lock = NSLock()
    private var saved: termios?
    func save(_ mode: termios) { lock.withLock { saved = mode } }
    func restore() {
        lock.withLock {
            guard var s = saved else { return }
            tcsetattr(0, TCSANOW, &s)
            saved = nil
        }
    }
}

/// Reads single key presses from a terminal stdin (raw mode, restored on exit).
final class KeyReader: @unchecked Sendable {
    private let thread: Thread

    init?(terminal: TerminalMode, onKey: @escaping @Sendable (UInt8) -> Void) {
        var saved = termios()
        guard isatty(0) == 1, tcgetattr(0, &saved) == 0 else { return nil }
        terminal.save(saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)
        thread = Thread {
            var byte: UInt8 = 0
            while read(0, &byte, 1) == 1 { onKey(byte) }
        }
        thread.start()
    }
}
