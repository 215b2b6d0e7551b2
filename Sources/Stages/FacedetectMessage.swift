import FrameAnalysis

/// A `facedetect` element message (gstreamer1.0-opencv) read back from its structure text:
/// `facedetect, timestamp=(guint64)N, ..., faces=(structure){ "face\, x\=\(uint\)72\, ..." }`.
public struct FacedetectMessage: Sendable, Equatable {
    /// The buffer timestamp the faces belong to (ns).
    public var timestamp: UInt64
    /// Face boxes in facedetect's input pixels.
    public var faces: [Box]

    /// Parses the structure text; nil when it is not a facedetect message.
    public static func parse(_ text: String) -> FacedetectMessage? {
        guard text.hasPrefix("facedetect,") || text.hasPrefix("facedetect "),
            let ts = number(after: "timestamp=(guint64)", in: text)
        else { return nil }
        var faces: [Box] = []
        // Each face is an escaped structure inside the list: unescape, then read its four fields.
        let unescaped = text.replacingOccurrences(of: "\\", with: "")
        var rest = Substring(unescaped)
        while let r = rest.range(of: "face, ") {
            rest = rest[r.upperBound...]
            let end = rest.range(of: ";")?.lowerBound ?? rest.endIndex
            let item = String(rest[..<end])
            if let x = number(after: "x=(uint)", in: item), let y = number(after: "y=(uint)", in: item),
                let w = number(after: "width=(uint)", in: item), let h = number(after: "height=(uint)", in: item)
            {
                faces.append(Box(x: Double(x), y: Double(y), width: Double(w), height: Double(h)))
            }
            rest = rest[end...]
        }
        return FacedetectMessage(timestamp: ts, faces: faces)
    }

    static func number(after key: String, in text: String) -> UInt64? {
        guard let r = text.range(of: key) else { return nil }
        return UInt64(text[r.upperBound...].prefix { $0.isNumber })
    }
}
