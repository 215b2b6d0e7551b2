import Foundation
import Testing

@testable import Overlay

@Suite struct GoldenSpiralTests {
    private func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

    @Test func eyeFractionIsOneOverPhiSquaredPlusOne() {
        #expect(close(GoldenSpiral.phi, 1.6180339887498949))
        #expect(close(GoldenSpiral.eyeFraction, 0.27639320225002106))
    }

    @Test(arguments: [
        (GoldenSpiral.Corner.topLeft, 0.2764, 0.2764), (.topRight, 0.7236, 0.2764),
        (.bottomLeft, 0.2764, 0.7236), (.bottomRight, 0.7236, 0.7236),
    ])
    func eyeSitsNearTheNamedCorner(corner: GoldenSpiral.Corner, fx: Double, fy: Double) {
        let eye = GoldenSpiral(eyeCorner: corner).eye(width: 1000, height: 500)
        #expect(close(eye.x, fx * 1000, 0.1))
        #expect(close(eye.y, fy * 500, 0.1))
    }

    @Test func arcsJoinEndToEnd() {
        let squares = GoldenSpiral(eyeCorner: .topLeft).squares(minimumSide: 1e-4)
        #expect(squares.count > 15)
        #expect(close(squares[0].side, 1))
        for (a, b) in zip(squares, squares.dropFirst()) {
            let endAngle = a.startAngle + Double.pi / 2
            let end = (a.center.0 + a.side * cos(endAngle), a.center.1 + a.side * sin(endAngle))
            let start = (b.center.0 + b.side * cos(b.startAngle), b.center.1 + b.side * sin(b.startAngle))
            #expect(close(end.0, start.0, 1e-9) && close(end.1, start.1, 1e-9))
            #expect(close(b.side / a.side, 1 / GoldenSpiral.phi, 1e-6))
        }
    }

    @Test func squaresConvergeOnTheCanonicalEye() {
        let squares = GoldenSpiral(eyeCorner: .topLeft).squares(minimumSide: 1e-6)
        let last = squares[squares.count - 1]
        let f = GoldenSpiral.eyeFraction
        #expect(close(last.center.0, GoldenSpiral.phi * f, 1e-5))
        #expect(close(last.center.1, f, 1e-5))
        for sq in squares {
            #expect(sq.center.0 >= -1e-12 && sq.center.0 <= GoldenSpiral.phi + 1e-12)
            #expect(sq.center.1 >= -1e-12 && sq.center.1 <= 1 + 1e-12)
        }
    }

    @Test(arguments: GoldenSpiral.Corner.allCases)
    func frameTransformPutsTheCanonicalEyeOnEye(corner: GoldenSpiral.Corner) {
        let spiral = GoldenSpiral(eyeCorner: corner)
        let canonicalEye = (GoldenSpiral.phi * GoldenSpiral.eyeFraction, GoldenSpiral.eyeFraction)
        for (w, h) in [(1280.0, 720.0), (240.0, 320.0)] {
            let mapped = spiral.framePoint(canonicalEye, width: w, height: h)
            let eye = spiral.eye(width: w, height: h)
            #expect(close(mapped.x, eye.x, 1e-6) && close(mapped.y, eye.y, 1e-6))
            // The canonical rectangle's corners land on the frame's corners.
            let corners = [(0.0, 0.0), (GoldenSpiral.phi, 0.0), (0.0, 1.0), (GoldenSpiral.phi, 1.0)]
                .map { spiral.framePoint($0, width: w, height: h) }
            for c in corners {
                #expect((close(c.x, 0, 1e-6) || close(c.x, w, 1e-6)) && (close(c.y, 0, 1e-6) || close(c.y, h, 1e-6)))
            }
        }
    }
}
