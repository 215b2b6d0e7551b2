import GStreamerKit

/// `viewfinder/chromakey-warning`: the key colour is close to colours covering part of the frame
/// (chromakey posts it at most once a second).
///
/// Fields, in order: `key` (string, `#rrggbb`), `closest-hue-degrees` (double, 0.1 degree steps),
/// `share` (double, 0...1 in 0.001 steps), `text` (string, the sentence for people).
public struct ChromaKeyWarning: ViewfinderMessage {
    public static let structureName = "viewfinder/chromakey-warning"

    /// The key colour as `#rrggbb`.
    public var key: String
    /// Hue distance in degrees from the key to the nearest colour covering the frame.
    public var closestHueDegrees: Double
    /// Share of the frame (0...1) in colours that near the key.
    public var share: Double
    /// The warning for people.
    public var text: String

    /// Creates a warning with its fields as given.
    public init(key: String, closestHueDegrees: Double, share: Double, text: String) {
        self.key = key; self.closestHueDegrees = closestHueDegrees; self.share = share; self.text = text
    }

    /// The warning for key `key` (`#rrggbb`) whose nearest colour is `closestHue` degrees away and
    /// covers `share` of the frame: numbers rounded as posted, the sentence from the unrounded ones.
    public init(key: String, closestHue: Double, share: Double) {
        self.init(
            key: key, closestHueDegrees: (closestHue * 10).rounded() / 10, share: (share * 1000).rounded() / 1000,
            text:
                "key colour \(key) is within \(Int(closestHue.rounded())) degrees of hue of colours covering \(Int((share * 100).rounded())) % of the frame: they may be keyed out too"
        )
    }

    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("key", .string(key)), ("closest-hue-degrees", .double(closestHueDegrees)), ("share", .double(share)),
                ("text", .string(text)),
            ])
    }

    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        key = try s.required(string: "key")
        closestHueDegrees = try s.required(double: "closest-hue-degrees")
        share = try s.required(double: "share")
        text = try s.required(string: "text")
    }
}
