import Foundation
import Timing
import FrameAnalysis
import GStreamerKit
import Overlay

/// `compose` on its analysis thread (or on the video thread with `sync=true`): the RGB analysis image, the
/// subject and the verdict, the overlay drawn ahead for the video thread, the message and the JSON line.
extension ComposeStage {
    /// The upstream faces for a frame, in analysed pixels; waits (bounded in real time: the bus loop delivers
    /// them in real time) for the bus to deliver them.
    func upstreamFaces(_ job: Job, analysedWidth: Int, analysedHeight: Int) -> [Detection] {
        guard let pts = job.pts else { return [] }
        let real = SystemClock.shared
        let deadline = real.now + 0.25
        var faces: [Box]?
        repeat {
            faces = upstream.withLock { $0[pts] }
            if faces == nil { Thread.sleep(forTimeInterval: 0.005) }
        } while faces == nil && real.now < deadline
        let sx = Double(analysedWidth) / Double(job.inputWidth), sy = Double(analysedHeight) / Double(job.inputHeight)
        return (faces ?? []).map { Detection(box: $0.scaled(sx, sy), confidence: 1, kind: .face) }
    }

    func analyse(_ job: Job) {
        // The RGB analysis image, made here, off the video thread, from the small copy.
        let image: RGBImage
        do {
            guard let reduced = job.reduced,
                let scaled = try analysis.withLock({ a throws(GStreamerError) -> RGBImage? in
                    // A job queued before a caps change is of the old layout: skip it.
                    guard let sc = a.scaler, sc.input == reduced.info else { return nil }
                    return RGBImage(width: sc.width, height: sc.height, pixels: try sc.rgb(of: reduced))
                })
            else { return }
            image = scaled
        } catch {
            results.withLock { $0.failure = "\(error)" }
            return
        }
        let fromUpstream = engineChoice == .upstream ? upstreamFaces(job, analysedWidth: image.width, analysedHeight: image.height) : nil
        let s = settings.withLock { $0 }
        let g = analysis.withLock { a in
            if let fromUpstream { a.analyzer.engines = [FixedDetections(detections: fromUpstream)] }
            var g: Guidance
            if var rotation = a.rotation {
                // A fallback's result stands for a round of turns at the current analysis rate (at least 1 s).
                rotation.interval = 1 / s.fps
                g = a.analyzer.analyze(image, pts: job.pts, smoother: &a.smoother, rotation: &rotation)
                a.rotation = rotation
            } else {
                g = a.analyzer.analyze(image, pts: job.pts, smoother: &a.smoother)
            }
            // Stable ids for the faces and people found (stream time; a frame without a pts at 30 fps).
            a.tracker?.identify(&g, at: job.pts.map { Double($0) / 1e9 } ?? Double(job.index) / 30)
            return g
        }
        // Draw the new guidance here, off the video thread, for the frame size it will be shown at.
        var prepared: Results.Prepared?
        if s.overlay {
            let drawing = Self.drawing(g, grid: s.grid, rule: s.rule, marks: ruleMarks)
            let comp = Self.guidanceComposition(drawing, width: job.inputWidth, height: job.inputHeight, textScale: s.textScale)
            comp.prepare(for: job.format)
            let advice = GuidanceRenderer.adviceSprite(
                drawing.advice, width: job.inputWidth, height: job.inputHeight, textScale: s.textScale)
            prepared = .init(
                drawing: drawing, width: job.inputWidth, height: job.inputHeight, textScale: s.textScale, composition: comp, advice: advice)
        }
        // Stream time when this result was published (the newest frame's), for the analyses-per-second gauge; state
        // is taken alone here, before results.
        let publishedAt = state.withLock { $0.newestPTS }
        results.withLock { r in
            // An analysis of an earlier frame than the one published (a job under way while `analyseNow` ran) is late.
            if let p = job.pts, let q = r.latest?.pts, p < q { return }
            if let publishedAt { r.rate.record(at: publishedAt) }
            r.latest = g
            r.latestInput = (job.inputWidth, job.inputHeight)
            r.analysed += 1
            r.prepared = prepared
        }
        let context = state.withLock { $0.context }
        context?.post(CompositionMessage(g, frame: job.index, inputWidth: job.inputWidth, inputHeight: job.inputHeight).structure)
        json?.write(Self.jsonObject(g, job: job))
    }
}
