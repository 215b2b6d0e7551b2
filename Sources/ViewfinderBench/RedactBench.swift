import Foundation
import FrameAnalysis
import GStreamerKit
import Host
import Stages

/// `bench redact`: the `redact` stage against GStreamer's `faceblur` (gst-plugins-bad, OpenCV Haar on every frame) on the
/// same frames in the same run: real group photos and a portrait seen by a moving, zooming virtual camera (every frame's
/// true face boxes known from the labels) and a real video; leak rate, over-cover and speed, judged from the pixels
/// (`RedactJudge`).
extension Bench {
    public enum RedactMethod: String, CaseIterable, Codable, Sendable {
        case redact, faceblur
    }

    /// One method's figures on one scenario, or pooled.
    public struct RedactFigures: Codable, Sendable {
        public var method: RedactMethod
        /// Frames, frames with a true face of at least `minFace` px, and those where one was not wholly covered.
        public var frames = 0, truthFrames = 0, leakedFrames = 0
        /// True faces summed over frames, those not wholly covered, and those mostly bare (missed).
        public var truthFaces = 0, leakedFaces = 0, bareFaces = 0
        /// Textured cells outside every true face, and those covered.
        public var outside = 0, coveredOutside = 0
        /// Time per frame (ms): mean, median, p95.
        public var meanMs = 0.0, medianMs = 0.0, p95Ms = 0.0
        /// The first frames with a leak (scenario runs).
        public var leakedAt: [Int] = []
        var ms: [Double] = []

        enum CodingKeys: String, CodingKey {
            case method, frames, truthFrames, leakedFrames, truthFaces, leakedFaces, bareFaces, outside, coveredOutside, meanMs, medianMs, p95Ms, leakedAt
        }

        public var leakRate: Double { truthFrames > 0 ? 100 * Double(leakedFrames) / Double(truthFrames) : 0 }
        public var overCover: Double { outside > 0 ? 100 * Double(coveredOutside) / Double(outside) : 0 }
        public var fps: Double { meanMs > 0 ? 1000 / meanMs : 0 }

        mutating func record(_ v: RedactJudge.Verdict, faces: Int, ms t: Double, frame n: Int) {
            frames += 1; ms.append(t)
            if faces > 0 {
                truthFrames += 1; truthFaces += faces; leakedFaces += v.leaked.count; bareFaces += v.bare.count
                if !v.leaked.isEmpty { leakedFrames += 1; if leakedAt.count < 40 { leakedAt.append(n) } }
            }
            outside += v.outside; coveredOutside += v.coveredOutside
        }

        mutating func finish() {
            let sorted = ms.sorted()
            meanMs = ms.isEmpty ? 0 : ms.reduce(0, +) / Double(ms.count)
            medianMs = percentile(sorted, 0.5); p95Ms = percentile(sorted, 0.95)
        }

        func adding(_ o: RedactFigures) -> RedactFigures {
            var s = self
            s.frames += o.frames; s.truthFrames += o.truthFrames; s.leakedFrames += o.leakedFrames
            s.truthFaces += o.truthFaces; s.leakedFaces += o.leakedFaces; s.bareFaces += o.bareFaces; s.outside += o.outside; s.coveredOutside += o.coveredOutside
            s.ms += o.ms; s.leakedAt = []
            s.finish()
            return s
        }
    }

    public struct RedactScenarioResult: Codable, Sendable {
        public var name: String
        public var width: Int, height: Int, frames: Int
        /// Where the true boxes come from.
        public var truth: String
        public var methods: [RedactFigures]
    }

    public struct RedactResult: Codable, Sendable {
        public var scenarios: [RedactScenarioResult]
        /// Pooled over the photo scenarios (labelled truth).
        public var photos: [RedactFigures]
        /// Mean ms per frame of faceblur's two conversions alone (I420 -> RGB -> I420: faceblur takes RGB only).
        public var conversionMs: Double
        public var redactSettings: String, faceblurSettings: String
        /// The least true face width judged (px).
        public var minFace: Int
    }

    /// The least face width (px) whose leak counts (the goal: none of 24 px or more).
    public static let redactMinFace = 24

