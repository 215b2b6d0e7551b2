import GStreamerKit
import Overlay
import Synchronization

/// A selfie ring light: a coloured border around the frame, drawn through the overlay path (cairo,
/// then GStreamer's blender). Next to `snapshot` (`ringlight ! snapshot` or `snapshot ! ringlight`,
/// fused into one worker) the preview is lit while photos stay clean: overlays are blended only after
/// the group's last stage. With an element in between (`ringlight ! queue ! snapshot`) the ring is
/// already in the pixels the snapshot takes.
public final class RinglightStage: Stage {
    /// Colour presets, as in the selfie camera this comes from.
    public static let presets: [(name: String, hex: String)] = [
        ("pure-white", "#ffffff"), ("warm-cream", "#fff1d6"), ("soft-pink", "#ffd1dc"),
        ("cool-blue", "#d6e8ff"), ("golden-hour", "#ffc56b"),
    ]

    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "ringlight",
        blurb: "Draws a coloured ring-light border around the frame (presets or any colour, width, opacity)",
        properties: [
            PropertySpec("enabled", "Draw the border", .bool, default: "true", mutability: .playing),
            PropertySpec("preset", "Colour preset; custom uses 'color'", .choice(presets.map(\.name) + ["custom"]), default: "pure-white", mutability: .playing),
            PropertySpec("color", "Border colour when preset=custom", .color, default: "#ffffff", mutability: .playing),
            PropertySpec("width", "Border width in pixels at 1080p (scaled with the frame height)", .int(10...120), default: "40", mutability: .playing),
            PropertySpec("opacity", "Border opacity in percent", .int(10...100), default: "80", mutability: .playing),
        ],
        formats: overlayFormats)

    // Lock order: settings, then state.
    private struct Settings { var enabled: Bool; var preset: String; var color: RGBAColor; var width: Int; var opacity: Int; var version = 0 }
    private struct State { var key: (Int, Int, Int) = (0, 0, -1); var composition: OverlayComposition? }
    private let settings: Mutex<Settings>
    private let state = Mutex(State())

    /// Creates the stage.
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        settings = Mutex(Settings(enabled: p.bool("enabled"), preset: p.string("preset"), color: p.color("color"),
                                  width: p.int("width"), opacity: p.int("opacity")))
    }

    /// The colour drawn (preset or custom) with the opacity applied as alpha.
    public var borderColor: RGBAColor { settings.withLock { Self.color($0) } }

    private static func color(_ s: Settings) -> RGBAColor {
        let base = s.preset == "custom" ? s.color : (try? RGBAColor.parse(presets.first { $0.name == s.preset }!.hex)) ?? s.color
        return RGBAColor(red: base.red, green: base.green, blue: base.blue, alpha: Double(s.opacity) / 100)
    }

    /// Border width in pixels for a frame height (the 1080p width scaled, at least 1).
    public static func borderWidth(_ width1080: Int, height: Int) -> Int { max(1, Int((Double(width1080) * Double(height) / 1080).rounded())) }

    /// Changes any property while playing; the next frame shows it.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        try settings.withLock { (s: inout Settings) throws(StageError) in
            switch (property, value) {
            case ("enabled", .bool(let b)): s.enabled = b
            case ("preset", .choice(let c)): s.preset = c
            case ("color", .color(let c)): s.color = c; s.preset = "custom"
            case ("width", .int(let i)): s.width = i
            case ("opacity", .int(let i)): s.opacity = i
            default: throw StageError(.usage, "ringlight: cannot set '\(property)' to '\(value)'")
            }
            s.version += 1
        }
    }

    /// Queues the (cached) border on the frame.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        guard s.enabled else { return }
        let w = frame.info.width, h = frame.info.height
        let comp: OverlayComposition = state.withLock { st in
            if let c = st.composition, st.key == (w, h, s.version) { return c }
            let b = min(Self.borderWidth(s.width, height: h), min(w, h) / 2)
            let color = Self.color(s)
            // Four bands, each its own small image: top, bottom, left, right.
            func band(_ bw: Int, _ bh: Int, _ x: Int, _ y: Int) -> OverlayComposition.Layer {
                let c = Canvas(width: bw, height: bh)
                c.fill(color)
                let img = c.image()
                return .init(pixels: img.pixels, width: img.width, height: img.height, stride: img.stride, x: x, y: y)
            }
            let layers = [band(w, b, 0, 0), band(w, b, 0, h - b), band(b, h - 2 * b, 0, b), band(b, h - 2 * b, w - b, b)]
            let c = OverlayComposition(layers: layers)
            st = State(key: (w, h, s.version), composition: c)
            return c
        }
        frame.addOverlay(comp)
    }
}
