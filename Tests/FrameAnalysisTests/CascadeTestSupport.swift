import Foundation

@testable import FrameAnalysis

/// OpenCV's own results on the test photos, recorded by `Fixtures/make_opencv_boxes.py` (Debian's
/// python3-opencv 4.6 running `cv2.CascadeClassifier(...).detectMultiScale2` with the same cascades
/// from opencv-data on the same `.testdata/*.ppm` files).
struct OpenCVFixture: Decodable {
    struct Image: Decodable { var width: Int; var height: Int; var graySum: Int; var resizeHashes: [String: String] }
    struct Run: Decodable {
        var cascade: String
        var scaleFactor: Double
        var minNeighbors: Int
        var minSize: Int
        /// Per image: sorted `[x, y, width, height, neighbours]`.
        var boxes: [String: [[Int]]]
    }
    var opencv: String
    var images: [String: Image]
    var runs: [Run]

    static func load() throws -> OpenCVFixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent("opencv_faces.json")
        return try JSONDecoder().decode(OpenCVFixture.self, from: Data(contentsOf: url))
    }

    /// The run of `cascade` (path relative to /usr/share/opencv4).
    func run(_ cascade: String) -> Run? { runs.first { $0.cascade == cascade } }
}

enum CascadeTestSupport {
    /// Debian's opencv-data install.
    static let cascadeRoot = URL(fileURLWithPath: "/usr/share/opencv4")

    static func cascade(_ relative: String) -> URL { cascadeRoot.appendingPathComponent(relative) }

    /// Luma exactly as OpenCV 4.6's `cvtColor(RGB2GRAY)` for 8-bit: 15-bit fixed point
    /// `(9798 R + 19235 G + 3735 B + 2^14) >> 15`. (`RGBImage.gray` uses the 14-bit weights of older
    /// OpenCV and differs by one level on a few pixels of colour photos, so the bit-exact agreement
    /// test feeds this instead; the engines use `RGBImage.gray`.)
    static func opencvGray(_ rgb: RGBImage) -> GrayImage {
        var out = [UInt8](repeating: 0, count: rgb.width * rgb.height)
        for i in 0..<out.count {
            let r = Int(rgb.pixels[3 * i]), g = Int(rgb.pixels[3 * i + 1]), b = Int(rgb.pixels[3 * i + 2])
            out[i] = UInt8((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15)
        }
        return GrayImage(width: rgb.width, height: rgb.height, pixels: out)
    }

    /// 64-bit FNV-1a, as the fixture script's `fnv1a`.
    static func fnv1a(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// `[x, y, w, h, neighbours]` rows, sorted, as the fixture stores them.
    static func rows(_ detections: [CascadeDetection]) -> [[Int]] {
        detections.map { [Int($0.box.x), Int($0.box.y), Int($0.box.width), Int($0.box.height), $0.neighbors] }
            .sorted { $0.lexicographicallyPrecedes($1) }
    }

    static func box(_ row: [Int]) -> Box { Box(x: Double(row[0]), y: Double(row[1]), width: Double(row[2]), height: Double(row[3])) }
}
