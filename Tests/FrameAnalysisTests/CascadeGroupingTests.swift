import Testing

@testable import FrameAnalysis

/// `groupRectangles` as OpenCV does it: clustering, the neighbour threshold, averaging, nesting.
@Suite struct CascadeGroupingTests {
    typealias R = CascadeGrouping.Rect

    @Test func similarityUsesTheSmallerSidesTimesEps() {
        // delta = 0.2 * (min(w) + min(h)) / 2 = 0.2 * 80 / 2 = 8
        let a = R(x: 100, y: 100, width: 40, height: 40)
        #expect(CascadeGrouping.similar(a, R(x: 108, y: 92, width: 40, height: 40), eps: 0.2))
        #expect(!CascadeGrouping.similar(a, R(x: 109, y: 100, width: 40, height: 40), eps: 0.2))
        #expect(!CascadeGrouping.similar(a, R(x: 100, y: 100, width: 49, height: 40), eps: 0.2))  // right edge 9 away
        // The smaller box sets delta: 0.2 * (20 + 20) / 2 = 4.
        #expect(!CascadeGrouping.similar(a, R(x: 105, y: 105, width: 20, height: 20), eps: 0.2))
    }

    @Test func clustersNeedMoreThanThresholdMembersAndAreAveraged() {
        let cluster = [
            R(x: 100, y: 100, width: 40, height: 40), R(x: 102, y: 101, width: 40, height: 40),
            R(x: 101, y: 103, width: 41, height: 41), R(x: 103, y: 102, width: 40, height: 40),
        ]
        let lonely = [R(x: 300, y: 300, width: 40, height: 40), R(x: 302, y: 300, width: 40, height: 40)]
        let out = CascadeGrouping.group(cluster + lonely, threshold: 3, eps: 0.2)
        // x: 406/4 = 101.5 -> 102 (half to even), y: 406/4 -> 102, w: 161/4 = 40.25 -> 40.
        #expect(out.count == 1)
        #expect(out[0].rect == R(x: 102, y: 102, width: 40, height: 40))
        #expect(out[0].count == 4)
        #expect(CascadeGrouping.group(cluster + lonely, threshold: 1, eps: 0.2).count == 2)
    }

    @Test func chainsMergeTransitively() {
        // Each neighbour is within delta of the next, the ends are not: one class, as cv::partition.
        let chain = (0..<6).map { R(x: 100 + 3 * $0, y: 100, width: 40, height: 40) }
        #expect(!CascadeGrouping.similar(chain[0], chain[5], eps: 0.2))
        let out = CascadeGrouping.group(chain, threshold: 1, eps: 0.2)
        #expect(out.count == 1 && out[0].count == 6)
        #expect(out[0].rect == R(x: 108, y: 100, width: 40, height: 40))  // 645/6 = 107.5 -> 108
    }

    @Test func aWeakBoxInsideAStrongOneIsDropped() {
        let big = (0..<8).map { _ in R(x: 100, y: 100, width: 100, height: 100) }
        let small = (0..<4).map { _ in R(x: 130, y: 130, width: 30, height: 30) }
        let out = CascadeGrouping.group(big + small, threshold: 2, eps: 0.2)
        #expect(out.map(\.rect) == [R(x: 100, y: 100, width: 100, height: 100)])
        // With as many members the inner one stays (n2 > max(3, n1) fails).
        let strongSmall = (0..<8).map { _ in R(x: 130, y: 130, width: 30, height: 30) }
        #expect(CascadeGrouping.group(big + strongSmall, threshold: 2, eps: 0.2).count == 2)
    }

    @Test func zeroThresholdReturnsRawHits() {
        let raw = [R(x: 1, y: 2, width: 3, height: 4), R(x: 1, y: 2, width: 3, height: 4)]
        let out = CascadeGrouping.group(raw, threshold: 0, eps: 0.2)
        #expect(out.map(\.rect) == raw && out.map(\.count) == [1, 1])
    }

    @Test func clippingCutsToTheImage() {
        let out = CascadeGrouping.clip(
            [
                (R(x: -5, y: 10, width: 20, height: 20), 3), (R(x: 90, y: 90, width: 5, height: 5), 1),
                (R(x: 200, y: 0, width: 5, height: 5), 1),
            ], width: 100, height: 92)
        #expect(out.map(\.rect) == [R(x: 0, y: 10, width: 15, height: 20), R(x: 90, y: 90, width: 5, height: 2)])
        #expect(out.map(\.count) == [3, 1])
    }
}
