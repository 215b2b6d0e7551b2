import Foundation

@testable import FrameAnalysis

/// Real photos for the tests, prepared by `launch/testdata` (opencv-doc, scikit-image) as PPM.
enum TestImages {
    /// The repository's `.testdata` folder.
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".testdata")
    }

    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "test image '\(name)' is missing: run launch/testdata (it extracts opencv-doc and scikit-image samples)" }
    }

    /// Loads `NAME.ppm` (binary P6, maxval 255).
    static func rgb(_ name: String) throws -> RGBImage {
        let url = directory.appendingPathComponent("\(name).ppm")
        guard let data = FileManager.default.contents(atPath: url.path) else { throw Missing(name: name) }
        return try parsePPM([UInt8](data))
    }

    static func parsePPM(_ bytes: [UInt8]) throws -> RGBImage {
        var fields: [Int] = []
        var i = 2
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "6") else { throw Missing(name: "not a P6 PPM") }
        while fields.count < 3 {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09 { i += 1 }
            if bytes[i] == UInt8(ascii: "#") { while bytes[i] != 0x0a { i += 1 }; continue }
            var v = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { v = v * 10 + Int(bytes[i] - 0x30); i += 1 }
            fields.append(v)
        }
        i += 1  // single whitespace after maxval
        let (w, h) = (fields[0], fields[1])
        return RGBImage(width: w, height: h, pixels: Array(bytes[i..<(i + w * h * 3)]))
    }
}
