/// A trained boosted cascade in the flat form the evaluator walks (the shape of OpenCV's
/// `CascadeClassifierImpl::Data`): stages of weak trees, trees as node lists, leaves and features in
/// separate arrays. Both XML layouts (new `<cascade>` and old `opencv-haar-classifier`) load into it.
struct CascadeModel: Sendable {
    /// Which features the nodes test.
    enum FeatureType: String, Sendable {
        case haar = "HAAR"
        case lbp = "LBP"
    }

    /// One weighted rectangle of a Haar feature, in window pixels.
    struct HaarRect: Sendable, Equatable { var x, y, width, height: Int; var weight: Float }
    /// A Haar feature: up to three weighted rectangles, upright or tilted by 45 degrees.
    struct HaarFeature: Sendable, Equatable { var rects: [HaarRect]; var tilted: Bool }
    /// An LBP feature: a 3x3 grid of `width` x `height` blocks with its top-left corner at (x, y).
    struct LBPFeature: Sendable, Equatable { var x, y, width, height: Int }
    /// A stage: the sum of its trees' leaves must reach `threshold` (already lowered by OpenCV's 1e-5f).
    struct Stage: Sendable, Equatable { var threshold: Float; var firstTree: Int; var treeCount: Int }
    /// A tree node. `left`/`right` > 0 index a node of the same tree; <= 0 is leaf `-value` of the tree.
    struct Node: Sendable, Equatable { var feature: Int; var threshold: Float; var left: Int; var right: Int }

    /// OpenCV's `THRESHOLD_EPS` (1e-5f), subtracted from every stage threshold at load.
    static let thresholdEpsilon = Float(bitPattern: 0x3727_C5AC)

    var featureType: FeatureType
    var windowWidth: Int
    var windowHeight: Int
    var stages: [Stage] = []
    /// Node count of each weak tree, in order; tree `t` owns `treeNodeCounts[t] + 1` leaves.
    var treeNodeCounts: [Int] = []
    var nodes: [Node] = []
    var leaves: [Float] = []
    /// LBP only: `subsetSize` 32-bit category masks per node (bit `c` set -> go left).
    var subsets: [Int32] = []
    var subsetSize = 0
    var haarFeatures: [HaarFeature] = []
    var lbpFeatures: [LBPFeature] = []
    /// True when the file used the old `opencv-haar-classifier` layout.
    var isOldLayout = false

    /// The deepest tree's node count (1 for stump cascades).
    var maxNodesPerTree: Int { treeNodeCounts.max() ?? 0 }
    /// Whether any Haar feature is tilted (needs the 45-degree integral image).
    var hasTiltedFeatures: Bool { haarFeatures.contains { $0.tilted } }

    /// Whether each stage's leaf sum is exact in double precision whatever the order of the additions:
    /// every partial sum is a multiple of the smallest leaf ulp `2^e` and bounded by `Σ max|leaf|` per
    /// tree, so if that bound is below `2^(e+52)` no addition rounds. (True for all of OpenCV's shipped
    /// cascades: they need at most 46 bits.) The evaluator may then regroup the stumps of a stage and use
    /// several accumulators and still get OpenCV's sums bit for bit.
    var stageSumsAreExact: Bool {
        var leafOffset = 0
        for stage in stages {
            var minExponent = Int.max
            var bound = 0.0
            for t in stage.firstTree..<(stage.firstTree + stage.treeCount) {
                let n = treeNodeCounts[t] + 1
                var treeMax = 0.0
                for leaf in leaves[leafOffset..<(leafOffset + n)] where leaf != 0 {
                    guard leaf.isNormal else { return false }
                    minExponent = min(minExponent, Int(leaf.exponent) - Float.significandBitCount)
                    treeMax = max(treeMax, Double(abs(leaf)))
                }
                bound += treeMax
                leafOffset += n
            }
            if minExponent != Int.max && !(bound < Double(sign: .plus, exponent: minExponent + 52, significand: 1)) { return false }
        }
        return true
    }

    /// Checks every index and rectangle so the evaluator can run without bounds checks.
    func validate(file: String) throws {
        func fail(_ reason: String) -> CascadeError { CascadeError(file: file, reason: reason) }
        guard windowWidth > 0, windowHeight > 0 else { throw fail("expected a positive window size, found \(windowWidth)x\(windowHeight)") }
        guard !stages.isEmpty else { throw fail("expected at least one stage, found none") }
        let featureCount = featureType == .haar ? haarFeatures.count : lbpFeatures.count
        var nodeOffset = 0, leafOffset = 0
        for (si, stage) in stages.enumerated() {
            guard stage.treeCount > 0 else { throw fail("stage \(si): expected weak classifiers, found none") }
            for t in stage.firstTree..<(stage.firstTree + stage.treeCount) {
                let n = treeNodeCounts[t]
                guard n > 0 else { throw fail("stage \(si), tree \(t): expected internal nodes, found none") }
                for j in 0..<n {
                    let node = nodes[nodeOffset + j]
                    guard node.feature >= 0, node.feature < featureCount else {
                        throw fail("stage \(si), tree \(t): feature index \(node.feature) outside 0..<\(featureCount)")
                    }
                    for child in [node.left, node.right] {
                        // Children point forward (terminates) or to a leaf 0...n.
                        guard (child > j && child < n) || (child <= 0 && -child <= n) else {
                            throw fail(
                                "stage \(si), tree \(t): node \(j) child \(child) is neither a later node (<\(n)) nor a leaf (0...-\(n))")
                        }
                    }
                }
                nodeOffset += n
                leafOffset += n + 1
            }
        }
        guard nodeOffset == nodes.count, leafOffset == leaves.count else {
            throw fail("expected \(nodeOffset) nodes and \(leafOffset) leaves, found \(nodes.count) and \(leaves.count)")
        }
        if featureType == .lbp {
            guard subsets.count == nodes.count * subsetSize, subsetSize * 32 >= 256 else {
                throw fail(
                    "LBP: expected \(subsetSize) category words per node covering 256 codes, found \(subsets.count) words for \(nodes.count) nodes"
                )
            }
            for (i, f) in lbpFeatures.enumerated() {
                guard f.x >= 0, f.y >= 0, f.width > 0, f.height > 0,
                    f.x + 3 * f.width <= windowWidth, f.y + 3 * f.height <= windowHeight
                else {
                    throw fail(
                        "LBP feature \(i) (\(f.x) \(f.y) \(f.width) \(f.height)) does not fit the \(windowWidth)x\(windowHeight) window")
                }
            }
        } else {
            for (i, f) in haarFeatures.enumerated() {
                guard !f.rects.isEmpty, f.rects.count <= 3 else {
                    throw fail("Haar feature \(i): expected 1 to 3 rects, found \(f.rects.count)")
                }
                for r in f.rects {
                    let fits: Bool
                    if f.tilted {
                        // Corners of the 45-degree rectangle in the tilted integral image.
                        fits =
                            r.width >= 0 && r.height >= 0 && r.x - r.height >= 0 && r.x + r.width <= windowWidth
                            && r.y >= 0 && r.y + r.width + r.height <= windowHeight
                    } else {
                        fits =
                            r.width >= 0 && r.height >= 0 && r.x >= 0 && r.y >= 0
                            && r.x + r.width <= windowWidth && r.y + r.height <= windowHeight
                    }
                    guard fits else {
                        throw fail(
                            "Haar feature \(i)\(f.tilted ? " (tilted)" : ""): rect \(r.x) \(r.y) \(r.width) \(r.height) does not fit the \(windowWidth)x\(windowHeight) window"
                        )
                    }
                }
            }
        }
    }
}
