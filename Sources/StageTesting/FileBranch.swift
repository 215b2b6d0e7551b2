import Foundation
import GStreamerKit
import Stages

/// A simulated default branch (`... ! jpegenc ! multifilesink location=... post-messages=true`): each
/// frame pushed on its output "is written" as a file and reported to every stage the way multifilesink
/// reports it (a `GstMultiFileSink` element message with `filename`, `index`, `timestamp`), before the
/// push returns — as a fast branch on its own thread may.
///
/// The location pattern, first index and sink name are read from the stage's `defaultBranch(for:)`
/// fragment, so files land where the real branch would put them.
public struct FileBranch: Sendable {
    /// What is written for each frame.
    public enum Content: Sendable {
        /// These bytes (e.g. one real JPEG), whatever the frame holds.
        case fixed(Data)
        /// The frame's pixels encoded as JPEG by GStreamer's jpegenc (BGRA frames only).
        case jpeg(quality: Int)
    }

    /// The multifilesink's name (`cap_snapshot_files`): the reports' source.
    public var sinkName: String
    /// The printf-style location (`DIR/.partial/IMG_%05d.jpg`).
    public var location: String
    /// The number of the next file.
    public var index: Int
    /// What each file holds.
    public var content: Content

    /// A branch writing `content` at `location` from `index`, reported as `sinkName`.
    public init(sinkName: String, location: String, index: Int = 0, content: Content) {
        self.sinkName = sinkName; self.location = location; self.index = index; self.content = content
    }

    /// The branch a gst-launch fragment describes: its multifilesink's `name`, `location` and `index`.
    /// Nil when the fragment has no multifilesink with a location.
    public init?(fragment: String, content: Content) {
        let tokens = Self.tokens(fragment)
        guard let sink = tokens.firstIndex(of: "multifilesink") else { return nil }
        var props: [String: String] = [:]
        for t in tokens[(sink + 1)...] {
            if t == "!" { break }
            if let eq = t.firstIndex(of: "=") { props[String(t[..<eq])] = String(t[t.index(after: eq)...]) }
        }
        guard let location = props["location"] else { return nil }
        self.init(
            sinkName: props["name"] ?? "multifilesink0", location: location, index: props["index"].flatMap { Int($0) } ?? 0,
            content: content)
    }

    /// Whitespace-separated words of a gst-launch fragment, with "double quoted" parts unquoted.
    static func tokens(_ text: String) -> [String] {
        var out: [String] = [], word = "", quoted = false, escaped = false, any = false
        for c in text {
            if escaped { word.append(c); escaped = false; continue }
            if quoted && c == "\\" { escaped = true; continue }
            if c == "\"" { quoted.toggle(); any = true; continue }
            if c.isWhitespace && !quoted {
                if any || !word.isEmpty { out.append(word) }
                word = ""; any = false
                continue
            }
            word.append(c)
        }
        if any || !word.isEmpty { out.append(word) }
        return out
    }

    /// The file name for the current index.
    func path() -> String { String(format: location, index) }

    /// Writes `frame` as the next file; returns the report multifilesink would post, or nil when the
    /// file could not be written (as a failed branch posts nothing).
    mutating func write(_ frame: VideoFrame) -> BusMessage? {
        let file = path()
        switch content {
        case .fixed(let bytes):
            guard FileManager.default.createFile(atPath: file, contents: bytes) else { return nil }
        case .jpeg(let quality):
            guard frame.info.format == "BGRA", let plane = try? frame.planeBytes(plane: 0) else { return nil }
            do {
                try ImageFile.encodeBGRA(
                    plane.bytes, width: frame.info.width, height: frame.info.height, stride: plane.rowBytes, to: file, quality: quality)
            } catch { return nil }
        }
        let number = index
        index += 1
        return BusMessage(
            source: sinkName,
            structure: MessageStructure(
                "GstMultiFileSink",
                [
                    ("filename", .string(file)), ("index", .int(Int32(number))), ("timestamp", .uint64(frame.pts ?? 0)),
                ]))
    }
}
