/// The window evaluator: the model's features turned into flat tables of integral-image offsets for
/// one row stride, and the sliding-window scan of one pyramid level. Arithmetic follows OpenCV's
/// `cascadedetect` exactly (float features, double stage sums, float thresholds), so the same windows
/// pass.
struct CascadeProgram: Sendable {
    /// Offsets of a rectangle's four corners in a table (`sum[a] - sum[b] - sum[c] + sum[d]`).
    struct Rect4: Sendable { var a: Int32 = 0, b: Int32 = 0, c: Int32 = 0, d: Int32 = 0 }
    /// A Haar feature with its corner offsets resolved.
    struct HaarFeature: Sendable { var r0 = Rect4(), r1 = Rect4(), r2 = Rect4(); var w0: Float = 0, w1: Float = 0, w2: Float = 0 }
    /// A depth-1 Haar tree, inlined in cascade order.
    struct HaarStump: Sendable { var f: HaarFeature; var threshold: Float; var left: Float; var right: Float }
    /// A two-rectangle Haar stump with double leaves (fast path).
    struct Haar2: Sendable { var r0: Rect4, r1: Rect4; var w0: Float, w1: Float, threshold: Float; var left: Double, right: Double }
    /// A three-rectangle Haar stump with double leaves (fast path).
    struct Haar3: Sendable {
        var r0: Rect4, r1: Rect4, r2: Rect4; var w0: Float, w1: Float, w2: Float, threshold: Float; var left: Double, right: Double
    }
    /// A stage of the fast path: its two- and three-rectangle stumps, each group contiguous.
    struct SplitStage: Sendable { var threshold: Double; var first2: Int32, count2: Int32, first3: Int32, count3: Int32 }
    /// A stage as the scan walks it.
    struct Stage: Sendable { var threshold: Float; var count: Int32; var firstNode: Int32; var firstLeaf: Int32; var firstTree: Int32 }
    /// A general tree node (`left`/`right` as in `CascadeModel.Node`).
    struct Node: Sendable { var feature: Int32; var threshold: Float; var left: Int32; var right: Int32 }
    /// An LBP stump: feature index, its category mask offset, leaves.
    struct LBPStump: Sendable { var feature: Int32; var subset: Int32; var left: Float; var right: Float }

    let model: CascadeModel
    /// Row stride of the integral tables the offsets were resolved for.
    let stride: Int
    /// Offset of the tilted table from the sum table (0 when no feature is tilted).
    let tiltedOffset: Int
    let stages: [Stage]
    let treeNodeCounts: [Int32]
    let useStumps: Bool
    var haarStumps: [HaarStump] = []
    /// Fast path (Haar stumps whose stage sums are exact in any order): stumps regrouped by rectangle
    /// count so the inner loops carry no branch, leaves pre-widened to double.
    var splitStages: [SplitStage] = []
    var haar2: [Haar2] = []
    var haar3: [Haar3] = []
    var haarFeatures: [HaarFeature] = []
    var lbpOffsets: [Int32] = []  // 16 per LBP feature
    var lbpStumps: [LBPStump] = []
    var nodes: [Node] = []
    /// Offsets of the variance-normalisation rectangle (1, 1, w-2, h-2) and its area.
    let norm: Rect4
    let normArea: Double

