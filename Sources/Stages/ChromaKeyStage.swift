import FrameAnalysis
import GStreamerKit
import Overlay
import Synchronization

/// Green screen: keys a colour out of RGBA video into the alpha channel (or shows the matte), for
/// GStreamer's `compositor` to lay over any background. The key comes from `color`, from a point of
/// the frame (`pick-x`/`pick-y`) or from the frame border (`pick=auto`). When the key is too close to
/// colours the subject wears, a `viewfinder/chromakey-warning` message says which colour and how close.
public final class ChromaKeyStage: Stage {
    /// Descriptor.
    public static let descriptor = StageDescriptor(
        kind: "chromakey",
        blurb: "Green-screen key in HSV: matte into alpha (or the matte itself), soft edge, spill suppression",
        properties: [
            color.spec, pick.spec, pickX.spec, pickY.spec, hueTolerance.spec, feather.spec, saturationMin.spec,
            valueMin.spec, valueMax.spec, spill.spec, clean.spec, mode.spec,
        ],
        formats: ["RGBA", "BGRA", "ARGB", "ABGR"])

    /// `pick=`: where the key colour comes from.
    public enum Pick: String, PropertyChoice {
        /// The `color` property.
        case none
        /// The dominant colour of the frame border.
        case auto
        /// The pixel patch at `pick-x`, `pick-y`.
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
        "pick", "Take the key from the frame: none, auto (dominant colour of the frame border), point (pick-x/pick-y)",
        default: .none, mutability: .playing)
    /// `pick-x`: normalised x of the patch the key is taken from.
    public static let pickX = Property<Double>(
        "pick-x", "Normalised x of the pixel patch to take the key from (sets pick=point)", .double(0...1),
        default: 0.05, mutability: .playing)
    /// `pick-y`: normalised y of the patch the key is taken from.
    public static let pickY = Property<Double>(
        "pick-y", "Normalised y of the pixel patch to take the key from (sets pick=point)", .double(0...1),
        default: 0.5, mutability: .playing)
    /// `hue-tolerance`: hue distance still keyed.
    public static let hueTolerance = Property<Double>(
        "hue-tolerance", "Hue distance in degrees still keyed", .double(1...90), default: 30, mutability: .playing)
    /// `feather`: soft edge width.
    public static let feather = Property<Double>(
        "feather", "Soft edge width in degrees of hue beyond the tolerance", .double(0...60),
        default: 12, mutability: .playing)
    /// `saturation-min`: minimum saturation keyed.
    public static let saturationMin = Property<Double>(
        "saturation-min", "Minimum saturation of keyed pixels", .double(0...1), default: 0.25, mutability: .playing)
    /// `value-min`: darkest value keyed.
    public static let valueMin = Property<Double>(
        "value-min", "Darkest value keyed (lower handle of the value slider)", .double(0...1),
        default: 0.15, mutability: .playing)
    /// `value-max`: brightest value keyed.
    public static let valueMax = Property<Double>(
        "value-max", "Brightest value keyed (upper handle of the value slider)", .double(0...1),
        default: 1, mutability: .playing)
    /// `spill`: spill suppression strength.
    public static let spill = Property<Double>(
        "spill", "Spill suppression: remove the key colour's cast from kept pixels (0 off, 1 full)", .double(0...1),
        default: 1, mutability: .playing)
    /// `clean`: remove isolated specks from the matte.
    public static let clean = Property<Bool>(
        "clean", "Remove isolated specks from the matte (3x3 majority)", .bool, default: false, mutability: .playing)
    /// `mode`: alpha or matte.
    public static let mode = Property<Mode>(
        "mode", "alpha: matte into alpha; matte: show the matte as grey", default: .alpha, mutability: .playing)

    // Lock order: settings, then state.
    private struct Settings {
        var color: RGBAColor; var pick: Pick; var pickX: Double; var pickY: Double
        var tolerance: Double; var feather: Double; var satMin: Double; var vMin: Double; var vMax: Double
        var spill: Double; var clean: Bool; var mode: ChromaKey.Mode; var version = 0
    }
    private struct State {
        var picked: (r: Double, g: Double, b: Double)?; var pickedVersion = -1; var lastWarning: UInt64?; var last: ChromaKey.Result?
        var table: (key: ChromaKey, table: ChromaKey.Table)?
    }
    private let settings: Mutex<Settings>
    private let state = Mutex(State())
    private let name: String

