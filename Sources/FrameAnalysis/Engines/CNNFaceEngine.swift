import CFaceCNN
import Foundation
import Synchronization

/// The "cnn" engine: YuNet, Shiqi Yu's libfacedetection CNN (BSD-3-Clause, weights compiled in), loaded
/// at run time from the PyPI wheel `yuface==2023.5.1` that `launch/fetch-yuface` (run by `launch/setup`)
/// installs into `CNNFaceEngine.defaultDirectory` (no link-time dependency: see `Sources/CFaceCNN/shim.h`).
///
/// Input: the analysis image as packed BGR (the engine protocol hands over RGB; a gray source arrives
/// with R = G = B, which the network accepts). The library returns boxes in the input's pixels (no
/// scaling needed), a score 0...100 and five landmarks; `confidence` is `score / 100`, hits below
/// `scoreThreshold` (0.6 by default: lower scores are mostly crowd blur and backs of heads, e.g. 0.2-0.57
/// in messi5.jpg's background) and smaller than `minFace` are dropped, boxes are cut to the image, and the
/// two eye points are carried in `Detection.eyes`, the look direction from the nose tip in `Detection.look`
/// (`CNNFaceEngine.look`). Layout checked on astronaut.png (box 178,63 89x112,
/// eyes at (200,101) and (247,102): the first landmark is the eye on the image's left).
///
/// Threads: the library parallelises with the OpenMP runtime it ships (libgomp); `threads` is set with
/// `omp_set_num_threads` before every call, on the calling thread (OpenMP's setting is per thread). The
/// default 1 keeps the analysis thread to one core beside the video threads; measured single-thread: 7-10
/// ms at 320 px wide, 26-30 ms at 640 (idle machine; it uses AVX2/FMA).
public struct CNNFaceEngine: DetectionEngine {
    /// "cnn".
    public var name: String { "cnn" }
    /// The pinned wheel version `launch/fetch-yuface` installs.
    public static let version = "2023.5.1"
    /// Environment variable naming the install directory (overrides `~/.cache/viewfinder/yuface-<version>`).
    public static let directoryVariable = "VIEWFINDER_YUFACE_DIR"
    /// Default `scoreThreshold`.
    public static let defaultScoreThreshold = 0.6
    /// Most faces read from one call (the library itself stops at 1024).
    public static let maxFaces = 256

    /// The machine-wide install directory, `/usr/local/lib/viewfinder/yuface-2023.5.1`: where
    /// `fetch-yuface --system` puts the library for every user, services under systemd among them (the
    /// Debian package ships the script as /usr/libexec/viewfinder/fetch-yuface and not the library: optional).
    public static let systemDirectory = URL(fileURLWithPath: "/usr/local/lib/viewfinder/yuface-\(version)")

    /// Where the library is looked for: `$VIEWFINDER_YUFACE_DIR`; else `~/.cache/viewfinder/yuface-2023.5.1`
    /// when it holds the library, else `systemDirectory` when that does; else the one in the home directory
    /// (which the error then names).
    public static var defaultDirectory: URL {
        directory(
            environment: ProcessInfo.processInfo.environment, home: FileManager.default.homeDirectoryForCurrentUser,
            exists: { FileManager.default.fileExists(atPath: $0) })
    }

    /// `defaultDirectory`'s choice, given the environment, the home directory and a file test.
    public static func directory(environment: [String: String], home: URL, exists: (String) -> Bool) -> URL {
        if let d = environment[directoryVariable], !d.isEmpty { return URL(fileURLWithPath: d) }
        let cache = home.appendingPathComponent(".cache/viewfinder/yuface-\(version)")
        if !exists(libraryPath(in: cache)), exists(libraryPath(in: systemDirectory)) { return systemDirectory }
        return cache
    }

    /// The library file inside an install directory.
    public static func libraryPath(in directory: URL) -> String {
        directory.appendingPathComponent("yuface/libfacedetection.so").path
    }

    /// The library could not be loaded: names the file, why, and the command that installs it.
    public struct LoadError: Error, CustomStringConvertible, Equatable, Sendable {
        /// The library file looked for.
        public var library: String
        /// Why it did not load.
        public var reason: String
        /// "the YuNet face detector (libfacedetection) is not available: <file>: <reason>; install it with launch/setup".
        public var description: String {
            "the YuNet face detector (libfacedetection) is not available: \(library): \(reason); install it with "
                + "launch/setup (or launch/fetch-yuface; from the Debian package, as root: "
                + "/usr/libexec/viewfinder/fetch-yuface --system; \(CNNFaceEngine.directoryVariable) names another directory)"
        }
    }

    /// Scores below this (0...1) are dropped.
    public let scoreThreshold: Double
    /// OpenMP threads per call.
    public let threads: Int
    /// Boxes with a side below this many pixels are dropped.
    public var minFace: Int

