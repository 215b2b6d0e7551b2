import Testing

@testable import FrameAnalysis

/// The similarity's maths: points and boxes moved about the image centre, composition, and the same motion at
/// another image size.
@Suite struct CameraMotionTests {
    static let points = [Point2D(x: 0, y: 0), Point2D(x: 160, y: 90), Point2D(x: 31.5, y: 70.25), Point2D(x: 80, y: 45)]

    static func close(_ a: Point2D, _ b: Point2D) -> Bool { a.distance(to: b) < 1e-9 }

    @Test func identityLeavesPointsAndBoxes() {
        for p in Self.points { #expect(CameraMotion.identity.apply(p, width: 160, height: 90) == p) }
        let b = Box(x: 10, y: 20, width: 30, height: 40)
        #expect(CameraMotion.identity.apply(b, width: 160, height: 90) == b)
    }

    @Test func aPointIsScaledAboutTheCentreThenMoved() {
        let m = CameraMotion(scale: 1.1, dx: 2, dy: -3)
        // (100, 20) is (20, -25) from the centre (80, 45): scaled to (22, -27.5), moved by (2, -3).
        #expect(Self.close(m.apply(Point2D(x: 100, y: 20), width: 160, height: 90), Point2D(x: 104, y: 14.5)))
        // The centre only moves.
        #expect(Self.close(m.apply(Point2D(x: 80, y: 45), width: 160, height: 90), Point2D(x: 82, y: 42)))
    }

    @Test func aBoxKeepsItsCornersOnTheMovedPoints() {
        let m = CameraMotion(scale: 0.97, dx: -1.5, dy: 0.75)
        let b = Box(x: 12, y: 30, width: 40, height: 24)
        let moved = m.apply(b, width: 160, height: 90)
        let corner = m.apply(Point2D(x: 52, y: 54), width: 160, height: 90)
        #expect(Self.close(Point2D(x: moved.x, y: moved.y), m.apply(Point2D(x: 12, y: 30), width: 160, height: 90)))
        #expect(Self.close(Point2D(x: moved.x + moved.width, y: moved.y + moved.height), corner))
        #expect(abs(moved.width - 38.8) < 1e-9 && abs(moved.height - 23.28) < 1e-9)
    }

    @Test func thenIsTheFirstMotionFollowedByTheSecond() {
        let a = CameraMotion(scale: 1.03, dx: 2.5, dy: -1), b = CameraMotion(scale: 0.98, dx: -4, dy: 0.5)
        let ab = a.then(b), ba = b.then(a)
        for p in Self.points {
            #expect(Self.close(ab.apply(p, width: 160, height: 90), b.apply(a.apply(p, width: 160, height: 90), width: 160, height: 90)))
            #expect(Self.close(ba.apply(p, width: 160, height: 90), a.apply(b.apply(p, width: 160, height: 90), width: 160, height: 90)))
        }
        #expect(abs(ab.scale - 1.0094) < 1e-12 && abs(ab.dx - (0.98 * 2.5 - 4)) < 1e-12 && abs(ab.dy - (0.98 * -1 + 0.5)) < 1e-12)
        // Not commutative: the translation of the first is scaled by the second.
        #expect(ab != ba)
        #expect(a.then(.identity) == a && CameraMotion.identity.then(a) == a)
    }

    @Test func scaledIsTheSameMotionOnALargerImage() {
        let m = CameraMotion(scale: 1.02, dx: 1.25, dy: -0.5), f = 12.0
        let big = m.scaled(by: f)
        #expect(big == CameraMotion(scale: 1.02, dx: 15, dy: -6))
        // A point of the thumbnail, f times larger, lands f times larger.
        for p in Self.points {
            let small = m.apply(p, width: 160, height: 90)
            let moved = big.apply(Point2D(x: p.x * f, y: p.y * f), width: 1920, height: 1080)
            #expect(Self.close(moved, Point2D(x: small.x * f, y: small.y * f)))
        }
    }

    @Test func scaledAgreesWithResamplingTheSameViews() {
        // Two windows over a photo seen as 160x90 and as 1920x1080: the true motions differ exactly by the factor.
        let a = VirtualCamera.Window(cx: 500, cy: 300, width: 640), b = VirtualCamera.Window(cx: 492.5, cy: 304, width: 622)
        let small = VirtualCamera.motion(from: a, to: b, width: 160), large = VirtualCamera.motion(from: a, to: b, width: 1920)
        let scaled = small.scaled(by: 12)
        #expect(abs(scaled.scale - large.scale) < 1e-12 && abs(scaled.dx - large.dx) < 1e-9 && abs(scaled.dy - large.dy) < 1e-9)
    }
}
