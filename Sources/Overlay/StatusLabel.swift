/// The capture stage's on-preview text, drawn as small images: the state line on a backdrop and the
/// self-timer's big centred digit. Plain values in, images out (no GStreamer, no stage types).
///
/// Pure functions: safe from any thread, no locks; callers cache the images (one per label or digit).
public enum StatusLabel {
    /// Gap between the frame's edge and the state line, for a frame `height` pixels tall.
    public static func margin(height: Int) -> Int { max(4, height / 60) }

    /// The state line (`label`) in `color`, small, on a translucent black backdrop, at most the frame's
    /// width less the margin; sized for a `width` x `height` frame.
    public static func labelImage(_ label: String, width w: Int, height h: Int, color: RGBAColor) -> BGRAImage {
        let font = max(10, Double(h) / 40)
        let size = Canvas(width: 1, height: 1).measureText(label, fontSize: font, backdrop: true)
        let lw = max(1, min(w - margin(height: h), Int(size.width.rounded(.up)) + 1)), lh = min(h, Int(size.height.rounded(.up)) + 1)
        let c = Canvas(width: lw, height: lh)
        c.drawText(label, x: 0, y: 0, fontSize: font, color: color, backdrop: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.55))
        return c.image()
    }

    /// The self-timer's digit `n`, a third of the frame tall, and where it goes: centred in a
    /// `width` x `height` frame.
    public static func countdownImage(_ n: Int, width w: Int, height h: Int) -> (image: BGRAImage, x: Int, y: Int) {
        let big = Double(h) / 3
        let text = "\(n)"
        let sz = Canvas(width: 1, height: 1).measureText(text, fontSize: big, backdrop: true)
        let cw = min(w, Int(sz.width.rounded(.up)) + 1), ch = min(h, Int(sz.height.rounded(.up)) + 1)
        let cc = Canvas(width: cw, height: ch)
        cc.drawText(
            text, x: 0, y: 0, fontSize: big, color: RGBAColor(red: 1, green: 1, blue: 1, alpha: 1),
            backdrop: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0.45))
        return (cc.image(), max(0, (w - cw) / 2), max(0, (h - ch) / 2))
    }
}