    /// Creates the stage.
    public init(name: String, properties p: PropertyValues) throws(StageError) {
        self.name = name
        settings = Mutex(
            Settings(
                color: p[Self.color], pick: p[Self.pick], pickX: p[Self.pickX], pickY: p[Self.pickY],
                tolerance: p[Self.hueTolerance], feather: p[Self.feather], satMin: p[Self.saturationMin],
                vMin: p[Self.valueMin], vMax: p[Self.valueMax], spill: p[Self.spill], clean: p[Self.clean],
                mode: p[Self.mode].keyMode))
        if p[Self.valueMin] > p[Self.valueMax] {
            throw StageError(.usage, "\(name): value-min \(p[Self.valueMin]) is above value-max \(p[Self.valueMax])")
        }
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
            case Self.hueTolerance.name: s.tolerance = try Self.hueTolerance.value(value, orThrow: cannotSet)
            case Self.feather.name: s.feather = try Self.feather.value(value, orThrow: cannotSet)
            case Self.saturationMin.name: s.satMin = try Self.saturationMin.value(value, orThrow: cannotSet)
            case Self.valueMin.name: s.vMin = try Self.valueMin.value(value, orThrow: cannotSet)
            case Self.valueMax.name: s.vMax = try Self.valueMax.value(value, orThrow: cannotSet)
            case Self.spill.name: s.spill = try Self.spill.value(value, orThrow: cannotSet)
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
        // A pick is taken from the first frame after it was set (or changed).
        var keyColor = (s.color.red, s.color.green, s.color.blue)
        if s.pick != .none {
            let picked: (r: Double, g: Double, b: Double)? = try state.withLock { (st: inout State) throws(StageError) in
                if st.pickedVersion != s.version || st.picked == nil {
                    let img = try Self.rgbImage(frame)
                    st.picked = s.pick == .auto ? ChromaKey.dominantBorderColor(img) : ChromaKey.pick(img, x: s.pickX, y: s.pickY)
                    st.pickedVersion = s.version
                }
                return st.picked
            }
            if let picked { keyColor = (picked.r, picked.g, picked.b) }
        }
        var key = ChromaKey(r: keyColor.0, g: keyColor.1, b: keyColor.2)
        key.hueTolerance = s.tolerance; key.feather = s.feather; key.saturationMin = s.satMin
        key.valueMin = s.vMin; key.valueMax = s.vMax; key.spill = s.spill; key.clean = s.clean
        // The lookup table is rebuilt only when the key or a range changes.
        let table = state.withLock { st -> ChromaKey.Table in
            if let t = st.table, t.key == key { return t.table }
            let t = key.table()
            st.table = (key, t)
            return t
        }
        var result: ChromaKey.Result?
        let w = frame.info.width, h = frame.info.height
        let mapped = frame.withMutablePlane(0) { (px: inout MutableSpan<UInt8>, stride: Int) in
            result = key.apply(&px, width: w, height: h, stride: stride, order: order, mode: s.mode, table: table)
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
            let hex = RGBAColor(red: keyColor.0, green: keyColor.1, blue: keyColor.2, alpha: 1).hex.prefix(7)
            context.post(ChromaKeyWarning(key: String(hex), closestHue: result.closestHue ?? 0, share: result.nearKey).structure)
        }
    }

    /// The frame as packed RGB, converted by GStreamer (any channel order), for picking the key.
    static func rgbImage(_ frame: VideoFrame) throws(StageError) -> RGBImage {
        do {
            let scaler = try VideoScaler(input: frame.info, width: frame.info.width, height: frame.info.height)
            return RGBImage(width: scaler.width, height: scaler.height, pixels: try scaler.rgb(of: frame))
        } catch { throw StageError(.stream, "\(error)") }
    }
}
