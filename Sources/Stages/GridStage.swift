import GStreamerKit
import Overlay
import Synchronization

/// Draws a composition grid (thirds, phi, crosshair, centre, diagonals, golden spiral) over the video.
///
/// The grid is rendered once per frame size with cairo and blended into every frame by
/// GStreamer's overlay composition, which handles any raw format.
public final class GridStage: Stage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "grid",
        blurb: "Draws a composition grid: thirds, golden/phi, crosshair, centre, diagonals, golden spiral",
        properties: [lines.spec, color.spec, width.spec],
        formats: overlayFormats)

    /// A word `lines=` accepts: every `GridLine` name, then the aliases in alphabetical order (the order
    /// `inspect` lists them). The stage turns the words into lines with `GridLine.parseList`.
    public enum LineWord: String, PropertyChoice, Hashable {
        case thirds, golden, crosshair, center, diagonals
        case spiralTopLeft = "spiral-tl"
        case spiralTopRight = "spiral-tr"
        case spiralBottomLeft = "spiral-bl"
        case spiralBottomRight = "spiral-br"
        case none
        // Aliases (`GridLine.aliases`, sorted).
        case centre, phi, spiral
    }

    /// `lines`: which lines to draw.
    public static let lines = Property<PropertyFlags<LineWord>>(
        "lines", "Which lines to draw, joined by '+' (e.g. thirds+diagonals)",
        default: [.thirds], mutability: .playing)
    /// `color`: line colour with alpha.
    public static let color = Property<RGBAColor>(
        "color", "Line colour with alpha", .color,
        default: RGBAColor(red8: 255, green8: 255, blue8: 255, alpha8: 0xc0),
        defaultText: "#ffffffc0", mutability: .playing)
    /// `width`: line width at 1080p.
    public static let width = Property<Double>(
        "width", "Line width in pixels at 1080p (scaled with the frame height)", .double(0.5...40),
        default: 2, mutability: .playing)

    // Lock order: settings, then state. Never hold state while taking settings.
    private struct Settings { var style: GridStyle; var version = 0 }
    private struct State { var size = (0, 0); var version = -1; var composition: OverlayComposition? }
    private let settings: Mutex<Settings>
    private let state = Mutex(State())

    /// Creates the stage.
    public init(name: String, properties: PropertyValues) throws(StageError) {
        let lines = try Self.gridLines(properties[Self.lines].flags.map(\.rawValue), stage: name)
        settings = Mutex(Settings(style: GridStyle(lines: lines, color: properties[Self.color], width: properties[Self.width])))
    }

    /// The lines named by `lines=` words (aliases resolved, duplicates dropped).
    private static func gridLines(_ words: [String], stage: String) throws(StageError) -> [GridLine] {
        do { return try GridLine.parseList(words.joined(separator: "+")) } catch {
            throw StageError(.usage, "\(stage): \(error)")
        }
    }

    /// The style in force.
    public var style: GridStyle { settings.withLock { $0.style } }

    /// Changes lines, colour or width; the next frame is drawn with them.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        var s = settings.withLock { $0 }
        let cannotSet = StageError(.usage, "grid: cannot set '\(property)' to '\(value)'")
        switch property {
        case Self.lines.name:
            // Parsed from the words so an unknown one is named the way `GridLine.parseList` names it.
            guard case .set(let words) = value else { throw cannotSet }
            s.style.lines = try Self.gridLines(words, stage: Self.descriptor.kind)
        case Self.color.name: s.style.color = try Self.color.value(value, orThrow: cannotSet)
        case Self.width.name: s.style.width = try Self.width.value(value, orThrow: cannotSet)
        default: throw cannotSet
        }
        s.version += 1
        settings.withLock { $0 = s }
    }

    /// Queues the (cached) grid overlay on the frame.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let (style, version) = settings.withLock { ($0.style, $0.version) }
        let w = frame.info.width, h = frame.info.height
        let comp: OverlayComposition = state.withLock { st in
            if let c = st.composition, st.size == (w, h), st.version == version { return c }
            let img = GridRenderer.render(style, width: w, height: h)
            let c = OverlayComposition(bgra: img.pixels, width: img.width, height: img.height, stride: img.stride)
            st = State(size: (w, h), version: version, composition: c)
            return c
        }
        frame.addOverlay(comp)
    }
}
