import GStreamerKit

/// 4:2:0 into every video encoder unless the description says otherwise.
///
/// `videoconvert` hands an encoder the format closest to what it gets, and most encoders list 4:4:4 (or RGB)
/// among their inputs: a stage's RGBA/BGRA output through `videoconvert ! x264enc` becomes `High 4:4:4
/// Predictive`, yuv444p, which browsers' MSE, phones, NVRs and hardware decoders refuse (`videotestsrc !
/// x264enc` does the same: x264enc lists Y444 first). So before planning, a caps filter naming one 8-bit 4:2:0
/// format the encoder takes (I420, else NV12, YV12, NV21) is put right before each video encoder (klass
/// `.../Encoder/Video/...`) whose sink template offers both 4:2:0 and other formats.
///
/// Left alone: an encoder whose input format is written (a caps node or `capsfilter caps=` with `format=`
/// between the encoder and the nearest element upstream that is not a queue, converter, scaler, rate changer or
/// caps filter), encoders that take only 4:2:0 (vp8enc, openh264enc), image encoders (jpegenc, pngenc) and
/// encoders inside bins `( ... )`. The filter is visible in `--print-expanded`.
///
/// Threads and locks: none; pure but for registry look-ups, called on the building thread.
enum EncoderInput {
    /// The 8-bit 4:2:0 formats, in the order one is chosen.
    static let formats420 = ["I420", "NV12", "YV12", "NV21"]
    /// Elements a walk upstream from an encoder passes over to find a written format.
    static let passThrough: Set<String> = [
        "queue", "queue2", "videoconvert", "videoscale", "videoconvertscale", "videorate", "capsfilter", "identity", "valve",
        "autovideoconvert", "videoflip",
    ]

    /// The description with a 4:2:0 caps filter before every encoder that needs one.
    static func constrained(_ parsed: ParsedDescription) -> ParsedDescription {
        var out = parsed
        var cache: [String: String?] = [:]
        for c in out.chains.indices {
            var n = 0
            while n < out.chains[c].nodes.count {
                defer { n += 1 }
                guard case .element(let factory, _, _) = out.chains[c].nodes[n], n > 0 else { continue }
                let format: String?
                if let known = cache[factory] { format = known } else {
                    format = ElementFactoryInfo(factory).flatMap(format420)
                    cache[factory] = format
                }
                guard let format, !formatWritten(before: n, in: out.chains[c].nodes) else { continue }
                // gst-launch reads no caps right after caps: a raw-video caps node before the encoder gets the format
                // added; after other caps, a capsfilter element goes in.
                let caps = "video/x-raw,format=\(format)"
                switch out.chains[c].nodes[n - 1] {
                case .caps(let written, let offset) where written.hasPrefix("video/x-raw,") && !written.contains(";") || written == "video/x-raw":
                    out.chains[c].nodes[n - 1] = .caps(written + ",format=\(format)", offset: offset)
                case .caps:
                    out.chains[c].nodes.insert(.element(factory: "capsfilter", properties: [PropertyAssignment(key: "caps", value: caps)], offset: -1), at: n)
                    n += 1
                default:
                    out.chains[c].nodes.insert(.caps(caps, offset: -1), at: n)
                    n += 1
                }
            }
        }
        return out
    }

    /// The 4:2:0 format to give a video encoder whose template also takes others; nil when it needs none.
    static func format420(_ info: ElementFactoryInfo) -> String? {
        guard info.isVideoEncoder, let template = info.sinkTemplate.flatMap({ try? Caps($0) }) else { return nil }
        let raw = (try? Caps("video/x-raw")).map { template.intersect($0) }
        guard let raw, !raw.isEmpty else { return nil }
        let taken = formats420.filter { f in (try? Caps("video/x-raw,format=\(f)")).map { !raw.intersect($0).isEmpty } ?? false }
        guard let first = taken.first else { return nil }
        // Only 4:2:0 in the template: nothing to constrain.
        guard let only420 = try? Caps("video/x-raw,format={ \(formats420.joined(separator: ", ")) }"), !raw.isSubset(of: only420) else {
            return nil
        }
        return first
    }

    /// True when a format is written for the input of the node at `index`: in a caps node (or a `capsfilter
    /// caps=`) reached walking upstream over queues, converters and caps filters.
    static func formatWritten(before index: Int, in nodes: [DescriptionNode]) -> Bool {
        var i = index - 1
        while i >= 0 {
            switch nodes[i] {
            case .caps(let caps, _):
                if namesFormat(caps) { return true }
            case .element(let factory, let properties, _):
                guard passThrough.contains(factory) else { return false }
                if factory == "capsfilter", let caps = properties.last(where: { $0.key == "caps" })?.value, namesFormat(caps) {
                    return true
                }
            case .reference, .bin:
                return false
            }
            i -= 1
        }
        return false
    }

    /// True for raw-video caps text with a `format` field.
    static func namesFormat(_ caps: String) -> Bool {
        guard caps.hasPrefix("video/x-raw") else { return false }
        let compact = caps.filter { !$0.isWhitespace }
        return compact.contains(",format=")
    }
}
