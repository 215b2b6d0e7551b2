/// Renders a stage descriptor the way gst-inspect-1.0 renders an element.
public enum StageInspector {
    /// Full text: summary, formats, outputs, then every property with type, range, default, mutability.
    public static func text(for d: StageDescriptor) -> String {
        var s = "Stage Details:\n  Name\t\t\t\(d.kind)\n  Description\t\t\(d.blurb)\n\n"
        s += "Input/Output formats (raw video):\n  \(d.formats.joined(separator: ", "))\n\n"
        s += "Outputs:\n  src: the processed frames (linked by '!')\n"
        for o in d.outputs { s += "  \(o.name): \(o.blurb) (link as NAME.\(o.name))\n" }
        s += "\nStage Properties:\n"
        if d.properties.isEmpty { s += "  none\n" }
        for p in d.properties {
            s += "\n  \(p.name.padding(toLength: 20, withPad: " ", startingAt: 0)): \(p.blurb)\n"
            s += "                        flags: changeable \(p.mutability.rawValue)\n"
            s += "                        \(p.type.name). Range: \(p.type.rangeText) Default: \"\(p.defaultText)\"\n"
        }
        return s
    }
}
