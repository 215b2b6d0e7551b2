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
        properties: [
            PropertySpec("lines", "Which lines to draw, joined by '+' (e.g. thirds+diagonals)",
                         .set(GridLine.allCases.map(\.rawValue) + GridLine.aliases.keys.sorted()), default: "thirds", mutability: .playing),
            PropertySpec("color", "Line colour with alpha", .color, default: "#ffffffc0", mutability: .playing),
            PropertySpec("width", "Line width in pixels at 1080p (scaled with the frame height)", .double(0.5...40), default: "2", mutability: .playing),
        ],
        formats: overlayFormats)

    // Lock order: settings, then state. Never hold state while taking settings.
    private struct Settings { var style: GridStyle; var version = 0 }
    private struct State { var size = (0, 0); var version = -1; var composition: OverlayComposition? }
    private let settings: Mutex<Settings>
    private let state = Mutex(State())

    /// Creates the stage.
    public init(name: String, properties: PropertyValues) throws(StageError) {
        let lines = try Self.lines(properties.set("lines"), stage: name)
        settings = Mutex(Settings(style: GridStyle(lines: lines, color: properties.color("color"), width: properties.double("width"))))
    }

    private static func lines(_ words: [String], stage: String) throws(StageError) -> [GridLine] {
        do { return try GridLine.parseList(words.joined(separator: "+")) } catch {
            throw StageError(.usage, "\(stage): \(error)")
        }
    }

    /// The style in force.
    public var style: GridStyle { settings.withLock { $0.style } }

    /// Changes lines, colour or width; the next frame is drawn with them.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        var s = settings.withLock { $0 }
        switch (property, value) {
        case ("lines", .set(let w)): s.style.lines = try Self.lines(w, stage: Self.descriptor.kind)
        case ("color", .color(let c)): s.style.color = c
        case ("width", .double(let d)): s.style.width = d
        default: throw StageError(.usage, "grid: cannot set '\(property)' to '\(value)'")
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
