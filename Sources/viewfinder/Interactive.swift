import Dispatch
import Foundation
import GStreamerKit
import Host
import Stages

/// Signals and keys for a session run from a terminal: Ctrl-C drains, a second Ctrl-C aborts,
/// SIGUSR1 and the `s` key fire snapshot triggers, `q` drains like Ctrl-C.
enum Interactive {
    static func run(_ session: Session) -> Int32 {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
        // A file-size limit (ulimit -f) must fail the write that hits it (an error for that branch),
        // not kill the whole process and leave its recordings unfinished.
        signal(SIGXFSZ, SIG_IGN)
        let queue = DispatchQueue(label: "viewfinder.signals")
        let interrupts = Counter()
        let terminal = TerminalMode()
        let onInterrupt: @Sendable () -> Void = {
            if interrupts.increment() == 1 {
                AppendFile.writeStandardError("\nviewfinder: stopping: sending end-of-stream (Ctrl-C again to abort)\n")
                session.requestStop()
            } else {
                // Never wait on GStreamer here: ask the session to stop, and if its thread is stuck in
                // GStreamer (a sink blocked on a client, a state change that does not return), leave
                // anyway after half a second, as gst-launch-1.0 does on a second Ctrl-C.
                AppendFile.writeStandardError("viewfinder: aborting\n")
                session.abort()
                queue.asyncAfter(deadline: .now() + abortGrace) {
                    terminal.restore()
                    AppendFile.writeStandardError("viewfinder: aborted (the pipeline did not stop in time)\n")
                    _exit(abortExitCode)
                }
            }
        }
        let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: queue)
        sigint.setEventHandler(handler: onInterrupt)
        sigint.resume()
        let sigterm = DispatchSource.makeSignalSource(signal: SIGTERM, queue: queue)
        sigterm.setEventHandler(handler: onInterrupt)
        sigterm.resume()
        let usr1 = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: queue)
        usr1.setEventHandler { Triggers.shared.fire() }
        usr1.resume()
        let keys = KeyReader(terminal: terminal) { key in
            switch key {
            case UInt8(ascii: "s"): Triggers.shared.fire()
            case UInt8(ascii: "q"): queue.async(execute: onInterrupt)
            default: break
            }
        }
        defer {
            withExtendedLifetime(keys) {}
            terminal.restore()
            sigint.cancel(); sigterm.cancel(); usr1.cancel()
        }
        return session.run()
    }
}

/// Exit code after a second Ctrl-C (128 + SIGINT, as a shell reports a process killed by it).
let abortExitCode: Int32 = 130
/// How long an abort may take before the process leaves without the pipelines' cooperation.
let abortGrace: DispatchTimeInterval = .milliseconds(500)

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

/// A counter touched only from the serial signal queue.
final class Counter: @unchecked Sendable {
    private var value = 0
    func increment() -> Int { value += 1; return value }
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
