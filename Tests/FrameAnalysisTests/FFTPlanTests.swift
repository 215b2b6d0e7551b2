import Foundation
import Testing

@testable import FrameAnalysis

/// Direct O(n²) DFT, the reference: X[k] = Σ x[j]·exp(-2πi jk/n).
private func directDFT(_ re: [Double], _ im: [Double]) -> ([Double], [Double]) {
    let n = re.count
    var outR = [Double](repeating: 0, count: n), outI = [Double](repeating: 0, count: n)
    for k in 0..<n {
        for j in 0..<n {
            let a = -2 * Double.pi * Double(j * k % n) / Double(n)
            outR[k] += re[j] * cos(a) - im[j] * sin(a)
            outI[k] += re[j] * sin(a) + im[j] * cos(a)
        }
    }
    return (outR, outI)
}

@Suite struct FFTPlanTests {
    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 12, 36, 45, 64, 100, 128])
    func forwardMatchesDirectDFT(n: Int) {
        let re = (0..<n).map { sin(Double($0) * 0.7) + Double($0 % 3) }
        let im = (0..<n).map { cos(Double($0) * 1.3) - 0.5 }
        var r = re, i = im
        FFTPlan(count: n).forward(re: &r, im: &i)
        let (er, ei) = directDFT(re, im)
        let err = zip(r, er).map { abs($0 - $1) }.max()! + zip(i, ei).map { abs($0 - $1) }.max()!
        #expect(err < 1e-9 * Double(n))
    }

    @Test(arguments: [6, 16, 36, 64])
    func inverseUndoesForward(n: Int) {
        let re = (0..<n).map { Double($0 * $0 % 17) }, im = (0..<n).map { Double($0 % 5) - 2 }
        var r = re, i = im
        let plan = FFTPlan(count: n)
        plan.forward(re: &r, im: &i)
        plan.inverse(re: &r, im: &i)
        #expect(zip(r, re).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(zip(i, im).allSatisfy { abs($0 - $1) < 1e-9 })
    }

    @Test func impulseGivesFlatSpectrumAndCosineGivesTwoPeaks() {
        var r = [Double](repeating: 0, count: 10), i = [Double](repeating: 0, count: 10)
        r[0] = 1
        FFTPlan(count: 10).forward(re: &r, im: &i)
        #expect(r.allSatisfy { abs($0 - 1) < 1e-12 } && i.allSatisfy { abs($0) < 1e-12 })
        // cos(2π·3j/12): energy n/2 at bins 3 and 9 only.
        var c = (0..<12).map { cos(2 * Double.pi * 3 * Double($0) / 12) }, ci = [Double](repeating: 0, count: 12)
        FFTPlan(count: 12).forward(re: &c, im: &ci)
        #expect(abs(c[3] - 6) < 1e-9 && abs(c[9] - 6) < 1e-9)
        #expect((0..<12).filter { $0 != 3 && $0 != 9 }.allSatisfy { abs(c[$0]) < 1e-9 && abs(ci[$0]) < 1e-9 })
    }

    @Test func stridedSamplesTransformInPlaceAndLeaveOthersAlone() {
        // Every third sample, starting at 1.
        var r = (0..<20).map(Double.init), i = [Double](repeating: 0, count: 20)
        let picked = stride(from: 1, to: 19, by: 3).map { r[$0] }  // 6 samples
        FFTPlan(count: 6).forward(re: &r, im: &i, offset: 1, stride: 3)
        let (er, _) = directDFT(picked, [Double](repeating: 0, count: 6))
        #expect(abs(r[1] - er[0]) < 1e-9 && abs(r[4] - er[1]) < 1e-9)
        #expect(r[0] == 0 && r[2] == 2 && r[3] == 3 && r[19] == 19)
    }
}
