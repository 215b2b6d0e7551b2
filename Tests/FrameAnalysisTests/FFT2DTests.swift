import Foundation
import Testing

@testable import FrameAnalysis

@Suite struct FFT2DTests {
    @Test func matchesDirect2DDFT() {
        let w = 6, h = 5
        let re = (0..<(w * h)).map { Double(($0 * 7) % 11) }, im = (0..<(w * h)).map { Double($0 % 3) }
        var r = re, i = im
        FFT2D(width: w, height: h).forward(re: &r, im: &i)
        var worst = 0.0
        for v in 0..<h {
            for u in 0..<w {
                var sr = 0.0, si = 0.0
                for y in 0..<h {
                    for x in 0..<w {
                        let a = -2 * Double.pi * (Double(u * x) / Double(w) + Double(v * y) / Double(h))
                        sr += re[y * w + x] * cos(a) - im[y * w + x] * sin(a)
                        si += re[y * w + x] * sin(a) + im[y * w + x] * cos(a)
                    }
                }
                worst = max(worst, abs(sr - r[v * w + u]), abs(si - i[v * w + u]))
            }
        }
        #expect(worst < 1e-9)
    }

    @Test func roundTripOnAMapSizedGrid() {
        let w = 64, h = 36
        let re = (0..<(w * h)).map { sin(Double($0) * 0.01) * 100 }
        var r = re, i = [Double](repeating: 0, count: w * h)
        let f = FFT2D(width: w, height: h)
        f.forward(re: &r, im: &i)
        #expect(abs(r[0] - re.reduce(0, +)) < 1e-6)  // DC = sum
        f.inverse(re: &r, im: &i)
        #expect(zip(r, re).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(i.allSatisfy { abs($0) < 1e-9 })
    }
}
