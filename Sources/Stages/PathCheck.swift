import Foundation
import GStreamerKit

/// Checks done before anything runs on paths a description reads or writes. Each returns nil when the
/// path is usable, or a sentence saying what is wrong with it (the caller adds the element or stage).
/// Nothing is created: directories a stage will make are created when the stage opens.
public enum PathCheck {
    private static let fm = FileManager.default

    private static func kind(_ path: String) -> (exists: Bool, isDirectory: Bool) {
        var dir: ObjCBool = false
        let exists = fm.fileExists(atPath: path, isDirectory: &dir)
        return (exists, dir.boolValue)
    }

    /// The closest existing path at or above `path` (`.` or `/` at worst).
    public static func nearestExisting(_ path: String) -> String {
        var p = path
        while !kind(p).exists {
            let up = FilePaths.directory(of: p)
            if up == p { break }
            p = up
        }
        return p
    }

    /// A file that will be read: it exists, is not a directory, and is readable.
    public static func readableFile(_ path: String) -> String? {
        let k = kind(path)
        if k.exists {
            if k.isDirectory { return "'\(Echo.value(path))' is a directory, not a file" }
            return fm.isReadableFile(atPath: path) ? nil : "file '\(Echo.value(path))' is not readable"
        }
        let above = nearestExisting(FilePaths.directory(of: path))
        if !kind(above).isDirectory { return "'\(Echo.value(above))' is a file, not a directory (in '\(Echo.value(path))')" }
        return "file '\(Echo.value(path))' does not exist"
    }

    /// A directory a pattern's files are read from (multifilesrc `%05d.jpg`, splitmuxsrc globs).
    public static func readableDirectory(of pattern: String) -> String? {
        let d = FilePaths.directory(of: pattern)
        let k = kind(d)
        if k.exists && k.isDirectory { return nil }
        if k.exists { return "'\(Echo.value(d))' is a file, not a directory (in '\(Echo.value(pattern))')" }
        return "directory '\(Echo.value(d))' does not exist (in '\(Echo.value(pattern))')"
    }

    /// A directory that exists or can be created: it is a writable directory, or its nearest existing
    /// ancestor is one.
    public static func creatableDirectory(_ dir: String) -> String? {
        let k = kind(dir)
        if k.exists {
            if !k.isDirectory { return "'\(Echo.value(dir))' is a file, not a directory" }
            return fm.isWritableFile(atPath: dir) ? nil : "directory '\(Echo.value(dir))' is not writable"
        }
        let above = nearestExisting(dir)
        if !kind(above).isDirectory { return "'\(Echo.value(above))' is a file, not a directory (in '\(Echo.value(dir))')" }
        if !fm.isWritableFile(atPath: above) {
            return "directory '\(Echo.value(dir))' cannot be created: '\(Echo.value(above))' is not writable"
        }
        return nil
    }

    /// A file (or a pattern of files) that will be written: its name is a file name and its directory
    /// exists and is writable, or is one of `willExist` (made by a stage when it opens) and can be created.
    public static func writableFile(_ path: String, willExist: [String] = []) -> String? {
        if path.hasSuffix("/") { return "'\(Echo.value(path))' names a directory: expected a file name" }
        let k = kind(path)
        if k.exists && k.isDirectory { return "'\(Echo.value(path))' is a directory: expected a file name" }
        let d = FilePaths.directory(of: path)
        let dk = kind(d)
        if dk.exists {
            if !dk.isDirectory { return "'\(Echo.value(d))' is a file, not a directory" }
            if !fm.isWritableFile(atPath: d) { return "directory '\(Echo.value(d))' is not writable" }
            if k.exists && !fm.isWritableFile(atPath: path) { return "file '\(Echo.value(path))' is not writable" }
            return nil
        }
        if willExist.contains(where: { d == $0 || d.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) {
            return creatableDirectory(d)
        }
        let above = nearestExisting(d)
        if !kind(above).isDirectory { return "'\(Echo.value(above))' is a file, not a directory" }
        return "directory '\(Echo.value(d))' does not exist"
    }
}
