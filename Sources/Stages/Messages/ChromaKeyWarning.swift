import GStreamerKit

/// `viewfinder/chromakey-warning`: kept colours covering part of the frame come close to the key
/// (chromakey posts it at most once a second).
///
/// Fields, in order: `key` (string, `#rrggbb`), `closest-distance` (double, chroma units as the key's
/// `similarity`, 0.1 steps: how near the nearest subject colours come), `reach` (double: where the key's
/// soft edge ends, similarity + smoothness; a colour nearer than that is partly keyed), `share` (double,
/// 0...1 in 0.001 steps), `text` (string, the sentence for people).
public struct ChromaKeyWarning: ViewfinderMessage {
    public static let structureName = "viewfinder/chromakey-warning"

    /// The key colour as `#rrggbb`.
    public var key: String
    /// Chroma distance from the key to the nearest colours covering the frame.
    public var closestDistance: Double
    /// Where the key's soft edge ends (similarity + smoothness), same units.
    public var reach: Double
    /// Share of the frame (0...1) in colours near the key.
    public var share: Double
    /// The warning for people.
    public var text: String

    /// Creates a warning with its fields as given.
    public init(key: String, closestDistance: Double, reach: Double, share: Double, text: String) {
        self.key = key; self.closestDistance = closestDistance; self.reach = reach; self.share = share; self.text = text
    }

    /// The warning for key `key` (`#rrggbb`) whose nearest kept colours, `closestDistance` chroma units away,
    /// cover `share` of the frame: numbers rounded as posted, the sentence from the unrounded ones.
    public init(key: String, closestDistance: Double, reach: Double, share: Double) {
        let d = Int(closestDistance.rounded()), r = Int(reach.rounded()), pct = Int((share * 100).rounded())
        let verdict = closestDistance < reach ? "they are partly keyed out" : "they stay, \(d - r) units clear"
        self.init(
            key: key, closestDistance: (closestDistance * 10).rounded() / 10, reach: (reach * 10).rounded() / 10,
            share: (share * 1000).rounded() / 1000,
            text: "key colour \(key): colours covering \(pct) % of the frame lie \(d) chroma units from it (the key reaches \(r)): \(verdict)")
    }

    public var structure: MessageStructure {
        MessageStructure(
            Self.structureName,
            [
                ("key", .string(key)), ("closest-distance", .double(closestDistance)), ("reach", .double(reach)),
                ("share", .double(share)), ("text", .string(text)),
            ])
    }

    public init(structure s: MessageStructure) throws(MessageDecodingError) {
        try s.expect(Self.self)
        key = try s.required(string: "key")
        closestDistance = try s.required(double: "closest-distance")
        reach = try s.required(double: "reach")
        share = try s.required(double: "share")
        text = try s.required(string: "text")
    }
}