    init(model: CascadeModel, stride: Int, tiltedOffset: Int) {
        self.model = model
        self.stride = stride
        self.tiltedOffset = tiltedOffset
        useStumps = model.maxNodesPerTree == 1
        treeNodeCounts = model.treeNodeCounts.map { Int32($0) }
        var st: [Stage] = []
        var node = 0, leaf = 0
        for s in model.stages {
            st.append(
                Stage(
                    threshold: s.threshold, count: Int32(s.treeCount), firstNode: Int32(node), firstLeaf: Int32(leaf),
                    firstTree: Int32(s.firstTree)))
            for t in s.firstTree..<(s.firstTree + s.treeCount) { node += model.treeNodeCounts[t]; leaf += model.treeNodeCounts[t] + 1 }
        }
        stages = st
        func upright(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Rect4 {
            Rect4(
                a: Int32(x + stride * y), b: Int32(x + w + stride * y),
                c: Int32(x + stride * (y + h)), d: Int32(x + w + stride * (y + h)))
        }
        norm = upright(1, 1, model.windowWidth - 2, model.windowHeight - 2)
        normArea = Double((model.windowWidth - 2) * (model.windowHeight - 2))

        switch model.featureType {
        case .haar:
            haarFeatures = model.haarFeatures.map { f in
                var o = HaarFeature()
                for (k, r) in f.rects.enumerated() {
                    let rect: Rect4
                    if f.tilted {
                        let t = tiltedOffset
                        rect = Rect4(
                            a: Int32(t + r.x + stride * r.y),
                            b: Int32(t + r.x - r.height + stride * (r.y + r.height)),
                            c: Int32(t + r.x + r.width + stride * (r.y + r.width)),
                            d: Int32(t + r.x + r.width - r.height + stride * (r.y + r.width + r.height)))
                    } else {
                        rect = upright(r.x, r.y, r.width, r.height)
                    }
                    switch k {
                    case 0: o.r0 = rect; o.w0 = r.weight
                    case 1: o.r1 = rect; o.w1 = r.weight
                    default: o.r2 = rect; o.w2 = r.weight
                    }
                }
                return o
            }
            if useStumps {
                var leafIndex = 0
                haarStumps = model.nodes.map { n in
                    defer { leafIndex += 2 }
                    // A stump's leaves: left -> leaf 0 of the tree, right -> leaf 1 (as OpenCV's Stump).
                    return HaarStump(
                        f: haarFeatures[n.feature], threshold: n.threshold,
                        left: model.leaves[leafIndex], right: model.leaves[leafIndex + 1])
                }
                if model.stageSumsAreExact {
                    for st in stages {
                        var split = SplitStage(
                            threshold: Double(st.threshold), first2: Int32(haar2.count), count2: 0,
                            first3: Int32(haar3.count), count3: 0)
                        for s in haarStumps[Int(st.firstNode)..<Int(st.firstNode + st.count)] {
                            if s.f.w2 == 0 {
                                haar2.append(
                                    Haar2(
                                        r0: s.f.r0, r1: s.f.r1, w0: s.f.w0, w1: s.f.w1, threshold: s.threshold,
                                        left: Double(s.left), right: Double(s.right)))
                                split.count2 += 1
                            } else {
                                haar3.append(
                                    Haar3(
                                        r0: s.f.r0, r1: s.f.r1, r2: s.f.r2, w0: s.f.w0, w1: s.f.w1, w2: s.f.w2,
                                        threshold: s.threshold, left: Double(s.left), right: Double(s.right)))
                                split.count3 += 1
                            }
                        }
                        splitStages.append(split)
                    }
                }
            }
        case .lbp:
            for f in model.lbpFeatures {
                for j in 0..<4 {
                    for i in 0..<4 {
                        lbpOffsets.append(Int32(f.x + i * f.width + stride * (f.y + j * f.height)))
                    }
                }
            }
            if useStumps {
                var leafIndex = 0
                lbpStumps = model.nodes.enumerated().map { (k, n) in
                    defer { leafIndex += 2 }
                    return LBPStump(
                        feature: Int32(n.feature), subset: Int32(k * model.subsetSize),
                        left: model.leaves[leafIndex], right: model.leaves[leafIndex + 1])
                }
            }
        }
        nodes = model.nodes.map { Node(feature: Int32($0.feature), threshold: $0.threshold, left: Int32($0.left), right: Int32($0.right)) }
    }

    // MARK: - Feature values

    @inline(__always)
    static func rectSum(_ p: UnsafePointer<Int32>, _ r: Rect4) -> Int32 {
        p[Int(r.a)] &- p[Int(r.b)] &- p[Int(r.c)] &+ p[Int(r.d)]
    }

    /// `Σ weight * rectSum` in float, as OpenCV's `HaarEvaluator::OptFeature::calc`.
    @inline(__always)
    static func haarValue(_ p: UnsafePointer<Int32>, _ f: HaarFeature) -> Float {
        var v = f.w0 * Float(Int(rectSum(p, f.r0))) + f.w1 * Float(Int(rectSum(p, f.r1)))
        if f.w2 != 0 { v += f.w2 * Float(Int(rectSum(p, f.r2))) }
        return v
    }

    /// The 8-bit LBP code of a 3x3 block grid (bit 7 = top-left, clockwise), as OpenCV's `LBPEvaluator`.
    @inline(__always)
    static func lbpCode(_ p: UnsafePointer<Int32>, _ o: UnsafePointer<Int32>) -> Int {
        @inline(__always) func s(_ i0: Int, _ i1: Int, _ i2: Int, _ i3: Int) -> Int32 {
            p[Int(o[i0])] &- p[Int(o[i1])] &- p[Int(o[i2])] &+ p[Int(o[i3])]
        }
        let c = s(5, 6, 9, 10)
        var code = 0
        if s(0, 1, 4, 5) >= c { code |= 128 }
        if s(1, 2, 5, 6) >= c { code |= 64 }
        if s(2, 3, 6, 7) >= c { code |= 32 }
        if s(6, 7, 10, 11) >= c { code |= 16 }
        if s(10, 11, 14, 15) >= c { code |= 8 }
        if s(9, 10, 13, 14) >= c { code |= 4 }
        if s(8, 9, 12, 13) >= c { code |= 2 }
        if s(4, 5, 8, 9) >= c { code |= 1 }
        return code
    }

    // MARK: - Scan

    /// Tables of one pyramid level, all at `stride`: `sum` (followed by the tilted table at
    /// `tiltedOffset` when the cascade has tilted features) and `squares` (Haar only).
    struct Level {
        var sum: UnsafePointer<Int32>
        var squares: UnsafePointer<Int32>?
        /// Window positions: `x < columns`, `y < rows`.
        var columns: Int
        var rows: Int
        var step: Int
    }

    /// Runs the cascade on every window of a level, OpenCV's way: rows and columns `step` apart, and a
    /// window that fails stage 0 skips the next one (`if (result == 0) x += yStep`). Calls `hit(x, y)`
    /// for each window that passes all stages.
    func scan(_ level: Level, hit: (Int, Int) -> Void) {
        switch (model.featureType, useStumps) {
        case (.haar, true) where !splitStages.isEmpty:
            haar2.withUnsafeBufferPointer { h2 in
                haar3.withUnsafeBufferPointer { h3 in
                    splitStages.withUnsafeBufferPointer { stages in
                        Self.walk(level, stride: stride, hit: hit) { o in
                            Self.runHaarSplit(level.sum + o, level.squares! + o, norm, normArea, h2.baseAddress!, h3.baseAddress!, stages)
                        }
                    }
                }
            }
        case (.haar, true):
            haarStumps.withUnsafeBufferPointer { stumps in
                stages.withUnsafeBufferPointer { stages in
                    Self.walk(level, stride: stride, hit: hit) { o in
                        Self.runHaarStumps(level.sum + o, level.squares! + o, norm, normArea, stumps.baseAddress!, stages)
                    }
                }
            }
        case (.haar, false):
            haarFeatures.withUnsafeBufferPointer { features in
                nodes.withUnsafeBufferPointer { nodes in
                    model.leaves.withUnsafeBufferPointer { leaves in
                        stages.withUnsafeBufferPointer { stages in
                            treeNodeCounts.withUnsafeBufferPointer { counts in
                                Self.walk(level, stride: stride, hit: hit) { o in
                                    Self.runHaarTrees(
                                        level.sum + o, level.squares! + o, norm, normArea, features.baseAddress!,
                                        nodes.baseAddress!, leaves.baseAddress!, counts.baseAddress!, stages)
                                }
                            }
                        }
                    }
                }
            }
        case (.lbp, _):
            lbpOffsets.withUnsafeBufferPointer { offsets in
                model.subsets.withUnsafeBufferPointer { subsets in
                    if useStumps {
                        lbpStumps.withUnsafeBufferPointer { stumps in
                            stages.withUnsafeBufferPointer { stages in
                                Self.walk(level, stride: stride, hit: hit) { o in
                                    Self.runLBPStumps(
                                        level.sum + o, offsets.baseAddress!, subsets.baseAddress!, stumps.baseAddress!, stages)
                                }
                            }
                        }
                    } else {
                        nodes.withUnsafeBufferPointer { nodes in
                            model.leaves.withUnsafeBufferPointer { leaves in
                                stages.withUnsafeBufferPointer { stages in
                                    treeNodeCounts.withUnsafeBufferPointer { counts in
                                        let subsetSize = model.subsetSize
                                        Self.walk(level, stride: stride, hit: hit) { o in
                                            Self.runLBPTrees(
                                                level.sum + o, offsets.baseAddress!, subsets.baseAddress!, subsetSize,
                                                nodes.baseAddress!, leaves.baseAddress!, counts.baseAddress!, stages)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Window positions per tile column: the scan walks the level in vertical strips this wide so the
    /// integral rows a window reads stay in L1 between one row of windows and the next.
    static let tileColumns = 64

    /// Visits windows row by row within vertical strips. Each row keeps its own "next x", so every row
    /// sees exactly OpenCV's left-to-right sequence, skips included; only the interleaving of rows differs
    /// (which cannot change any window's result).
    @inline(__always)
    static func walk(_ level: Level, stride: Int, hit: (Int, Int) -> Void, eval: (Int) -> Int) {
        let rowCount = (level.rows + level.step - 1) / level.step
        guard rowCount > 0, level.columns > 0 else { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: rowCount) { next in
            next.initialize(repeating: 0)
            var tileStart = 0
            while tileStart < level.columns {
                let tileEnd = min(level.columns, tileStart + tileColumns)
                for r in 0..<rowCount {
                    let y = r * level.step
                    let row = y * stride
                    var x = next[r]
                    while x < tileEnd {
                        let result = eval(row + x)
                        if result > 0 { hit(x, y) } else if result == 0 { x += level.step }
                        x += level.step
                    }
                    next[r] = x
                }
                tileStart = tileEnd
            }
        }
    }

    /// Variance normalisation of OpenCV's `HaarEvaluator::setWindow`: `1 / sqrt(area * Σv² - (Σv)²)`
    /// over the inner rectangle, or nil when that is not positive or the window is flat
    /// (`area * factor >= 0.1`, i.e. standard deviation <= 10 grey levels).
    @inline(__always)
    static func varianceFactor(_ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, _ n: Rect4, _ area: Double) -> Float? {
        let s = rectSum(p, n)
        let sq = UInt32(bitPattern: rectSum(q, n))
        let nf = area * Double(Int(sq)) - Double(Int(s)) * Double(Int(s))
        guard nf > 0 else { return nil }
        let f = Float(1.0 / nf.squareRoot())
        return area * Double(f) < 1e-1 ? f : nil
    }

    @inline(__always)
    static func runHaarStumps(
        _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, _ n: Rect4, _ area: Double,
        _ stumps: UnsafePointer<HaarStump>, _ stages: UnsafeBufferPointer<Stage>
    ) -> Int {
        guard let nf = varianceFactor(p, q, n, area) else { return -1 }
        var k = stumps
        for si in 0..<stages.count {
            let stage = stages[si]
            var sum = 0.0
            for _ in 0..<Int(stage.count) {
                let value = haarValue(p, k.pointee.f) * nf
                sum += Double(value < k.pointee.threshold ? k.pointee.left : k.pointee.right)
                k += 1
            }
            if sum < Double(stage.threshold) { return -si }
        }
        return 1
    }

    /// The fast path of `runHaarStumps`: same feature values and comparisons, leaves summed in two
    /// exact partial sums (valid because `CascadeModel.stageSumsAreExact`).
    @inline(__always)
    static func runHaarSplit(
        _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, _ n: Rect4, _ area: Double,
        _ h2: UnsafePointer<Haar2>, _ h3: UnsafePointer<Haar3>, _ stages: UnsafeBufferPointer<SplitStage>
    ) -> Int {
        guard let nf = varianceFactor(p, q, n, area) else { return -1 }
        for si in 0..<stages.count {
            let stage = stages[si]
            var a = 0.0, b = 0.0
            var k = h2 + Int(stage.first2)
            let end2 = k + Int(stage.count2)
            // Rectangle sums written out (not via `rectSum`) and converted through `Int`: both keep
            // unoptimised test builds fast; the values are the same.
            while k < end2 {
                let s = k.pointee
                let s0 = p[Int(s.r0.a)] &- p[Int(s.r0.b)] &- p[Int(s.r0.c)] &+ p[Int(s.r0.d)]
                let s1 = p[Int(s.r1.a)] &- p[Int(s.r1.b)] &- p[Int(s.r1.c)] &+ p[Int(s.r1.d)]
                let v = (s.w0 * Float(Int(s0)) + s.w1 * Float(Int(s1))) * nf
                a += v < s.threshold ? s.left : s.right
                k += 1
            }
            var m = h3 + Int(stage.first3)
            let end3 = m + Int(stage.count3)
            while m < end3 {
                let s = m.pointee
                let s0 = p[Int(s.r0.a)] &- p[Int(s.r0.b)] &- p[Int(s.r0.c)] &+ p[Int(s.r0.d)]
                let s1 = p[Int(s.r1.a)] &- p[Int(s.r1.b)] &- p[Int(s.r1.c)] &+ p[Int(s.r1.d)]
                let s2 = p[Int(s.r2.a)] &- p[Int(s.r2.b)] &- p[Int(s.r2.c)] &+ p[Int(s.r2.d)]
                var f = s.w0 * Float(Int(s0)) + s.w1 * Float(Int(s1))
                f += s.w2 * Float(Int(s2))
                let v = f * nf
                b += v < s.threshold ? s.left : s.right
                m += 1
            }
            if a + b < stage.threshold { return -si }
        }
        return 1
    }

    @inline(__always)
    static func runHaarTrees(
        _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, _ n: Rect4, _ area: Double,
        _ features: UnsafePointer<HaarFeature>, _ nodes: UnsafePointer<Node>, _ leaves: UnsafePointer<Float>,
        _ counts: UnsafePointer<Int32>, _ stages: UnsafeBufferPointer<Stage>
    ) -> Int {
        guard let nf = varianceFactor(p, q, n, area) else { return -1 }
        for si in 0..<stages.count {
            let stage = stages[si]
            var nodeOfs = Int(stage.firstNode), leafOfs = Int(stage.firstLeaf)
            var sum = 0.0
            for t in Int(stage.firstTree)..<Int(stage.firstTree + stage.count) {
                var idx = 0
                repeat {
                    let node = nodes[nodeOfs + idx]
                    let value = haarValue(p, features[Int(node.feature)]) * nf
                    idx = Int(value < node.threshold ? node.left : node.right)
                } while idx > 0
                sum += Double(leaves[leafOfs - idx])
                nodeOfs += Int(counts[t]); leafOfs += Int(counts[t]) + 1
            }
            if sum < Double(stage.threshold) { return -si }
        }
        return 1
    }

    @inline(__always)
    static func runLBPStumps(
        _ p: UnsafePointer<Int32>, _ offsets: UnsafePointer<Int32>, _ subsets: UnsafePointer<Int32>,
        _ stumps: UnsafePointer<LBPStump>, _ stages: UnsafeBufferPointer<Stage>
    ) -> Int {
        var k = stumps
        for si in 0..<stages.count {
            let stage = stages[si]
            var sum = 0.0
            for _ in 0..<Int(stage.count) {
                let s = k.pointee
                let c = lbpCode(p, offsets + Int(s.feature) * 16)
                let word = subsets[Int(s.subset) + (c >> 5)]
                sum += Double(word & (1 << Int32(c & 31)) != 0 ? s.left : s.right)
                k += 1
            }
            if sum < Double(stage.threshold) { return -si }
        }
        return 1
    }

    @inline(__always)
    static func runLBPTrees(
        _ p: UnsafePointer<Int32>, _ offsets: UnsafePointer<Int32>, _ subsets: UnsafePointer<Int32>, _ subsetSize: Int,
        _ nodes: UnsafePointer<Node>, _ leaves: UnsafePointer<Float>,
        _ counts: UnsafePointer<Int32>, _ stages: UnsafeBufferPointer<Stage>
    ) -> Int {
        for si in 0..<stages.count {
            let stage = stages[si]
            var nodeOfs = Int(stage.firstNode), leafOfs = Int(stage.firstLeaf)
            var sum = 0.0
            for t in Int(stage.firstTree)..<Int(stage.firstTree + stage.count) {
                var idx = 0
                repeat {
                    let node = nodes[nodeOfs + idx]
                    let c = lbpCode(p, offsets + Int(node.feature) * 16)
                    let word = subsets[(nodeOfs + idx) * subsetSize + (c >> 5)]
                    idx = Int(word & (1 << Int32(c & 31)) != 0 ? node.left : node.right)
                } while idx > 0
                sum += Double(leaves[leafOfs - idx])
                nodeOfs += Int(counts[t]); leafOfs += Int(counts[t]) + 1
            }
            if sum < Double(stage.threshold) { return -si }
        }
        return 1
    }
}
