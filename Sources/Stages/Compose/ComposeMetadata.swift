import Foundation
import FrameAnalysis

/// The schema of `metadata-location=`: one JSON object per analysed frame (written by `JSONLineWriter`).
extension ComposeStage {
    static func inputBox(_ g: Guidance, _ w: Int, _ h: Int) -> Box? { g.subjectBox(width: w, height: h) }

    static func jsonObject(_ g: Guidance, job: Job) -> [String: Any] {
        let sx = Double(job.inputWidth) / Double(g.frameWidth), sy = Double(job.inputHeight) / Double(g.frameHeight)
        func box(_ b: Box) -> [String: Any] {
            [
                "x": (b.x * 100).rounded() / 100, "y": (b.y * 100).rounded() / 100, "width": (b.width * 100).rounded() / 100,
                "height": (b.height * 100).rounded() / 100,
            ]
        }
        var o: [String: Any] = [
            "pts": g.pts.map { NSNumber(value: $0) } ?? NSNull(), "frame": job.index, "rule": g.rule,
            "score": (g.score * 1000).rounded() / 1000,
            "well_composed": g.wellComposed, "locked": g.locked, "advice": g.advice, "engine": g.engine ?? NSNull(),
            "analysis_ms": (g.totalMs * 1000).rounded() / 1000, "width": job.inputWidth, "height": job.inputHeight,
        ]
        o["subject"] = inputBox(g, job.inputWidth, job.inputHeight).map(box) ?? NSNull()
        // The subject as detected in this frame (before smoothing across frames): what a photo records.
        o["measured"] = g.measuredNormalized.map { box($0.scaled(Double(job.inputWidth), Double(job.inputHeight))) } ?? NSNull()
        // Exposure figures when the rule measured them (rule=exposure, or auto with a subject): see ExposureFigures.
        if let e = g.exposure {
            o["exposure"] = [
                "subject_luma": (e.subjectLuma * 10).rounded() / 10, "background_luma": (e.backgroundLuma * 10).rounded() / 10,
                "clipped": (e.clipped * 1000).rounded() / 1000, "stops": (e.stops * 100).rounded() / 100,
            ]
        }
        // What the subject is (face, group, upper-body, ...); for a group, its members (as detected in this frame).
        o["subject_kind"] = g.subject.map { $0.kind.rawValue } ?? NSNull()
        // Track ids (stable while a face or person is followed, never reused in the stream): the subject's, a group
        // member's, each face's and person's.
        o["subject_id"] = g.subject?.id ?? NSNull()
        o["group"] = (g.subject?.members ?? []).map { m -> [String: Any] in
            var b = box(m.scaled(sx, sy)); b["id"] = ObjectTracker.id(of: m, in: g.detections) ?? NSNull()
            return b
        }
        o["persons"] = g.detections(of: .person).map { d -> [String: Any] in
            var b = box(d.box.scaled(sx, sy)); b["confidence"] = (d.confidence * 1000).rounded() / 1000
            b["kind"] = d.kind.rawValue; b["id"] = d.id ?? NSNull()
            return b
        }
        o["faces"] = g.detections(of: .face).map { d -> [String: Any] in
            var b = box(d.box.scaled(sx, sy)); b["confidence"] = (d.confidence * 1000).rounded() / 1000
            b["id"] = d.id ?? NSNull()
            // Eye centres in input pixels (engine=cnn), the image's left eye first.
            if let e = d.eyes?.scaled(sx, sy) {
                b["eyes"] = [e.left, e.right].map { [($0.x * 100).rounded() / 100, ($0.y * 100).rounded() / 100] }
            }
            return b
        }
        return o
    }
}
