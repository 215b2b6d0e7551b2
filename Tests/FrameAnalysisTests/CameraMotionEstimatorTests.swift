import Testing

@testable import FrameAnalysis

/// Views of real photos through a virtual camera (`VirtualCamera`) with known pans and zooms, resampled to 160x90 as
/// the reframe stage's thumbnails are: the measured motion against the true one; a still camera with someone
/// walking in front; a flat picture; a cut.
@Suite struct CameraMotionEstimatorTests {
    /// Photos with a 16:9 window of texture, and where the windows start.
    static let scenes: [(name: String, start: VirtualCamera.Window)] = [
        ("basketball1", .init(cx: 320, cy: 240, width: 440)),
        ("vtest-0100", .init(cx: 384, cy: 300, width: 520)),
        ("faces/family", .init(cx: 960, cy: 640, width: 1300)),
        ("faces/zidane", .init(cx: 640, cy: 360, width: 900)),
    ]

    /// The estimates along `windows` (one view each) and the true motions, step by step.
    static func run(_ camera: VirtualCamera, _ windows: [VirtualCamera.Window]) -> [(measured: CameraMotion?, truth: CameraMotion)] {
        var e = CameraMotionEstimator()
        #expect(e.update(camera.view(windows[0])) == nil)
        return zip(windows, windows.dropFirst()).map { a, b in (e.update(camera.view(b)), VirtualCamera.motion(from: a, to: b)) }
    }

    /// The largest distance between where the measured and the true motion put a point of the 160x90 image.
    static func pointError(_ m: CameraMotion, _ t: CameraMotion) -> Double {
        [(0.0, 0.0), (160, 0), (0, 90), (160, 90), (80, 45)].map { x, y in
            m.apply(Point2D(x: x, y: y), width: 160, height: 90).distance(to: t.apply(Point2D(x: x, y: y), width: 160, height: 90))
        }.max() ?? 0
    }

    @Test func pansAreMeasuredToATenthOfAPixel() throws {
        // Per-frame shifts in thumbnail pixels: sub-pixel, diagonal, up to 4 px.
        let shifts: [(Double, Double)] = [(0.3, 0), (-1.37, 0.52), (2.5, -1.25), (-3.8, 0.9), (4, 0), (0, -4), (-2.71, -2.71), (1.05, 3.6)]
        for scene in Self.scenes {
            let camera = try VirtualCamera(scene.name)
            var windows = [scene.start]
            for (sx, sy) in shifts {
                let w = windows[windows.count - 1]
                // The picture moves by (sx, sy): the window moves the other way, in photo pixels.
                windows.append(.init(cx: w.cx - sx * w.width / 160, cy: w.cy - sy * w.width / 160, width: w.width))
            }
            for (i, step) in Self.run(camera, windows).enumerated() {
                guard let m = step.measured else {
                    Issue.record("\(scene.name) step \(i): no estimate for \(step.truth)"); continue
                }
                let error = max(abs(m.dx - step.truth.dx), abs(m.dy - step.truth.dy))
                #expect(error <= 0.1, "\(scene.name) step \(i): measured \(m), true \(step.truth)")
                #expect(abs(m.scale - 1) <= 0.002, "\(scene.name) step \(i): scale \(m.scale)")
            }
        }
    }

    @Test func zoomsWithPansAreMeasured() throws {
        // Per-frame zoom (window width divided by it) and shift: 0.97 ... 1.03.
        let steps: [(zoom: Double, sx: Double, sy: Double)] = [
            (1.03, 0, 0), (0.97, 1.5, -0.5), (1.02, -2.3, 1.1), (0.985, 3, 0), (1.01, 0, 2.2), (0.97, -1, -1), (1.03, 2.4, 1.7),
        ]
        for scene in Self.scenes {
            let camera = try VirtualCamera(scene.name)
            var windows = [scene.start]
            for s in steps {
                let w = windows[windows.count - 1], width = w.width / s.zoom
                windows.append(.init(cx: w.cx - s.sx * width / 160, cy: w.cy - s.sy * width / 160, width: width))
            }
            for (i, step) in Self.run(camera, windows).enumerated() {
                guard let m = step.measured else {
                    Issue.record("\(scene.name) step \(i): no estimate for \(step.truth)"); continue
                }
                let shift = max(abs(m.dx - step.truth.dx), abs(m.dy - step.truth.dy)), scale = abs(m.scale - step.truth.scale)
                #expect(scale <= 0.002 && shift <= 0.1, "\(scene.name) step \(i): measured \(m), true \(step.truth)")
                // Where the corners and the centre land, the boxes carried with the camera: within 0.15 px.
                #expect(Self.pointError(m, step.truth) <= 0.15, "\(scene.name) step \(i): measured \(m), true \(step.truth)")
            }
        }
    }

    /// `view` with a person-sized patch (36x60, 15 % of the picture) of another photo pasted at (x, 20).
    static func withPatch(_ view: GrayImage, _ patch: GrayImage, x: Int) -> GrayImage {
        var out = view
        for y in 0..<patch.height { for i in 0..<patch.width where (0..<160).contains(x + i) { out[x + i, 20 + y] = patch[i, y] } }
        return out
    }

