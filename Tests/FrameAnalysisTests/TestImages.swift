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
        return try RGBImage(ppm: [UInt8](data))
    }
}