    /// Runs the photo scenarios (`frames` frames each, 1280x720) and `video` (up to `frames` frames).
    public static func redact(testdata: URL, labels: URL, frames: Int, video: String) throws(HostError) -> RedactResult {
        let profile = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
        guard GStreamer.hasElementFactory("faceblur") else {
            throw HostError(.runtime, "bench redact: GStreamer's faceblur is not installed (apt install gstreamer1.0-opencv)")
        }
        guard FileManager.default.fileExists(atPath: profile) else { throw HostError(.runtime, "bench redact: \(profile) is missing (opencv-data)") }
        let faceblur = "faceblur profile=\(profile) min-size-width=\(redactMinFace) min-size-height=\(redactMinFace)"
        let photos = try labelledPhotos(testdata: testdata, labels: labels, bench: "redact")
        var results: [RedactScenarioResult] = [], conversion: [Double] = []
        for (name, photo, faces) in photos {
            let info = try benchInfo(1280, 720)
            let path = cameraPath(photoWidth: Double(photo.width), photoHeight: Double(photo.height), faces: faces, frames: frames)
            results.append(
                try redactScenario(name: name, info: info, frames: frames, truth: "labels through the camera", faceblur: faceblur, conversion: &conversion) { n in
                    renderI420(photo, camera: path[n], faces: faces, info: info)
                })
        }
        if FileManager.default.fileExists(atPath: video) {
            let decoded = try decodeI420(video, frames: frames)
            if let first = decoded.first {
                let detector = try truthDetector()
                results.append(
                    try redactScenario(
                        name: URL(fileURLWithPath: video).lastPathComponent, info: first.info, frames: decoded.count,
                        truth: "\(detector.name) on every frame at full size (no labels)", faceblur: faceblur, conversion: &conversion
                    ) { n in
                        let f = decoded[n]
                        return (f.bytes, detector.engine.detect(in: f.rgb).map(\.box).filter { $0.width >= Double(redactMinFace) })
                    })
            }
        }
        guard !results.isEmpty else { throw HostError(.runtime, "bench redact: no photo or video found (run launch/testdata)") }
        var pooled = RedactMethod.allCases.map { RedactFigures(method: $0) }
        for r in results where r.truth.hasPrefix("labels") {
            for (i, f) in r.methods.enumerated() { pooled[i] = pooled[i].adding(f) }
        }
        return RedactResult(
            scenarios: results, photos: pooled, conversionMs: conversion.isEmpty ? 0 : conversion.reduce(0, +) / Double(conversion.count),
            redactSettings: "redact (defaults: what=faces mode=blur sync=true detect-every=3 margin=0.25 hold=1 analysis-width=960)",
            faceblurSettings: "videoconvert ! " + faceblur.replacingOccurrences(of: profile, with: "haarcascade_frontalface_default.xml") + " ! videoconvert",
            minFace: redactMinFace)
    }

    static func benchInfo(_ w: Int, _ h: Int) throws(HostError) -> VideoInfo {
        do { return try VideoInfo(format: "I420", width: w, height: h, fpsN: 30, fpsD: 1) } catch { throw HostError(.runtime, "bench redact: \(error)") }
    }

    /// One scenario: each frame `make(n)` gives (I420 bytes, true faces) goes through both methods, then is judged.
    static func redactScenario(
        name: String, info: VideoInfo, frames: Int, truth: String, faceblur: String, conversion: inout [Double],
        make: (Int) -> (bytes: [UInt8], faces: [Box])
    ) throws(HostError) -> RedactScenarioResult {
        let stage = try RedactRunner(info: info)
        let blur = try ElementRunner("videoconvert ! video/x-raw,format=RGB ! \(faceblur) ! videoconvert ! video/x-raw,format=I420", info: info)
        let convert = try ElementRunner("videoconvert ! video/x-raw,format=RGB ! videoconvert ! video/x-raw,format=I420", info: info)
        defer { blur.stop(); convert.stop() }
        let judge = RedactJudge()
        var figures = RedactMethod.allCases.map { RedactFigures(method: $0) }
        for n in 0..<frames {
            let (bytes, all) = make(n)
            let faces = all.filter { $0.width >= Double(redactMinFace) }
            let luma = packedLuma((bytes, info.stride(plane: 0), info.height), width: info.width, height: info.height)
            let a = try stage.run(bytes, frame: n)
            let b = try blur.run(bytes, frame: n)
            conversion.append(try convert.run(bytes, frame: n).ms)
            for (i, out) in [a, b].enumerated() {
                let v = judge.judge(input: luma, output: out.luma, width: info.width, height: info.height, faces: faces)
                figures[i].record(v, faces: faces.count, ms: out.ms, frame: n)
            }
        }
        for i in figures.indices { figures[i].finish() }
        return RedactScenarioResult(name: name, width: info.width, height: info.height, frames: frames, truth: truth, methods: figures)
    }
}
