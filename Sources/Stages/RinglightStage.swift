import GStreamerKit
import Overlay
import Synchronization

/// A selfie ring light: a coloured border around the frame, drawn through the overlay path (cairo,
/// then GStreamer's blender). Next to `snapshot` (`ringlight ! snapshot` or `snapshot ! ringlight`,
/// fused into one worker) the preview is lit while photos stay clean: overlays are blended only after
/// the group's last stage. With an element in between (`ringlight ! queue ! snapshot`) the ring is
/// already in the pixels the snapshot takes.
public final class RinglightStage: Stage {
    /// `preset=`: a colour preset, as in the selfie camera this comes from, or `custom` (use `color`).
    public enum Preset: String, PropertyChoice {
        case pureWhite = "pure-white"
        case warmCream = "warm-cream"
        case softPink = "soft-pink"
        case coolBlue = "cool-blue"
        case goldenHour = "golden-hour"
        case custom

        /// The preset's colour (opaque); nil for `custom`.
        public var color: RGBAColor? {
            switch self {
            case .pureWhite: RGBAColor(red8: 0xff, green8: 0xff, blue8: 0xff)
            case .warmCream: RGBAColor(red8: 0xff, green8: 0xf1, blue8: 0xd6)
            case .softPink: RGBAColor(red8: 0xff, green8: 0xd1, blue8: 0xdc)
            case .coolBlue: RGBAColor(red8: 0xd6, green8: 0xe8, blue8: 0xff)
            case .goldenHour: RGBAColor(red8: 0xff, green8: 0xc5, blue8: 0x6b)
            case .custom: nil
            }
        }
    }

    /// Colour presets by name with their colour as `#rrggbb`, in listing order (`custom` excluded).
    public static let presets: [(name: String, hex: String)] = Preset.allCases.compactMap { p in
        p.color.map { (p.rawValue, String($0.hex.prefix(7))) }
    }

    /// `enabled`: draw the border.
    public static let enabled = Property<Bool>("enabled", "Draw the border", .bool, default: true, mutability: .playing)
    /// `preset`: the colour preset.
    public static let preset = Property<Preset>("preset", "Colour preset; custom uses 'color'", default: .pureWhite, mutability: .playing)
    /// `color`: the border colour when `preset=custom`.
    public static let color = Property<RGBAColor>(
        "color", "Border colour when preset=custom", .color, default: RGBAColor(red: 1, green: 1, blue: 1),
        defaultText: "#ffffff", mutability: .playing)
    /// `width`: border width at 1080p.
    public static let width = Property<Int>(
        "width", "Border width in pixels at 1080p (scaled with the frame height)", .int(10...120),
        default: 40, mutability: .playing)
    /// `opacity`: border opacity in percent.
    public static let opacity = Property<Int>("opacity", "Border opacity in percent", .int(10...100), default: 80, mutability: .playing)

    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "ringlight",
        blurb: "Draws a coloured ring-light border around the frame (presets or any colour, width, opacity)",
        properties: [enabled.spec, preset.spec, color.spec, width.spec, opacity.spec],
        formats: overlayFormats)

    // Lock order: settings, then state.
    private struct Settings {
        var enabled: Bool; var preset: Preset; var color: RGBAColor; var width: Int; var opacity: Int; var version = 0
    }
    private struct State { var key: (Int, Int, Int) = (0, 0, -1); var composition: OverlayComposition? }
    private let settings: Mutex<Settings>
    private let state = Mutex(State())

    /// Creates the stage.
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        settings = Mutex(
            Settings(
                enabled: p[Self.enabled], preset: p[Self.preset], color: p[Self.color],
                width: p[Self.width], opacity: p[Self.opacity]))
    }

    /// The colour drawn (preset or custom) with the opacity applied as alpha.
    public var borderColor: RGBAColor { settings.withLock { Self.color($0) } }

    private static func color(_ s: Settings) -> RGBAColor {
        let base = s.preset.color ?? s.color
        return RGBAColor(red: base.red, green: base.green, blue: base.blue, alpha: Double(s.opacity) / 100)
    }

    /// Border width in pixels for a frame height (the 1080p width scaled, at least 1).
    public static func borderWidth(_ width1080: Int, height: Int) -> Int {
        max(1, Int((Double(width1080) * Double(height) / 1080).rounded()))
    }

    /// Changes any property while playing; the next frame shows it.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        try settings.withLock { (s: inout Settings) throws(StageError) in
            let cannotSet = StageError(.usage, "ringlight: cannot set '\(property)' to '\(value)'")
            switch property {
            case Self.enabled.name: s.enabled = try Self.enabled.value(value, orThrow: cannotSet)
            case Self.preset.name: s.preset = try Self.preset.value(value, orThrow: cannotSet)
            case Self.color.name: s.color = try Self.color.value(value, orThrow: cannotSet); s.preset = .custom
            case Self.width.name: s.width = try Self.width.value(value, orThrow: cannotSet)
            case Self.opacity.name: s.opacity = try Self.opacity.value(value, orThrow: cannotSet)
            default: throw cannotSet
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
