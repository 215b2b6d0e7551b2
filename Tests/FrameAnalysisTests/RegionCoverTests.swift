import Testing

@testable import FrameAnalysis

@Suite struct RegionCoverTests {
    /// A `width` x `height` plane with `stride` bytes a row of seeded noise (a texture a face's detail stands for).
    static func noise(width: Int, height: Int, stride: Int, seed: UInt64 = 3) -> [UInt8] {
        var rng = SplitMix(seed: seed)
        return (0..<(stride * height)).map { _ in UInt8(rng.next() >> 56) }
    }

    /// Covers `region` of a copy of `plane`; the copy.
    static func covered(
        _ plane: [UInt8], width: Int, height: Int, stride: Int, pixelStride: Int = 1, offset: Int = 0, region: RegionCover.Region,
        mode: RegionCover.Mode, fill: UInt8 = 16
    ) -> [UInt8] {
        var out = plane
        var span = out.mutableSpan
        RegionCover.cover(
            &span, width: width, height: height, stride: stride, pixelStride: pixelStride, offset: offset, region: region, mode: mode,
            fill: fill)
        return out
    }

    /// Whether every byte outside `r` (and every padding byte past `width`) is as it was.
    static func untouchedOutside(_ a: [UInt8], _ b: [UInt8], width: Int, stride: Int, pixelStride: Int = 1, offset: Int = 0, _ r: RegionCover.Region) -> Bool {
        a.indices.allSatisfy { i in
            let y = i / stride, inRow = i % stride
            let x = inRow / pixelStride
            let inside = inRow % pixelStride == offset && x < width && x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
            return inside || a[i] == b[i]
        }
    }

    /// Mean absolute difference between horizontal neighbours inside `r`: the detail left.
    static func detail(_ p: [UInt8], stride: Int, _ r: RegionCover.Region) -> Double {
        var sum = 0, n = 0
        for y in r.y..<(r.y + r.height) {
            for x in r.x..<(r.x + r.width - 1) { sum += abs(Int(p[y * stride + x]) - Int(p[y * stride + x + 1])); n += 1 }
        }
        return Double(sum) / Double(n)
    }

    @Test func fillWritesOneValueInsideAndNothingOutside() {
        let plane = Self.noise(width: 64, height: 48, stride: 72)
        let r = RegionCover.Region(x: 10, y: 5, width: 20, height: 30)
        let out = Self.covered(plane, width: 64, height: 48, stride: 72, region: r, mode: .fill, fill: 128)
        #expect(Self.untouchedOutside(plane, out, width: 64, stride: 72, r))
        for y in 5..<35 { for x in 10..<30 { #expect(out[y * 72 + x] == 128) } }
    }

    @Test func pixelateLeavesBlocksOfTheirMean() {
        let plane = Self.noise(width: 128, height: 96, stride: 128)
        let r = RegionCover.Region(x: 16, y: 8, width: 80, height: 64)  // blocks of max(8, 64 / 8) = 8
        #expect(RegionCover.blockSide(r) == 8)
        let out = Self.covered(plane, width: 128, height: 96, stride: 128, region: r, mode: .pixelate)
        #expect(Self.untouchedOutside(plane, out, width: 128, stride: 128, r))
        for by in stride(from: 8, to: 72, by: 8) {
            for bx in stride(from: 16, to: 96, by: 8) {
                var sum = 0
                for y in by..<(by + 8) { for x in bx..<(bx + 8) { sum += Int(plane[y * 128 + x]) } }
                let mean = UInt8((sum + 32) / 64)
                for y in by..<(by + 8) { for x in bx..<(bx + 8) { #expect(out[y * 128 + x] == mean) } }
            }
        }
    }

    @Test func blurTakesTheDetailAwayKeepsTheMeanAndStaysInside() {
        let plane = Self.noise(width: 160, height: 120, stride: 160)
        let r = RegionCover.Region(x: 40, y: 30, width: 60, height: 50)
        let out = Self.covered(plane, width: 160, height: 120, stride: 160, region: r, mode: .blur)
        #expect(Self.untouchedOutside(plane, out, width: 160, stride: 160, r))
        // Noise: neighbours ~85 apart before; a few levels after.
        let before = Self.detail(plane, stride: 160, r), after = Self.detail(out, stride: 160, r)
        #expect(before > 60 && after < 3, "detail \(before) -> \(after)")
        func mean(_ p: [UInt8]) -> Double {
            var s = 0
            for y in 30..<80 { for x in 40..<100 { s += Int(p[y * 160 + x]) } }
            return Double(s) / 3000
        }
        #expect(abs(mean(out) - mean(plane)) < 3)
    }

    @Test func anInterleavedComponentIsCoveredAloneAndARegionOverTheEdgeIsClipped() {
        // NV12's chroma plane: U and V interleaved; covering V (offset 1) leaves U as it was.
        let plane = Self.noise(width: 32, height: 16, stride: 64)
        let r = RegionCover.Region(x: 20, y: -4, width: 40, height: 10)  // past the right and top edges
        let out = Self.covered(plane, width: 32, height: 16, stride: 64, pixelStride: 2, offset: 1, region: r, mode: .fill, fill: 200)
        let clipped = RegionCover.Region(x: 20, y: 0, width: 12, height: 6)
        #expect(Self.untouchedOutside(plane, out, width: 32, stride: 64, pixelStride: 2, offset: 1, clipped))
        for y in 0..<6 { for x in 20..<32 { #expect(out[y * 64 + 2 * x + 1] == 200 && out[y * 64 + 2 * x] == plane[y * 64 + 2 * x]) } }
        // Nothing of the region in the plane, or a plane smaller than its geometry says: nothing written.
        #expect(Self.covered(plane, width: 32, height: 16, stride: 64, region: .init(x: 40, y: 0, width: 10, height: 10), mode: .fill) == plane)
        #expect(Self.covered(Array(plane.prefix(100)), width: 32, height: 16, stride: 64, region: r, mode: .fill) == Array(plane.prefix(100)))
    }
}
