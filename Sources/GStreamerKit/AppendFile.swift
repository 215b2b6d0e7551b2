#if canImport(Glibc)
import Glibc
#endif

/// A file opened for appending with O_APPEND: no seek ever, so FIFOs, pipes (`/dev/stdout | jq`) and
/// character devices work like regular files. Writes report errno's text instead of trapping
/// (Foundation's `FileHandle.write(_:)` raises on ENOSPC/EPIPE). Not thread-safe: callers serialise.
public final class AppendFile: @unchecked Sendable {
    private var fd: Int32
    /// The path it was opened with.
    public let path: String

    /// Opens (creating with 0644) for appending. A FIFO without a reader yet calls `waiting` and then
    /// blocks until one opens it, as a shell's `>>` does. Throws errno's text.
    public init(path: String, waiting: () -> Void = {}) throws(GStreamerError) {
        self.path = path
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC
        var f = open(path, flags | O_NONBLOCK, 0o644)
        if f < 0 && errno == ENXIO {
            waiting()
            repeat { f = open(path, flags, 0o644) } while f < 0 && errno == EINTR
        } else if f >= 0 {
            // Blocking writes from here on (a slow reader slows the writer's thread only).
            _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK)
        }
        guard f >= 0 else { throw GStreamerError(.resource, String(cString: strerror(errno))) }
        fd = f
    }

    /// Writes `text` to stderr, ignoring failures (a closed stderr must not trap, as Foundation's
    /// `FileHandle.standardError.write(_:)` does once SIGPIPE is ignored).
    public static func writeStandardError(_ text: String) {
        _ = writeAll(2, Array(text.utf8))
    }

    /// Writes all of `bytes` to `fd`, resuming after EINTR and short writes; nil on success, else errno's text.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            if n == 0 { return "nothing written" }
            done += n
        }
        return nil
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Writes all of `bytes` at the end; nil on success, else errno's text (ENOSPC, EPIPE, EIO...).
    public func write(_ bytes: [UInt8]) -> String? {
        guard fd >= 0 else { return "closed" }
        return Self.writeAll(fd, bytes)
    }

    /// fsync for regular files (pipes and devices have nothing to sync: ignored); nil on success, else
    /// errno's text (EIO, ENOSPC on some file systems).
    @discardableResult public func synchronize() -> String? {
        guard fd >= 0 else { return "closed" }
        guard fsync(fd) != 0 else { return nil }
        if errno == EINVAL { return nil }  // a pipe or device: nothing to sync
        return String(cString: strerror(errno))
    }

    /// Closes the file (later writes fail with "closed").
    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}
