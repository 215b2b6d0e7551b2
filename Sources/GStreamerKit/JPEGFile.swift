import CGStreamer
import Foundation

/// What a written JPEG says about itself: whether it is complete, its size, and its EXIF read back
/// with GStreamer's own EXIF parser (the tag library jifmux wrote it with).
public struct JPEGFile: Sendable {
    /// True when the markers run from SOI through the scan to EOI (a file cut short is not complete).
    public var complete: Bool
    /// Pixel width from the frame header (SOFn), 0 when absent.
    public var width: Int
    /// Pixel height from the frame header.
    public var height: Int
    /// EXIF tags as GStreamer names them (`datetime`, `description`, `application-name`,
    /// `image-orientation`, `capturing-iso-speed`, `capturing-exposure-time`...), values as text.
    public var tags: [String: String]

    /// Reads the file at `path`; nil when it cannot be read or does not start like a JPEG.
    public static func read(_ path: String) -> JPEGFile? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return parse([UInt8](data))
    }

    /// A PNG's size from its IHDR chunk; complete when the file ends with the IEND chunk. No tags.
    public static func readPNG(_ path: String) -> JPEGFile? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let b = [UInt8](data)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard b.count >= 33, Array(b[0..<8]) == signature, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        let end = b.count >= 12 && Array(b[(b.count - 8)..<(b.count - 4)]) == Array("IEND".utf8)
        return JPEGFile(complete: end, width: be32(16), height: be32(20), tags: [:])
    }

    /// Walks the JPEG markers of `bytes`.
    public static func parse(_ b: [UInt8]) -> JPEGFile? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var out = JPEGFile(complete: false, width: 0, height: 0, tags: [:])
        var i = 2
        while i + 2 <= b.count {
            guard b[i] == 0xFF else { return out }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD9 { out.complete = true; return out }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            guard i + 4 <= b.count else { return out }
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard len >= 2, i + 2 + len <= b.count else { return out }
            let payload = Array(b[(i + 4)..<(i + 2 + len)])
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if payload.count >= 5 {
                    out.height = Int(payload[1]) << 8 | Int(payload[2])
                    out.width = Int(payload[3]) << 8 | Int(payload[4])
                }
            case 0xE1 where payload.count > 6 && payload[0..<6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]):
                out.tags = exifTags(Array(payload[6...]))
            case 0xDA:
                // Entropy-coded data follows: skip to the next marker that is not a stuffed 0xFF00 or a restart.
                var j = i + 2 + len
                while j + 1 < b.count {
                    if b[j] == 0xFF && b[j + 1] != 0 && !(0xD0...0xD7).contains(b[j + 1]) && b[j + 1] != 0xFF { break }
                    j += 1
                }
                i = j
                continue
            default: break
            }
            i += 2 + len
        }
        return out
    }

    /// EXIF (a TIFF structure) decoded by GStreamer's tag library into tag name -> text.
    static func exifTags(_ tiff: [UInt8]) -> [String: String] {
        GStreamer.initialize()
        let buf = tiff.withUnsafeBytes { p -> UnsafeMutablePointer<GstBuffer> in
            let b = gst_buffer_new_allocate(nil, gsize(p.count), nil)!
            gst_buffer_fill(b, 0, p.baseAddress, gsize(p.count))
            return b
        }
        defer { gst_buffer_unref(buf) }
        guard let list = gst_tag_list_from_exif_buffer_with_tiff_header(buf) else { return [:] }
        defer { gst_tag_list_unref(list) }
        guard let text = gst_tag_list_to_string(list) else { return [:] }
        defer { g_free(text) }
        guard let s = MessageStructure(parsing: String(cString: text)) else { return [:] }
        var tags: [String: String] = [:]
        for (k, v) in s.fields {
            switch v {
            case .string(let t): tags[k] = t
            case .int(let i): tags[k] = String(i)
            case .uint64(let u): tags[k] = String(u)
            case .double(let d): tags[k] = String(d)
            case .bool(let b): tags[k] = String(b)
            }
        }
        return tags
    }
}
