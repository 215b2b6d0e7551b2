import FrameAnalysis
import GStreamerKit
import Overlay
import Synchronization

/// Green screen: keys a colour out of RGBA video into the alpha channel (or shows the matte), for
/// GStreamer's `compositor` to lay over any background. The key is a distance in the chroma plane
/// (`ChromaKey`: `similarity`, `smoothness`, in chroma units), so a green sweater far from the screen's
/// chroma stays. The key comes from `color`, or is measured with its spread from a point of the frame
/// (`pick-x`/`pick-y`) or from the frame border (`pick=auto`): the threshold then sits just outside the
/// screen's own spread. When kept colours come near the key, a `viewfinder/chromakey-warning` message
/// says how near, in the same units.
public final class ChromaKeyStage: Stage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "chromakey",
        blurb: "Green-screen key by chroma distance: matte into alpha (or the matte itself), soft edge, edge unmixing, spill suppression",
        properties: [
            color.spec, pick.spec, pickX.spec, pickY.spec, similarity.spec, smoothness.spec, valueMin.spec, valueMax.spec,
            spill.spec, edges.spec, clean.spec, mode.spec,
        ],
        formats: ["RGBA", "BGRA", "ARGB", "ABGR"])

    /// `pick=`: where the key colour comes from.
    public enum Pick: String, PropertyChoice {
        /// The `color` property.
        case none
        /// The screen over the frame border: its colour and spread.
        case auto
        /// The screen in the patch at `pick-x`, `pick-y`: its colour and spread.
        case point
    }

    /// `mode=`: what the stage writes.
    public enum Mode: String, PropertyChoice {
        /// The matte goes into the alpha channel.
        case alpha
        /// The matte is shown as grey.
        case matte

        /// The keyer's mode.
        var keyMode: ChromaKey.Mode { self == .matte ? .matte : .alpha }
    }

    /// `color`: the key colour unless a pick is set.
    public static let color = Property<RGBAColor>(
        "color", "Key colour (used unless a pick is set)", .color, default: RGBAColor(red: 0, green: 1, blue: 0),
        defaultText: "#00ff00", mutability: .playing)
    /// `pick`: take the key from the frame.
    public static let pick = Property<Pick>(
        "pick", "Measure the key and its spread from the frame: none, auto (the frame border), point (patch at pick-x/pick-y)",
        default: .none, mutability: .playing)
    /// `pick-x`: normalised x of the patch the key is taken from.
    public static let pickX = Property<Double>(
        "pick-x", "Normalised x of the patch to measure the key from (sets pick=point)", .double(0...1),
        default: 0.05, mutability: .playing)
    /// `pick-y`: normalised y of the patch the key is taken from.
    public static let pickY = Property<Double>(
        "pick-y", "Normalised y of the patch to measure the key from (sets pick=point)", .double(0...1),
        default: 0.5, mutability: .playing)
    /// `similarity`: chroma distance from the key still keyed fully (0: measured).
    public static let similarity = Property<Double>(
        "similarity",
        "Chroma distance (Cb/Cr, 8-bit steps; #00ff00 is 136 from grey) from the key still keyed fully; 0: automatic (just outside the screen's measured spread with a pick, else 40: the key colour down to about 70 % of its brightness)",
        .double(0...255), default: 0, mutability: .playing)
    /// `smoothness`: soft edge width.
    public static let smoothness = Property<Double>(
        "smoothness", "Soft edge: chroma units beyond the similarity over which alpha rises to opaque", .double(0...128),
        default: ChromaKey.defaultSmoothness, mutability: .playing)
    /// `value-min`: darkest value keyed.
    public static let valueMin = Property<Double>(
        "value-min", "Darkest value keyed (lower handle of the value slider); with a pick raised to 60 % of the screen's darkest part",
        .double(0...1),
        default: 0.15, mutability: .playing)
    /// `value-max`: brightest value keyed.
    public static let valueMax = Property<Double>(
        "value-max", "Brightest value keyed (upper handle of the value slider)", .double(0...1),
        default: 1, mutability: .playing)
    /// `spill`: spill suppression strength.
    public static let spill = Property<Double>(
        "spill", "Spill suppression: remove the key colour's cast from kept pixels (0 off, 1 full)", .double(0...1),
        default: 1, mutability: .playing)
    /// `edges`: unmix edge pixels.
    public static let edges = Property<Bool>(
        "edges", "Unmix the pixels along the key's edge (hair, motion blur) against their neighbours", .bool, default: true,
        mutability: .playing)
    /// `clean`: remove isolated specks from the matte.
    public static let clean = Property<Bool>(
        "clean", "Remove isolated specks from the matte (3x3 majority)", .bool, default: false, mutability: .playing)
    /// `mode`: alpha or matte.
    public static let mode = Property<Mode>(
        "mode", "alpha: matte into alpha; matte: show the matte as grey", default: .alpha, mutability: .playing)

    // Lock order: settings, then state.
    struct Settings {
        var color: RGBAColor; var pick: Pick; var pickX: Double; var pickY: Double
        var similarity: Double; var smoothness: Double; var vMin: Double; var vMax: Double
        var spill: Double; var edges: Bool; var clean: Bool; var mode: ChromaKey.Mode; var version = 0
    }
    private struct State {
        var picked: ScreenSpread?; var pickedVersion = -1; var pickedAt: UInt64?; var lastWarning: UInt64?
        var last: ChromaKey.Result?
        var table: (key: ChromaKey, table: ChromaKey.Table)?
        /// The keyer's buffers, taken out while a frame is keyed.
        var workspace: ChromaKey.Workspace?
    }
    private let settings: Mutex<Settings>
    private let state = Mutex(State())
    private let name: String

    /// Creates the stage.
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        self.name = name
        settings = Mutex(
            Settings(
                color: p[Self.color], pick: Self.initialPick(p), pickX: p[Self.pickX], pickY: p[Self.pickY],
                similarity: p[Self.similarity], smoothness: p[Self.smoothness], vMin: p[Self.valueMin], vMax: p[Self.valueMax],
                spill: p[Self.spill], edges: p[Self.edges], clean: p[Self.clean], mode: p[Self.mode].keyMode))
        if p[Self.valueMin] > p[Self.valueMax] {
            throw StageError(.usage, "\(name): value-min \(p[Self.valueMin]) is above value-max \(p[Self.valueMax])")
        }
    }

    /// `pick`, or `point` when only `pick-x`/`pick-y` were given (as setting them while playing does).
    static func initialPick(_ p: PropertyValues) -> Pick {
        if !p.assigned.contains(pick.name) && (p.assigned.contains(pickX.name) || p.assigned.contains(pickY.name)) { return .point }
        return p[pick]
    }

    /// The measurements of the last keyed frame.
    public var lastResult: ChromaKey.Result? { state.withLock { $0.last } }

    /// Changes any property while playing; the next frame uses it.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        try settings.withLock { (s: inout Settings) throws(StageError) in
            let cannotSet = StageError(.usage, "\(name): cannot set '\(property)' to '\(value)'")
            switch property {
            case Self.color.name: s.color = try Self.color.value(value, orThrow: cannotSet); s.pick = .none
            case Self.pick.name: s.pick = try Self.pick.value(value, orThrow: cannotSet)
            case Self.pickX.name: s.pickX = try Self.pickX.value(value, orThrow: cannotSet); s.pick = .point
            case Self.pickY.name: s.pickY = try Self.pickY.value(value, orThrow: cannotSet); s.pick = .point
            case Self.similarity.name: s.similarity = try Self.similarity.value(value, orThrow: cannotSet)
            case Self.smoothness.name: s.smoothness = try Self.smoothness.value(value, orThrow: cannotSet)
            case Self.valueMin.name: s.vMin = try Self.valueMin.value(value, orThrow: cannotSet)
            case Self.valueMax.name: s.vMax = try Self.valueMax.value(value, orThrow: cannotSet)
            case Self.spill.name: s.spill = try Self.spill.value(value, orThrow: cannotSet)
            case Self.edges.name: s.edges = try Self.edges.value(value, orThrow: cannotSet)
            case Self.clean.name: s.clean = try Self.clean.value(value, orThrow: cannotSet)
            case Self.mode.name: s.mode = try Self.mode.value(value, orThrow: cannotSet).keyMode
            default: throw cannotSet
            }
            s.version += 1
        }
    }

    static func order(_ format: String) -> ChromaKey.Order {
        switch format {
        case "BGRA": .bgra;
        case "ARGB": .argb;
        case "ABGR": .abgr;
        default: .rgba
        }
    }

    /// Keys the frame in place.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        let order = Self.order(frame.info.format)
        // A pick is measured on the first frame after it was set (or changed).
        var spread: ScreenSpread?
        if s.pick != .none {
            spread = try state.withLock { (st: inout State) throws(StageError) in
                // Until a screen is found (a camera still dark, the subject filling the border) it is measured
                // again once a second of stream time, not every frame (a full-frame RGB conversion each).
                let retry =
                    st.picked == nil && frame.pts.map { pts in st.pickedAt.map { pts >= $0 &+ 1_000_000_000 } ?? true } == true
                if st.pickedVersion != s.version || retry {
                    let img = try Self.rgbImage(frame)
                    st.picked = s.pick == .auto ? ScreenSpread.fromBorder(img) : ScreenSpread.fromPoint(img, x: s.pickX, y: s.pickY)
                    st.pickedVersion = s.version
                    st.pickedAt = frame.pts
                }
                return st.picked
            }
        }
        let key = Self.key(settings: s, spread: spread)
        // The lookup table is rebuilt only when the key or a range changes.
        let workspace = state.withLock { st -> ChromaKey.Workspace in
            defer { st.workspace = nil }
            return st.workspace ?? ChromaKey.Workspace()
        }
        defer { state.withLock { $0.workspace = workspace } }
        let table = state.withLock { st -> ChromaKey.Table in
            if let t = st.table, t.key == key { return t.table }
            let t = key.table()
            st.table = (key, t)
            return t
        }
        var result: ChromaKey.Result?
        let w = frame.info.width, h = frame.info.height
        let mapped = frame.withMutablePlane(0) { (px: inout MutableSpan<UInt8>, stride: Int) in
            result = key.apply(&px, width: w, height: h, stride: stride, order: order, mode: s.mode, table: table, workspace: workspace)
        }
        guard mapped, let result else { throw StageError(.stream, "\(name): could not map the frame for writing") }
        let warn = state.withLock { st -> Bool in
            st.last = result
            guard result.nearKey > 0.01, let pts = frame.pts else { return false }
            if let last = st.lastWarning, pts < last + 1_000_000_000 { return false }
            st.lastWarning = pts
            return true
        }
        if warn {
            let hex = RGBAColor(red: key.key.r, green: key.key.g, blue: key.key.b, alpha: 1).hex.prefix(7)
            context.post(
                ChromaKeyWarning(
                    key: String(hex), closestDistance: result.closestDistance ?? 0, reach: key.similarity + key.smoothness,
                    share: result.nearKey
                ).structure)
        }
    }

    /// The key for these settings: the measured screen's (colour, chroma centre, similarity just outside its
    /// spread unless `similarity` is set, value-min raised to below its darkest part) or `color`'s.
    static func key(settings s: Settings, spread: ScreenSpread?) -> ChromaKey {
        var key: ChromaKey
        if let spread {
            key = spread.key()
            if s.similarity > 0 { key.similarity = s.similarity }
            key.valueMin = max(s.vMin, spread.valueMin)
        } else {
            key = ChromaKey(r: s.color.red, g: s.color.green, b: s.color.blue)
            key.similarity = s.similarity > 0 ? s.similarity : ChromaKey.defaultSimilarity
            key.valueMin = s.vMin
        }
        key.smoothness = s.smoothness; key.valueMax = s.vMax; key.spill = s.spill; key.clean = s.clean; key.refineEdges = s.edges
        return key
    }

    /// The frame as packed RGB, converted by GStreamer (any channel order), for picking the key.
    static func rgbImage(_ frame: VideoFrame) throws(StageError) -> RGBImage {
        do {
            let scaler = try VideoScaler(input: frame.info, width: frame.info.width, height: frame.info.height)
            return RGBImage(width: scaler.width, height: scaler.height, pixels: try scaler.rgb(of: frame))
        } catch { throw StageError(.stream, "\(error)") }
    }
}
