/// OpenCV's `groupRectangles(rects, weights, groupThreshold, eps)`: cluster raw window hits whose
/// corners lie within `delta = eps * (min(w1, w2) + min(h1, h2)) / 2` of each other (transitively,
/// as `cv::partition`), keep clusters with more than `groupThreshold` members, average each cluster
/// (float, rounded half to even as `saturate_cast<int>`), then drop a cluster that lies inside a
/// stronger one (grown by `eps`) when that one has more than `max(3, n)` members or it has fewer than 3.
enum CascadeGrouping {
    /// An integer rectangle, as OpenCV's `cv::Rect`.
    struct Rect: Equatable, Sendable { var x, y, width, height: Int }

    /// The `SimilarRects` predicate.
    @inline(__always)
    static func similar(_ a: Rect, _ b: Rect, eps: Double) -> Bool {
        let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
        return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
            && Double(abs(a.x + a.width - b.x - b.width)) <= delta && Double(abs(a.y + a.height - b.y - b.height)) <= delta
    }

    /// Grouped rectangles with their member counts. With `threshold <= 0` the hits come back ungrouped,
    /// each with count 1 (as OpenCV).
    static func group(_ rects: [Rect], threshold: Int, eps: Double) -> [(rect: Rect, count: Int)] {
        guard threshold > 0, !rects.isEmpty else { return rects.map { ($0, 1) } }
        let n = rects.count
        // Union-find over similar pairs. Similar rects have |x1 - x2| <= eps * (w1 + h1) / 2, so each
        // rect only needs comparing with neighbours in x order; the classes equal cv::partition's.
        var parent = Array(0..<n)
        func find(_ i: Int) -> Int {
            var r = i
            while parent[r] != r { r = parent[r] }
            var k = i
            while parent[k] != r { let next = parent[k]; parent[k] = r; k = next }
            return r
        }
        let order = (0..<n).sorted { rects[$0].x < rects[$1].x }
        for (pos, i) in order.enumerated() {
            let a = rects[i]
            let reach = eps * Double(a.width + a.height) * 0.5
            var k = pos + 1
            while k < n, Double(rects[order[k]].x - a.x) <= reach {
                let j = order[k]
                if similar(a, rects[j], eps: eps) {
                    let ra = find(i), rb = find(j)
                    if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
                }
                k += 1
            }
        }
        var label = [Int](repeating: -1, count: n)
        var sums: [(x: Int, y: Int, w: Int, h: Int, n: Int)] = []
        for i in 0..<n {
            let r = find(i)
            if label[r] < 0 { label[r] = sums.count; sums.append((0, 0, 0, 0, 0)) }
            let c = label[r]
            sums[c].x += rects[i].x; sums[c].y += rects[i].y
            sums[c].w += rects[i].width; sums[c].h += rects[i].height; sums[c].n += 1
        }
        let averaged: [Rect] = sums.map { s in
            let f = 1 / Float(s.n)
            func avg(_ v: Int) -> Int { Int((Float(v) * f).rounded(.toNearestOrEven)) }
            return Rect(x: avg(s.x), y: avg(s.y), width: avg(s.w), height: avg(s.h))
        }
        var out: [(rect: Rect, count: Int)] = []
        for i in averaged.indices {
            let r1 = averaged[i], n1 = sums[i].n
            if n1 <= threshold { continue }
            var inside = false
            for j in averaged.indices where j != i {
                let n2 = sums[j].n
                if n2 <= threshold { continue }
                let r2 = averaged[j]
                let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven))
                let dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
                if r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
                    && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3)
                {
                    inside = true
                    break
                }
            }
            if !inside { out.append((r1, n1)) }
        }
        return out
    }

    /// OpenCV's `clipObjects`: intersect with the image and drop empty results.
    static func clip(_ rects: [(rect: Rect, count: Int)], width: Int, height: Int) -> [(rect: Rect, count: Int)] {
        rects.compactMap { r, c in
            let x0 = max(0, r.x), y0 = max(0, r.y)
            let x1 = min(width, r.x + r.width), y1 = min(height, r.y + r.height)
            guard x1 > x0, y1 > y0 else { return nil }
            return (Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), c)
        }
    }
}
