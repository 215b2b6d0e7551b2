import Foundation
import Testing

@testable import FrameAnalysis

/// Generated sequences with known camera motion: static, panning, shaking, and a static camera with a
/// moving object.
@Suite struct StabilityEstimatorTests {
    /// A textured scene (deterministic noise blobs) seen through a 96x72 window at (ox, oy).
    static let scene: GrayImage = {
        var p = [UInt8](repeating: 0, count: 200 * 160)
        var s: UInt32 = 12345
        for i in p.indices { s = s &* 1_103_515_245 &+ 12345; p[i] = UInt8((s >> 16) & 0xff) }
        // Smooth a little so blocks have structure rather than pure noise.
        var q = p
        for y in 1..<159 {
            for x in 1..<199 {
                let i = y * 200 + x
                let centre = Int(p[i]) * 4
                let sides = Int(p[i - 1]) + Int(p[i + 1]) + Int(p[i - 200]) + Int(p[i + 200])
                q[i] = UInt8((centre + sides) / 8)
            }
        }
        return GrayImage(width: 200, height: 160, pixels: q)
    }()

    static func view(_ ox: Int, _ oy: Int, object: (x: Int, y: Int)? = nil) -> GrayImage {
        var out = [UInt8](repeating: 0, count: 96 * 72)
        for y in 0..<72 { for x in 0..<96 { out[y * 96 + x] = scene.pixels[(y + oy) * 200 + x + ox] } }
        if let o = object {  // a bright 14x14 square walking through the frame
            for y in max(0, o.y)..<min(72, o.y + 14) { for x in max(0, o.x)..<min(96, o.x + 14) { out[y * 96 + x] = 250 } }
        }
        return GrayImage(width: 96, height: 72, pixels: out)
    }

    @Test func staticCameraBecomesStableAfterTenSteadySteps() {
        var e = StabilityEstimator()
        var verdicts: [Bool] = []
        for _ in 0..<12 { verdicts.append(e.update(Self.view(50, 40)).stable) }
        // First frame has no predecessor; steps 1..9 count up; the 10th steady step makes it stable.
        #expect(verdicts == Array(repeating: false, count: 10) + [true, true])
    }

    @Test func panningIsMeasuredAndNeverStable() {
        var e = StabilityEstimator()
        var steps: [StabilityEstimator.Step] = []
        for i in 0..<15 { steps.append(e.update(Self.view(40 + 3 * i, 40))) }
        // The view moves right by 3 px per frame, so the content moves left: dx = -3.
        #expect(steps.dropFirst().allSatisfy { $0.dx == -3 && $0.dy == 0 })
        #expect(steps.allSatisfy { !$0.stable })
    }

    @Test func shakingAfterStableTurnsUnstableAfterFiveSteps() {
        var e = StabilityEstimator()
        for _ in 0..<12 { _ = e.update(Self.view(50, 40)) }
        #expect(e.stable)
        var verdicts: [Bool] = []
        let shake = [(53, 42), (48, 39), (52, 43), (47, 38), (53, 41), (49, 40)]
        for (x, y) in shake { verdicts.append(e.update(Self.view(x, y)).stable) }
        #expect(verdicts == [true, true, true, true, false, false])
    }

    @Test func aBigJumpResetsAtOnce() {
        var e = StabilityEstimator()
        for _ in 0..<12 { _ = e.update(Self.view(50, 40)) }
        #expect(e.stable)
        #expect(e.update(Self.view(50 + 6, 40)).stable == false)  // 6 px > resetPixels 5
    }

    @Test func aPersonWalkingInFrontOfAFixedCameraIsNotCameraMotion() {
        var e = StabilityEstimator()
        var steps: [StabilityEstimator.Step] = []
        for i in 0..<14 { steps.append(e.update(Self.view(50, 40, object: (x: 5 + 5 * i, y: 30)))) }
        #expect(steps.dropFirst().allSatisfy { $0.dx == 0 && $0.dy == 0 })
        #expect(steps.last?.stable == true)
    }

    @Test func sharpnessDropsWhenBlurred() {
        let sharp = Self.view(50, 40)
        var blurred = sharp.pixels
        for y in 1..<71 {
            for x in 1..<95 {
                let i = y * 96 + x
                let lr = Int(sharp.pixels[i - 1]) + Int(sharp.pixels[i + 1])
                let ud = Int(sharp.pixels[i - 96]) + Int(sharp.pixels[i + 96])
                blurred[i] = UInt8((lr + ud + Int(sharp.pixels[i])) / 5)
            }
        }
        let a = StabilityEstimator.laplacianVariance(sharp)
        let b = StabilityEstimator.laplacianVariance(GrayImage(width: 96, height: 72, pixels: blurred))
        #expect(a > 2 * b)
        #expect(StabilityEstimator.laplacianVariance(GrayImage(width: 20, height: 20, value: 90)) == 0)
    }

    /// The scene turned by `degrees` about the window's centre (nearest neighbour), seen through the
    /// same 96x72 window at (50, 40).
    static func rolled(_ degrees: Double) -> GrayImage {
        let t = degrees * .pi / 180, c = cos(t), s = sin(t)
        var out = [UInt8](repeating: 0, count: 96 * 72)
        for y in 0..<72 {
            for x in 0..<96 {
                let u = Double(x) - 48, v = Double(y) - 36
                let sx = Int((c * u + s * v + 48 + 50).rounded()), sy = Int((-s * u + c * v + 36 + 40).rounded())
                out[y * 96 + x] = scene.pixels[sy * 200 + sx]
            }
        }
        return GrayImage(width: 96, height: 72, pixels: out)
    }

    @Test func rollingTheCameraIsMeasuredAndNeverStable() {
        var e = StabilityEstimator()
        var steps: [StabilityEstimator.Step] = []
        for i in 0..<14 { steps.append(e.update(Self.rolled(Double(i) * 3))) }
        // No translation, a roll of about 3 degrees per step, so never stable.
        for st in steps.dropFirst() {
            #expect(abs(st.dx) <= 1 && abs(st.dy) <= 1)
            #expect(abs(abs(st.rotation) - 3) < 1.5, "measured \(st.rotation) degrees")
            #expect(!st.steady && st.magnitude >= 2)
        }
        #expect(steps.allSatisfy { !$0.stable })
        // Held still at an angle: steady again, no roll.
        var still = StabilityEstimator()
        let last = (0..<12).map { _ in still.update(Self.rolled(9)) }.last!
        #expect(last.stable && last.rotation == 0)
    }
}
