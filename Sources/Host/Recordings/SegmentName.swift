import Foundation
import GStreamerKit

/// The names a `recordings` element gives its segments, `REC_nnnnn.EXT` (five digits or more: splitmuxsink's
/// `%05d`), and the only files its retention or a delete ever removes: any other file in its directory (clips,
/// photos, `recordings.json`, a user's own) is never touched. Every format's extension counts, so a directory that
/// changed format keeps one numbering and one retention.
public enum SegmentName {
    /// The location pattern splitmuxsink is given.
    public static func pattern(directory: String, format: RecordingFormat) -> String {
        directory.hasSuffix("/") ? "\(directory)REC_%05d.\(format.fileExtension)" : "\(directory)/REC_%05d.\(format.fileExtension)"
    }

    /// The file name of segment `index`.
    public static func name(index: Int, format: RecordingFormat) -> String {
        let digits = String(index)
        return "REC_" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + "." + format.fileExtension
    }

    /// The index of a segment's file name (`REC_00042.mp4` -> 42), nil for any other name (a path is not a name).
    public static func index(of name: String) -> Int? {
        guard name.hasPrefix("REC_"), let format = RecordingFormat(fileName: name) else { return nil }
        let digits = name.dropFirst(4).dropLast(format.fileExtension.count + 1)
        guard digits.count >= 5, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(digits)
    }

    /// The segment names lying in `directory` (regular files only), oldest (lowest index) first; empty when it
    /// cannot be read.
    public static func list(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [(name: String, index: Int)] = []
        for n in names {
            guard let i = index(of: n), isRegularFile(FilePaths.join(directory, n)) else { continue }
            found.append((n, i))
        }
        found.sort { a, b in a.index != b.index ? a.index < b.index : a.name < b.name }
        return found.map(\.name)
    }

    /// One past the highest segment index lying in `directory` (0 when none): a restart never overwrites.
    public static func nextIndex(in directory: String) -> Int {
        (list(in: directory).compactMap(index(of:)).max() ?? -1) + 1
    }

    /// True for a regular file (a symlink is looked at itself, not followed).
    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }
}
