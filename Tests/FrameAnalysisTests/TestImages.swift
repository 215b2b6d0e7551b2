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

extension RGBImage {
    /// The `width` x `height` window at (`x`, `y`), which must lie inside the image.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> RGBImage {
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for j in 0..<h {
            let src = ((y + j) * width + x) * 3
            out.replaceSubrange((j * w * 3)..<((j + 1) * w * 3), with: pixels[src..<(src + w * 3)])
        }
        return RGBImage(width: w, height: h, pixels: out)
    }

    /// The image flipped left to right (pixels mirrored about the vertical centre line).
    var mirrored: RGBImage {
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let a = (y * width + x) * 3, b = (y * width + width - 1 - x) * 3
                out[a] = pixels[b]; out[a + 1] = pixels[b + 1]; out[a + 2] = pixels[b + 2]
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }
}
