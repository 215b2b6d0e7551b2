import Stages

/// What the plugin's C half registers, derived from `StageRegistry`: one element kind per stage, its
/// template caps, extra outputs and GObject properties. Built once, read by `class_init` through the
/// `vfsw_*` entry points; pure data (no file, no GStreamer call), so `gst-plugin-scanner` may run it.
enum PluginCatalog {
    /// How a stage property appears as a GObject property.
    struct Property {
        /// GObject property type (the `VF_PROP_*` numbers of viewfinder_plugin.h).
        enum Kind: Int32 { case bool = 0, int = 1, double = 2, string = 3, enumeration = 4, flags = 5 }
        var spec: PropertySpec
        var kind: Kind
        var min: Double
        var max: Double
        /// The default as the canonical text the spec parses back.
        var defaultText: String
        /// Enum or flags words, joined by ','.
        var choices: String
        /// The blurb shown by gst-inspect-1.0 (the spec's, plus the accepted form for text-typed ones).
        var blurb: String
    }

    /// One element kind (`vf` + the stage kind).
    struct Entry {
        var type: any Stage.Type
        var descriptor: StageDescriptor
        var caps: String
        var properties: [Property]
        /// A `ResizingStage` (reframe): the element's src caps carry the stage's output size.
        var resizes: Bool
    }

    /// Every stage of `StageRegistry`, in its order.
    static let entries: [Entry] = StageRegistry.all.map { t in
        let d = t.descriptor
        return Entry(
            type: t, descriptor: d, caps: caps(d.formats), properties: d.properties.map { property($0, kind: d.kind) },
            resizes: t is any ResizingStage.Type)
    }

    /// Raw video in `formats` (overlay formats first, as the host negotiates), any raw video for `ANY`.
    static func caps(_ formats: [String]) -> String {
        StageChain.capsText(StageChain.acceptedFormats([StageDescriptor(kind: "", blurb: "", properties: [], formats: formats)]))
    }

    /// The GObject view of one spec: booleans, integer and double ranges as such, choices as a GEnum, sets
    /// as GFlags (`a+b` in gst-launch), colours and frame lists as strings in the stage's own syntax.
    static func property(_ s: PropertySpec, kind: String) -> Property {
        let canonical = (try? s.parse(s.defaultText, stage: kind))?.description ?? s.defaultText
        let big = Double(Int64.max)
        func clamp(_ v: Double) -> Double { Swift.max(-Double.greatestFiniteMagnitude, Swift.min(Double.greatestFiniteMagnitude, v)) }
        switch s.type {
        case .bool:
            return Property(spec: s, kind: .bool, min: 0, max: 1, defaultText: canonical, choices: "", blurb: s.blurb)
        case .int(let r):
            return Property(
                spec: s, kind: .int, min: Swift.max(Double(r.lowerBound), -big), max: Swift.min(Double(r.upperBound), big),
                defaultText: canonical, choices: "", blurb: s.blurb)
        case .double(let r):
            return Property(
                spec: s, kind: .double, min: clamp(r.lowerBound), max: clamp(r.upperBound), defaultText: canonical, choices: "",
                blurb: s.blurb)
        case .choice(let c):
            return Property(spec: s, kind: .enumeration, min: 0, max: 0, defaultText: canonical, choices: c.joined(separator: ","), blurb: s.blurb)
        case .set(let c) where c.count <= 31:
            return Property(spec: s, kind: .flags, min: 0, max: 0, defaultText: canonical, choices: c.joined(separator: ","), blurb: s.blurb)
        case .string:
            return Property(spec: s, kind: .string, min: 0, max: 0, defaultText: canonical, choices: "", blurb: s.blurb)
        case .set, .color, .intList:
            return Property(
                spec: s, kind: .string, min: 0, max: 0, defaultText: canonical, choices: "",
                blurb: "\(s.blurb) (\(s.type.rangeText))")
        }
    }
}