    @Test func someoneWalkingInFrontOfAStillCameraIsNoMotion() throws {
        let camera = try VirtualCamera("vtest-0100")
        let patch = try VirtualCamera("faces/zidane").view(.init(cx: 500, cy: 300, width: 300), width: 36, height: 60)
        var e = CameraMotionEstimator()
        let still = camera.view(Self.scenes[1].start)
        var out: [CameraMotion?] = []
        for n in 0..<12 { out.append(e.update(Self.withPatch(still, patch, x: 30 + 3 * n))) }
        #expect(out.first == .some(nil))
        for (i, m) in out.dropFirst().enumerated() {
            guard let m else { Issue.record("step \(i): no estimate"); continue }
            #expect(abs(m.dx) <= 0.1 && abs(m.dy) <= 0.1 && abs(m.scale - 1) <= 0.0005, "step \(i): \(m)")
        }
    }

    @Test func aPanningCameraIsMeasuredPastSomeoneWalkingTheOtherWay() throws {
        let camera = try VirtualCamera("faces/family")
        let patch = try VirtualCamera("faces/zidane").view(.init(cx: 500, cy: 300, width: 300), width: 36, height: 60)
        var e = CameraMotionEstimator()
        var windows: [VirtualCamera.Window] = [Self.scenes[2].start]
        for _ in 0..<8 { let w = windows[windows.count - 1]; windows.append(.init(cx: w.cx + 2 * w.width / 160, cy: w.cy, width: w.width)) }
        // The picture moves 2 px left per frame; the walker 3 px right.
        let views = windows.enumerated().map { n, w in Self.withPatch(camera.view(w), patch, x: 40 + 3 * n) }
        #expect(e.update(views[0]) == nil)
        for n in 1..<views.count {
            let truth = VirtualCamera.motion(from: windows[n - 1], to: windows[n])
            guard let m = e.update(views[n]) else { Issue.record("step \(n): no estimate"); continue }
            #expect(abs(m.dx - truth.dx) <= 0.1 && abs(m.dy - truth.dy) <= 0.1, "step \(n): \(m), true \(truth)")
            #expect(abs(m.scale - 1) <= 0.002, "step \(n): \(m)")
        }
    }

    @Test func aMotionMeasuredOnALargerViewIsTheThumbnailsScaled() throws {
        let camera = try VirtualCamera("faces/zidane")
        let a = Self.scenes[3].start, b = VirtualCamera.Window(cx: a.cx - 9, cy: a.cy + 5, width: a.width / 1.01)
        var small = CameraMotionEstimator(), large = CameraMotionEstimator()
        _ = small.update(camera.view(a)); _ = large.update(camera.view(a, width: 320, height: 180))
        let measuredSmall = small.update(camera.view(b)), measuredLarge = large.update(camera.view(b, width: 320, height: 180))
        let s = try #require(measuredSmall), l = try #require(measuredLarge)
        let scaled = s.scaled(by: 2)
        #expect(abs(scaled.dx - l.dx) <= 0.2 && abs(scaled.dy - l.dy) <= 0.2 && abs(scaled.scale - l.scale) <= 0.002, "\(scaled) vs \(l)")
        let truth = VirtualCamera.motion(from: a, to: b, width: 320)
        #expect(abs(l.dx - truth.dx) <= 0.2 && abs(l.dy - truth.dy) <= 0.2, "\(l), true \(truth)")
    }

    @Test func aStillCameraIsExactlyIdentity() throws {
        let camera = try VirtualCamera("basketball1")
        var e = CameraMotionEstimator()
        let view = camera.view(Self.scenes[0].start)
        #expect(e.update(view) == nil)
        #expect(e.update(view) == .identity)
        #expect(e.update(view) == .identity)
    }

    @Test func aFlatPictureHasNoEstimate() {
        var e = CameraMotionEstimator()
        #expect(e.update(GrayImage(width: 160, height: 90, value: 128)) == nil)
        #expect(e.update(GrayImage(width: 160, height: 90, value: 128)) == nil)
        #expect(e.update(GrayImage(width: 160, height: 90, value: 130)) == nil)
    }

    @Test func aCutHasNoEstimate() throws {
        var e = CameraMotionEstimator()
        let views = try Self.scenes.map { try VirtualCamera($0.name).view($0.start) }
        #expect(e.update(views[0]) == nil)
        for v in views.dropFirst() { #expect(e.update(v) == nil) }
    }

    @Test func aMotionBeyondTheSearchHasNoEstimate() throws {
        let camera = try VirtualCamera("basketball1")
        var e = CameraMotionEstimator()
        let w = Self.scenes[0].start
        #expect(e.update(camera.view(w)) == nil)
        #expect(e.update(camera.view(.init(cx: w.cx - 14 * w.width / 160, cy: w.cy, width: w.width))) == nil)
    }

    @Test func aSizeChangeOrAResetStartsOver() throws {
        let camera = try VirtualCamera("basketball1")
        let w = Self.scenes[0].start
        var e = CameraMotionEstimator()
        #expect(e.update(camera.view(w)) == nil)
        #expect(e.update(camera.view(w, width: 128, height: 72)) == nil)
        #expect(e.update(camera.view(w, width: 128, height: 72)) == .identity)
        e.reset()
        #expect(e.update(camera.view(w, width: 128, height: 72)) == nil)
        #expect(e.update(camera.view(w, width: 128, height: 72)) == .identity)
    }
}
