import Diagnostics
import Foundation
import GStreamerKit

/// Appends JSON objects, one per line, to a file, a FIFO or a pipe (`/dev/stdout | jq`).
///
/// `init` only checks the path; `open()` (from the stage's `open`, just before start) opens it with
/// O_APPEND, so nothing seeks and a non-seekable file works. A failed write (a full disk, a closed pipe)
/// drops that line and is reported once (`Log.stages`) naming the stage; the stream goes on.
final class JSONLineWriter: @unchecked Sendable {
    let path: String
    let stage: String
    private var file: AppendFile?
    private let lock = NSLock()
    /// Lines that could not be written.
    private(set) var failedLines = 0

    init(path: String, stage: String) throws(StageError) {
        self.path = path
        self.stage = stage
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue {
                throw StageError(.usage, "\(stage): metadata-location '\(Echo.value(path))' is a directory: expected a file")
            }
            if !fm.isWritableFile(atPath: path) {
                throw StageError(.usage, "\(stage): metadata-location '\(Echo.value(path))' is not writable")
            }
        } else if let problem = PathCheck.writableFile(path) {
            throw StageError(.usage, "\(stage): cannot write metadata-location '\(Echo.value(path))': \(problem)")
        }
    }

    /// Opens (creating a missing file) for appending. A FIFO without a reader is waited for, as a shell's `>>` does.
    func open() throws(StageError) {
        lock.lock(); defer { lock.unlock() }
        if file != nil { return }
        do {
            file = try AppendFile(path: path) {
                Log.stages.say(.notice, "\(self.stage): waiting for a reader on metadata-location '\(self.path)'")
            }
        } catch {
            throw StageError(.resource, "\(stage): cannot open metadata-location '\(path)': \(error.message)")
        }
    }

    func write(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        lock.lock(); defer { lock.unlock() }
        guard let file, let problem = file.write(Array(data) + [0x0A]) else { return }
        failedLines += 1
        if failedLines == 1 {
            Log.stages.say(
                .warning,
                "WARNING from stage \(stage): cannot write metadata-location '\(path)': \(problem); metadata lines are dropped, the stream goes on"
            )
        }
    }

    func flush() { lock.lock(); defer { lock.unlock() }; file?.synchronize() }
}
