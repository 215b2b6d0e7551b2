import Foundation
import FrameAnalysis
import GStreamerKit

/// The photo made of a chosen frame: cropped to the aspect (placing the subject for the rule), the
/// uncropped frame kept when asked, and the frame's own analysis with its subject box in the photo's
/// pixels.
///
/// A value made on the group's worker in `process`; no locks.
struct FramedPhoto {
    /// The frame to send down `snapshot` (cropped when a crop is set).
    let photo: VideoFrame
    /// The uncropped frame, with a crop and `keep-full`.
    let full: VideoFrame?
    /// The crop window in the frame, aligned to its chroma (nil: no crop).
    let window: FrameComposition.Window?
    /// Rule, score, advice and subject box, all from the analysis of this frame; the box in the photo's pixels.
    let composition: FrameComposition?

    /// Frames `pick`, cropping it to `crop` when set; a crop that fails is an error ("crop failed: ...").
    init(_ pick: FrameRing.Entry, crop: CaptureChoice.Aspect?, keepFull: Bool) throws(StageError) {
        let frame = pick.frame
        var c = pick.composition
        let subject = c?.box(width: frame.info.width, height: frame.info.height)
        c?.subject = subject.flatMap { FrameComposition.map($0, into: (0, 0, frame.info.width, frame.info.height)) }
        c?.measured = nil
        c?.inputWidth = 0; c?.inputHeight = 0
        guard let crop else {
            photo = frame; full = nil; window = nil; composition = c
            return
        }
        let w = CaptureChoice.crop(
            width: frame.info.width, height: frame.info.height, aspect: crop, subject: subject, rule: c?.rule ?? "thirds")
        let aligned = frame.alignedCrop(x: w.x, y: w.y, width: w.width, height: w.height)
        do { photo = try frame.cropped(x: w.x, y: w.y, width: w.width, height: w.height) } catch {
            throw StageError(.stream, "crop failed: \(error.message)")
        }
        full = keepFull ? frame : nil
        window = aligned
        // The box as the cropped photo sees it (none when the subject is outside the crop).
        c?.subject = subject.flatMap { FrameComposition.map($0, into: aligned) }
        composition = c
    }

    /// The EXIF description of photo `number` ("Viewfinder photo 3 (auto): thirds, score 0.82, hold still").
    func description(number: Int, trigger: CaptureTrigger) -> String {
        var desc = "Viewfinder photo \(number) (\(trigger.rawValue))"
        if let c = composition { desc += String(format: ": %@, score %.2f, %@", c.rule, c.score, c.advice) }
        return desc
    }
}