    /// Serialises the one-time load (the shim keeps the entry point in a process-wide variable).
    private static let loading = Mutex<Void>(())

    /// Loads the library from `directory` (once per process: later engines reuse the first library loaded,
    /// though each checks that its `directory` holds the file).
    /// - Throws: `LoadError` naming the missing file or the loader's message.
    public init(
        directory: URL = CNNFaceEngine.defaultDirectory, scoreThreshold: Double = CNNFaceEngine.defaultScoreThreshold,
        threads: Int = 1, minFace: Int = 0
    ) throws(LoadError) {
        self.scoreThreshold = scoreThreshold; self.threads = max(1, threads); self.minFace = minFace
        let path = Self.libraryPath(in: directory)
        let problem: String? = Self.loading.withLock { _ in
            // The file is checked even when loaded already: a directory without it is always an error.
            guard FileManager.default.fileExists(atPath: path) else { return "no such file" }
            if vf_facecnn_loaded() != 0 { return nil }
            var message = [CChar](repeating: 0, count: 1024)
            if vf_facecnn_load(path, &message, Int32(message.count)) != 0 { return nil }
            return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if let problem { throw LoadError(library: path, reason: problem) }
    }

    /// Whether the library can set its thread count (its libgomp exports `omp_set_num_threads`).
    public static var threadsSettable: Bool { vf_facecnn_has_threads() != 0 }

    /// Faces in `image`, most confident first.
    public func detect(in image: RGBImage) -> [Detection] {
        let w = image.width, h = image.height
        guard w > 0, h > 0 else { return [] }
        var bgr = [UInt8](repeating: 0, count: w * h * 3)
        for i in stride(from: 0, to: w * h * 3, by: 3) {
            bgr[i] = image.pixels[i + 2]; bgr[i + 1] = image.pixels[i + 1]; bgr[i + 2] = image.pixels[i]
        }
        var raw = [vf_facecnn_face](repeating: vf_facecnn_face(), count: Self.maxFaces)
        let n = Int(vf_facecnn_detect(&bgr, Int32(w), Int32(h), Int32(w * 3), Int32(threads), &raw, Int32(raw.count)))
        guard n > 0 else { return [] }
        return raw.prefix(n).compactMap { Self.detection($0, width: w, height: h, threshold: scoreThreshold, minFace: minFace) }
            .sorted { ($0.confidence, -$0.box.y, -$0.box.x) > ($1.confidence, -$1.box.y, -$1.box.x) }
    }

    /// One library record as a detection (box cut to the image), nil below the threshold, under
    /// `minFace` or outside the image.
    static func detection(_ f: vf_facecnn_face, width: Int, height: Int, threshold: Double, minFace: Int) -> Detection? {
        let confidence = Double(f.score) / 100
        guard confidence >= threshold, Int(min(f.width, f.height)) >= minFace else { return nil }
        let b = Box(x: Double(f.x), y: Double(f.y), width: Double(f.width), height: Double(f.height))
        guard let box = FaceEngine.clamp(b, width: width, height: height) else { return nil }
        // Landmarks: eye on the image's left (l.0, l.1), eye on its right (l.2, l.3), nose tip (l.4, l.5),
        // mouth left (l.6, l.7), mouth right (l.8, l.9).
        let l = f.landmarks
        let eyes = Detection.Eyes(left: Point2D(x: Double(l.0), y: Double(l.1)), right: Point2D(x: Double(l.2), y: Double(l.3)))
        let nose = Point2D(x: Double(l.4), y: Double(l.5))
        return Detection(box: box, confidence: min(1, confidence), kind: .face, eyes: eyes, look: look(eyes: eyes, nose: nose))
    }

    /// Where a face looks, from its landmarks: the nose tip's horizontal offset from the eyes' midpoint in
    /// units of half the distance between the eyes, clamped to -1...1,
    /// ```
    /// look = clamp((nose.x - (left.x + right.x) / 2) / (|right - left| / 2), -1, 1)
    /// ```
    /// 0 for a frontal face; positive when the nose points to the image's right (the face looks right in
    /// the image). The nose tip stands ~2.5 cm in front of the eyes, which are ~6.3 cm apart, so for a
    /// head turned by yaw θ the value is about `0.8 · tan θ`: ~0.3 at 20°, ~0.8 at 45°, clamped past ~50°.
    /// Nil when the eyes coincide (no scale).
    public static func look(eyes: Detection.Eyes, nose: Point2D) -> Double? {
        let half = eyes.left.distance(to: eyes.right) / 2
        guard half > 1e-6 else { return nil }
        let offset = nose.x - (eyes.left.x + eyes.right.x) / 2
        return max(-1, min(1, offset / half))
    }
}
