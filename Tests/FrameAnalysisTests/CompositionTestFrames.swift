import Foundation

@testable import FrameAnalysis

/// Synthetic frames for the composition and saliency tests (deterministic: a fixed-seed generator).
enum CompositionTestFrames {
    /// A small deterministic pseudo-random generator (64-bit LCG, Knuth's constants).
    struct LCG {
        var state: UInt64
        mutating func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 33 }
        /// Uniform in 0..<n.
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// Grey texture: 2x2 blocks of random level `base ± spread`.
    static func texture(width: Int, height: Int, base: Int = 100, spread: Int = 30, seed: UInt64 = 7) -> GrayImage {
        var rng = LCG(state: seed)
        var g = GrayImage(width: width, height: height)
        for by in stride(from: 0, to: height, by: 2) {
            for bx in stride(from: 0, to: width, by: 2) {
                let v = UInt8(max(0, min(255, base - spread + rng.int(2 * spread + 1))))
                for y in by..<min(height, by + 2) { for x in bx..<min(width, bx + 2) { g[x, y] = v } }
            }
        }
        return g
    }

    /// Paints a filled disc.
    static func disc(_ g: inout GrayImage, cx: Double, cy: Double, r: Double, value: UInt8) {
        for y in 0..<g.height {
            for x in 0..<g.width {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                if dx * dx + dy * dy <= r * r { g[x, y] = value }
            }
        }
    }

    /// Grey to RGB (R = G = B).
    static func rgb(_ g: GrayImage) -> RGBImage {
        var p = [UInt8](repeating: 0, count: g.width * g.height * 3)
        for i in 0..<(g.width * g.height) { p[3 * i] = g.pixels[i]; p[3 * i + 1] = g.pixels[i]; p[3 * i + 2] = g.pixels[i] }
        return RGBImage(width: g.width, height: g.height, pixels: p)
    }

    /// A landscape: bright sky with a soft vertical gradient above `horizonY`, darker textured ground below.
    static func landscape(width: Int, height: Int, horizonY: Int, seed: UInt64 = 11) -> GrayImage {
        var rng = LCG(state: seed)
        var g = GrayImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                if y < horizonY { g[x, y] = UInt8(200 - 30 * y / max(1, horizonY)) } else { g[x, y] = UInt8(60 + rng.int(30)) }
            }
        }
        return g
    }

    /// Rotates `src` by `degrees` counter-clockwise as seen (positive: content turns counter-clockwise,
    /// a horizontal line then rises to the right) about its centre, bilinear, and crops the centre
    /// `width` x `height`. The output pixel (u, v) (from the centre, y down) samples the source at
    /// (u·cos θ - v·sin θ, u·sin θ + v·cos θ).
    static func rotated(_ src: GrayImage, degrees: Double, width: Int, height: Int) -> GrayImage {
        let t = degrees * Double.pi / 180, c = cos(t), s = sin(t)
        let scx = Double(src.width - 1) / 2, scy = Double(src.height - 1) / 2
        let ocx = Double(width - 1) / 2, ocy = Double(height - 1) / 2
        var out = GrayImage(width: width, height: height)
        for v in 0..<height {
            for u in 0..<width {
                let du = Double(u) - ocx, dv = Double(v) - ocy
                let x = scx + du * c - dv * s, y = scy + du * s + dv * c
                let x0 = max(0, min(src.width - 2, Int(x.rounded(.down)))), y0 = max(0, min(src.height - 2, Int(y.rounded(.down))))
                let fx = max(0, min(1, x - Double(x0))), fy = max(0, min(1, y - Double(y0)))
                let a = Double(src[x0, y0]), b = Double(src[x0 + 1, y0]), cc = Double(src[x0, y0 + 1]), d = Double(src[x0 + 1, y0 + 1])
                out[u, v] = UInt8(((a * (1 - fx) + b * fx) * (1 - fy) + (cc * (1 - fx) + d * fx) * fy).rounded())
            }
        }
        return out
    }
}
