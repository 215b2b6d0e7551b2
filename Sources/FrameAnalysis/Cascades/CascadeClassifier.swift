import Foundation

/// One grouped detection of a cascade: the box and how many raw window hits voted for it.
public struct CascadeDetection: Sendable, Equatable {
    /// Where, in the input image's pixels.
    public var box: Box
    /// Raw window hits merged into this box (OpenCV's `numDetections`); more means surer.
    public var neighbors: Int

    /// Creates a detection.
    public init(box: Box, neighbors: Int) { self.box = box; self.neighbors = neighbors }
}

/// A Viola-Jones cascade evaluator for OpenCV's trained cascades (Haar, tilted Haar and LBP; the
/// `<cascade>` XML layout and the old `opencv-haar-classifier` one) that reproduces
/// `cv::CascadeClassifier::detectMultiScale` of OpenCV 4.x window for window.
///
/// Pipeline per call: scales `1, f, f², ...` while the window fits (OpenCV's float factors and
/// rounding); for each, the image shrunk by the factor with OpenCV's bit-exact bilinear resize,
/// integral/squared (and tilted) tables, every window `step` apart (2 below factor 2, else 1) run
/// through the stages with variance normalisation, then `groupRectangles(minNeighbors, eps: 0.2)` and
/// clipping to the image. Levels are spread over `threads` cores.
public final class CascadeClassifier: Sendable {
    /// Width of the trained window in pixels (the smallest object found at scale 1).
    public let windowWidth: Int
    /// Height of the trained window in pixels.
    public let windowHeight: Int
    /// The cascade file this was loaded from.
    public let url: URL
    let model: CascadeModel
    let threads: Int

