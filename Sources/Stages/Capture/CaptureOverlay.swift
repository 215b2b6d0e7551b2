import FrameAnalysis
import GStreamerKit
import Overlay
import Synchronization

/// What `capture` draws on the preview (never on photos): the state line in the next free text row at
/// the bottom (after compose's advice when compose ran first in the group), and the self-timer's
/// countdown in the centre. Images are drawn once per label or digit and frame size, then reused.
///
/// Threads: `draw` runs on the group's worker; the image cache is behind its own mutex (taken alone,
/// never while the stage holds its runtime lock).
final class CaptureOverlay: Sendable {
    private struct Cache {
        var labelKey: String?, label: BGRAImage?
        /// The self-timer digit drawn for "n|width|height".
        var countdownKey: String?, countdown: (image: BGRAImage, x: Int, y: Int)?
        var compositionKey: String?, composition: OverlayComposition?
    }
    private let cache = Mutex(Cache())

    /// The state line's colour: green when ready or capturing, red on error, white otherwise.
    static func color(of phase: CapturePhase) -> RGBAColor {
        switch phase {
        case .readyToCapture, .capturingPhoto: RGBAColor(red: 0.4, green: 1, blue: 0.4, alpha: 1)
        case .error: RGBAColor(red: 1, green: 0.4, blue: 0.4, alpha: 1)
        default: RGBAColor(red: 1, green: 1, blue: 1, alpha: 1)
        }
    }

    /// Adds the state line for `phase` and `reason`, and the `countdown` digit when it is above 0.
    func draw(on frame: VideoFrame, phase: CapturePhase, reason: String, countdown: Int?) {
        let w = frame.info.width, h = frame.info.height
        let label = phase.label(reason: reason)
        let key = "\(w)x\(h)|\(label)|\(phase.rawValue)"
        let image: BGRAImage = cache.withLock { c in
            if let i = c.label, c.labelKey == key { return i }
            let i = StatusLabel.labelImage(label, width: w, height: h, color: Self.color(of: phase))
            c.label = i; c.labelKey = key; c.composition = nil
            return i
        }
        let margin = StatusLabel.margin(height: h)
        let y = frame.reserveTextRow(height: image.height, edge: .bottom, gap: margin, x: margin, width: image.width)
        let big = countdown.flatMap { n -> (image: BGRAImage, x: Int, y: Int)? in
            guard n > 0 else { return nil }
            let digitKey = "\(n)|\(w)|\(h)"
            return cache.withLock { c in
                if let d = c.countdown, c.countdownKey == digitKey { return d }
                let d = StatusLabel.countdownImage(n, width: w, height: h)
                c.countdown = d; c.countdownKey = digitKey
                return d
            }
        }
        if let big { frame.noteText(x: big.x, y: big.y, width: big.image.width, height: big.image.height) }
        let fullKey = "\(key)|\(y)|\(countdown.map(String.init) ?? "-")"
        let composition: OverlayComposition = cache.withLock { c in
            if let o = c.composition, c.compositionKey == fullKey { return o }
            var layers = [
                OverlayComposition.Layer(
                    pixels: image.pixels, width: image.width, height: image.height, stride: image.stride, x: margin, y: y)
            ]
            if let big {
                layers.append(
                    .init(
                        pixels: big.image.pixels, width: big.image.width, height: big.image.height, stride: big.image.stride, x: big.x,
                        y: big.y))
            }
            let o = OverlayComposition(layers: layers)
            c.composition = o; c.compositionKey = fullKey
            return o
        }
        frame.addOverlay(composition)
    }
}
