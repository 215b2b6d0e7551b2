import GStreamerKit
import Overlay

/// The slate's text as an overlay, drawn with cairo/pango once per text and frame size.
///
/// Threads and locks: none of its own; `SourceKeeper` takes its `slateLock` around each use (its thread and the
/// worker's `fill`).
final class SlateCache {
    private var key: (String, Int, Int)?
    private var cached: OverlayComposition?

    func composition(text: String, detail: String, width: Int, height: Int) -> OverlayComposition? {
        if let key, key == (text, width, height) { return cached }
        guard width >= 16, height >= 16 else { return nil }
        let canvas = Canvas(width: width, height: height)
        let size = max(10, Double(min(width, height)) / 16)
        let white = RGBAColor(red: 1, green: 1, blue: 1)
        let backdrop = RGBAColor(red: 0.55, green: 0.05, blue: 0.05, alpha: 0.85)
        let m = canvas.measureText(text, fontSize: size, backdrop: true)
        let y = Double(height) / 2 - m.height
        canvas.drawText(text, x: (Double(width) - m.width) / 2, y: y, fontSize: size, color: white, backdrop: backdrop)
        let d = canvas.measureText(detail, fontSize: size * 0.6, backdrop: false)
        canvas.drawText(detail, x: (Double(width) - d.width) / 2, y: y + m.height + size * 0.4, fontSize: size * 0.6, color: white, backdrop: nil)
        let img = canvas.image()
        let overlay = OverlayComposition(bgra: img.pixels, width: img.width, height: img.height, stride: img.stride)
        key = (text, width, height)
        cached = overlay
        return overlay
    }
}
