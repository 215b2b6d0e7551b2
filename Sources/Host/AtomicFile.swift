import Foundation
import GStreamerKit

/// Replaces a file atomically: a temp file in the same directory (the old file's permissions), written and
/// fsynced, renamed over the file, then the directory fsynced. A reader (or a process started after a kill -9)
/// sees the old content or the new, never half. Used by `SettingsFile.save` and `CameraStore`.
public enum AtomicFile {
    /// Writes `data` to `path` (for a symbolic link, to the file it points to, so the link stays one). On failure
    /// the old file is untouched, the temp file removed, and the error is the reason (`strerror` text).
    public static func write(_ data: Data, to path: String) throws(AtomicFile.Failure) {
        let target = writeTarget(path)
        let directory = FilePaths.directory(of: target)
        let temp = FilePaths.join(directory, ".\(FilePaths.fileName(of: target)).tmp-\(getpid())")
        unlink(temp)  // a leftover of an earlier process with this pid
        let file: AppendFile
        do { file = try AppendFile(path: temp) } catch { throw Failure(reason: error.message) }
        let mode = (try? FileManager.default.attributesOfItem(atPath: target))?[.posixPermissions] as? NSNumber
        if let mode, chmod(temp, mode_t(mode.uint16Value & 0o7777)) != 0 {
            let reason = String(cString: strerror(errno))
            file.close(); unlink(temp)
            throw Failure(reason: reason)
        }
        if let reason = file.write(Array(data)) ?? file.synchronize() {
            file.close(); unlink(temp)
            throw Failure(reason: reason)
        }
        file.close()
        guard rename(temp, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw Failure(reason: reason)
        }
        syncDirectory(directory)
    }

    /// Removes `path` (no error when it is already gone), then fsyncs its directory.
    public static func remove(_ path: String) throws(AtomicFile.Failure) {
        if unlink(path) != 0 && errno != ENOENT { throw Failure(reason: String(cString: strerror(errno))) }
        syncDirectory(FilePaths.directory(of: path))
    }

    /// Why a write failed.
    public struct Failure: Error, Sendable { public var reason: String }

    /// The file a write replaces: `path`, or for a symbolic link the file it points to.
    static func writeTarget(_ path: String) -> String {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil else { return path }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); _ = close(fd) }
    }
}
