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
            PropertySpec("color", "Key colour (used unless a pick is set)", .color, default: "#00ff00", mutability: .playing),
            PropertySpec("pick", "Take the key from the frame: none, auto (dominant colour of the frame border), point (pick-x/pick-y)", .choice(["none", "auto", "point"]), default: "none", mutability: .playing),
            PropertySpec("pick-x", "Normalised x of the pixel patch to take the key from (sets pick=point)", .double(0...1), default: "0.05", mutability: .playing),
            PropertySpec("pick-y", "Normalised y of the pixel patch to take the key from (sets pick=point)", .double(0...1), default: "0.5", mutability: .playing),
            PropertySpec("hue-tolerance", "Hue distance in degrees still keyed", .double(1...90), default: "30", mutability: .playing),
            PropertySpec("feather", "Soft edge width in degrees of hue beyond the tolerance", .double(0...60), default: "12", mutability: .playing),
            PropertySpec("saturation-min", "Minimum saturation of keyed pixels", .double(0...1), default: "0.25", mutability: .playing),
            PropertySpec("value-min", "Darkest value keyed (lower handle of the value slider)", .double(0...1), default: "0.15", mutability: .playing),
            PropertySpec("value-max", "Brightest value keyed (upper handle of the value slider)", .double(0...1), default: "1", mutability: .playing),
            PropertySpec("spill", "Spill suppression: remove the key colour's cast from kept pixels (0 off, 1 full)", .double(0...1), default: "1", mutability: .playing),
            PropertySpec("clean", "Remove isolated specks from the matte (3x3 majority)", .bool, default: "false", mutability: .playing),
            PropertySpec("mode", "alpha: matte into alpha; matte: show the matte as grey", .choice(["alpha", "matte"]), default: "alpha", mutability: .playing),
        ],
        formats: ["RGBA", "BGRA", "ARGB", "ABGR"])

    // Lock order: settings, then state.
    private struct Settings {
        var color: RGBAColor; var pick: String; var pickX: Double; var pickY: Double
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
        settings = Mutex(Settings(color: p.color("color"), pick: p.string("pick"), pickX: p.double("pick-x"), pickY: p.double("pick-y"),
                                  tolerance: p.double("hue-tolerance"), feather: p.double("feather"), satMin: p.double("saturation-min"),
                                  vMin: p.double("value-min"), vMax: p.double("value-max"), spill: p.double("spill"), clean: p.bool("clean"),
                                  mode: p.string("mode") == "matte" ? .matte : .alpha))
        if p.double("value-min") > p.double("value-max") {
            throw StageError(.usage, "\(name): value-min \(p.double("value-min")) is above value-max \(p.double("value-max"))")
        }
    }

    /// The measurements of the last keyed frame.
    public var lastResult: ChromaKey.Result? { state.withLock { $0.last } }

    /// Changes any property while playing; the next frame uses it.
    public func update(_ property: String, value: PropertyValue) throws(StageError) {
        try settings.withLock { (s: inout Settings) throws(StageError) in
            switch (property, value) {
            case ("color", .color(let c)): s.color = c; s.pick = "none"
            case ("pick", .choice(let c)): s.pick = c
            case ("pick-x", .double(let d)): s.pickX = d; s.pick = "point"
            case ("pick-y", .double(let d)): s.pickY = d; s.pick = "point"
            case ("hue-tolerance", .double(let d)): s.tolerance = d
            case ("feather", .double(let d)): s.feather = d
            case ("saturation-min", .double(let d)): s.satMin = d
            case ("value-min", .double(let d)): s.vMin = d
            case ("value-max", .double(let d)): s.vMax = d
            case ("spill", .double(let d)): s.spill = d
            case ("clean", .bool(let b)): s.clean = b
            case ("mode", .choice(let c)): s.mode = c == "matte" ? .matte : .alpha
            default: throw StageError(.usage, "\(name): cannot set '\(property)' to '\(value)'")
            }
            s.version += 1
        }
    }

    static func order(_ format: String) -> ChromaKey.Order {
        switch format { case "BGRA": .bgra; case "ARGB": .argb; case "ABGR": .abgr; default: .rgba }
    }

    /// Keys the frame in place.
    public func process(_ frame: VideoFrame, context: StageContext) throws(StageError) {
        let s = settings.withLock { $0 }
        let order = Self.order(frame.info.format)
        // A pick is taken from the first frame after it was set (or changed).
        var keyColor = (s.color.red, s.color.green, s.color.blue)
        if s.pick != "none" {
            let picked: (r: Double, g: Double, b: Double)? = try state.withLock { (st: inout State) throws(StageError) in
                if st.pickedVersion != s.version || st.picked == nil {
                    let img = try Self.rgbImage(frame)
                    st.picked = s.pick == "auto" ? ChromaKey.dominantBorderColor(img) : ChromaKey.pick(img, x: s.pickX, y: s.pickY)
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
            let closest = result.closestHue ?? 0
            context.post(MessageStructure("viewfinder/chromakey-warning", [
                ("key", .string(String(hex))), ("closest-hue-degrees", .double((closest * 10).rounded() / 10)),
                ("share", .double((result.nearKey * 1000).rounded() / 1000)),
                ("text", .string("key colour \(hex) is within \(Int(closest.rounded())) degrees of hue of colours covering \(Int((result.nearKey * 100).rounded())) % of the frame: they may be keyed out too")),
            ]))
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