    /// Loads an OpenCV cascade XML file; `threads` 0 uses every core.
    /// - Throws: `CascadeError` naming the file and what was expected.
    public init(contentsOf url: URL, threads: Int = 0) throws {
        let model = try CascadeModel.load(contentsOf: url)
        self.model = model
        self.url = url
        windowWidth = model.windowWidth
        windowHeight = model.windowHeight
        self.threads = threads > 0 ? threads : max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// "HAAR" or "LBP".
    public var featureType: String { model.featureType.rawValue }

    /// Number of stages.
    public var stageCount: Int { model.stages.count }

    /// Boxes of the objects in `gray`, as OpenCV's `detectMultiScale` with the same arguments
    /// (`minSize`/`maxSize` in pixels for both sides; 0 = no limit). Strongest first.
    public func detect(
        _ gray: GrayImage, scaleFactor: Double = 1.1, minNeighbors: Int = 3,
        minSize: Int = 0, maxSize: Int = 0
    ) -> [Box] {
        detections(in: gray, scaleFactor: scaleFactor, minNeighbors: minNeighbors, minSize: minSize, maxSize: maxSize).map(\.box)
    }

    /// Boxes with their neighbour counts (OpenCV's `detectMultiScale2`). Strongest first.
    public func detections(
        in gray: GrayImage, scaleFactor: Double = 1.1, minNeighbors: Int = 3,
        minSize: Int = 0, maxSize: Int = 0
    ) -> [CascadeDetection] {
        let hits = rawHits(gray, scaleFactor: scaleFactor, minSize: minSize, maxSize: maxSize)
        let grouped = CascadeGrouping.clip(
            CascadeGrouping.group(hits, threshold: minNeighbors, eps: 0.2),
            width: gray.width, height: gray.height)
        return
            grouped
            .map {
                CascadeDetection(
                    box: Box(
                        x: Double($0.rect.x), y: Double($0.rect.y), width: Double($0.rect.width),
                        height: Double($0.rect.height)), neighbors: $0.count)
            }
            .sorted { ($0.neighbors, -$0.box.y, -$0.box.x) > ($1.neighbors, -$1.box.y, -$1.box.x) }
    }

    // MARK: - Pyramid

    /// One pyramid level as OpenCV's `FeatureEvaluator::ScaleData`.
    struct Level: Sendable {
        var factor: Float
        var width: Int, height: Int  // shrunk image
        var step: Int
        var columns: Int, rows: Int  // window positions
        var windowWidth: Int, windowHeight: Int  // in input pixels
        var cost: Int { columns * rows / (step * step) + width * height / 8 }
    }

    @inline(__always) static func round(_ v: Double) -> Int { Int(v.rounded(.toNearestOrEven)) }
    @inline(__always) static func round(_ v: Float) -> Int { Int(v.rounded(.toNearestOrEven)) }

    /// The levels `detectMultiScaleNoGrouping` of OpenCV 4.x would scan.
    func levels(width: Int, height: Int, scaleFactor: Double, minSize: Int, maxSize: Int) -> [Level] {
        precondition(scaleFactor > 1, "CascadeClassifier: scaleFactor must be > 1, got \(scaleFactor)")
        let ww = model.windowWidth, wh = model.windowHeight
        guard width >= ww, height >= wh else { return [] }
        var all: [Float] = []
        var factor = 1.0
        while true {
            if Self.round(Double(ww) * factor) > width || Self.round(Double(wh) * factor) > height { break }
            all.append(Float(factor))
            factor *= scaleFactor
        }
        let maxW = maxSize > 0 ? maxSize : width, maxH = maxSize > 0 ? maxSize : height
        var out: [Level] = []
        for s in all {
            let sw = Self.round(Float(ww) * s), sh = Self.round(Float(wh) * s)
            if sw > maxW || sh > maxH { break }
            if sw < minSize || sh < minSize { continue }
            let w = Self.round(Float(width) / s), h = Self.round(Float(height) / s)
            out.append(
                Level(
                    factor: s, width: w, height: h, step: s >= 2 ? 1 : 2,
                    columns: max(w + 1 - ww, 0), rows: max(h + 1 - wh, 0), windowWidth: sw, windowHeight: sh))
        }
        return out
    }

    /// Every window hit in input pixels, before grouping.
    func rawHits(_ gray: GrayImage, scaleFactor: Double, minSize: Int, maxSize: Int) -> [CascadeGrouping.Rect] {
        let W = gray.width, H = gray.height
        let levels = self.levels(width: W, height: H, scaleFactor: scaleFactor, minSize: minSize, maxSize: maxSize)
        guard !levels.isEmpty else { return [] }
        let stride = W + 1, tableSize = stride * (H + 1)
        let tilted = model.hasTiltedFeatures
        let program = CascadeProgram(model: model, stride: stride, tiltedOffset: tilted ? tableSize : 0)
        let haar = model.featureType == .haar

        // Balance levels over workers: biggest first, each to the least loaded worker.
        let workers = min(threads, levels.count)
        var assignment = [[Int]](repeating: [], count: workers)
        var load = [Int](repeating: 0, count: workers)
        for li in levels.indices.sorted(by: { levels[$0].cost > levels[$1].cost }) {
            let w = load.indices.min { load[$0] < load[$1] }!
            assignment[w].append(li); load[w] += levels[li].cost
        }

        let plan = assignment
        @Sendable func work(_ mine: [Int]) -> [CascadeGrouping.Rect] {
            var hits: [CascadeGrouping.Rect] = []
            let image = UnsafeMutablePointer<UInt8>.allocate(capacity: W * H)
            let sums = UnsafeMutablePointer<Int32>.allocate(capacity: tableSize * (tilted ? 2 : 1))
            let squares = haar ? UnsafeMutablePointer<Int32>.allocate(capacity: tableSize) : nil
            let resizeScratch = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * W)
            let tiltScratch =
                tilted ? UnsafeMutablePointer<Int32>.allocate(capacity: Integral.tiltedScratchCount(width: W, height: H)) : nil
            defer {
                image.deallocate(); sums.deallocate(); squares?.deallocate(); resizeScratch.deallocate(); tiltScratch?.deallocate()
            }
            gray.pixels.withUnsafeBufferPointer { src in
                for li in mine.sorted() {
                    let L = levels[li]
                    CascadeResize.resize(
                        src.baseAddress!, width: W, height: H, into: image, width: L.width, height: L.height,
                        scratch: resizeScratch)
                    if let squares {
                        Integral.sums(image, width: L.width, height: L.height, stride: stride, sum: sums, squares: squares)
                    } else {
                        Integral.sums(image, width: L.width, height: L.height, stride: stride, sum: sums)
                    }
                    if let tiltScratch {
                        Integral.tilted(
                            image, width: L.width, height: L.height, stride: stride, tilted: sums + tableSize, scratch: tiltScratch)
                    }
                    let level = CascadeProgram.Level(
                        sum: sums, squares: squares.map { UnsafePointer($0) },
                        columns: L.columns, rows: L.rows, step: L.step)
                    program.scan(level) { x, y in
                        hits.append(
                            CascadeGrouping.Rect(
                                x: Self.round(Float(x) * L.factor), y: Self.round(Float(y) * L.factor),
                                width: L.windowWidth, height: L.windowHeight))
                    }
                }
            }
            return hits
        }

        if workers == 1 { return work(plan[0]) }
        let collector = HitCollector()
        DispatchQueue.concurrentPerform(iterations: workers) { w in collector.add(work(plan[w])) }
        return collector.hits
    }
}

/// Gathers the workers' hits under a lock.
private final class HitCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [CascadeGrouping.Rect] = []
    func add(_ h: [CascadeGrouping.Rect]) { lock.lock(); all += h; lock.unlock() }
    var hits: [CascadeGrouping.Rect] { lock.lock(); defer { lock.unlock() }; return all }
}
