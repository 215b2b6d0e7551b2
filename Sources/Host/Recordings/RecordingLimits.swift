import Stages

/// The text forms of the `recordings` element's limits: `max-age` (a duration with a unit) and `max-size` (bytes with
/// a binary suffix). Pure functions; a bad value's error reads as every property's does (`PropertySpec.parse`):
/// `recordings: bad value '20Q' for property 'max-size': expected size ...`.
///
/// `PropertyType` has no duration or size: the spec declares both as text, and these parse them. (New property
/// types would reach the plugin's GParamSpecs and the control API's typed JSON, which no stage needs.)
public enum RecordingLimits {
    /// What `max-age` takes, for its error.
    public static let durationExpected = "duration: a whole number with a unit s, m, h or d (e.g. 90m, 12h, 7d), or 0 for no limit"
    /// What `max-size` takes, for its error.
    public static let sizeExpected =
        "size: a whole number of bytes with an optional K, M, G or T suffix (powers of 1024, e.g. 500M, 20G), or 0 for no limit"

    private static let durationUnits: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    private static let sizeUnits: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]

    /// Seconds of `text` (`0`, `30s`, `90m`, `12h`, `7d`); 0 means no limit.
    public static func duration(_ text: String, property: String = "max-age", element: String = "recordings") throws(HostError) -> Int {
        let bad = HostError(.usage, "\(element): bad value '\(Echo.value(text))' for property '\(property)': expected \(durationExpected)")
        if text == "0" { return 0 }
        guard let unit = text.last, let factor = durationUnits[unit] else { throw bad }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let n = Int(digits) else { throw bad }
        let (seconds, overflow) = n.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw bad }
        return seconds
    }

    /// Bytes of `text` (`0`, `1048576`, `500M`, `20G`, `2T`; the suffix in either case); 0 means no limit.
    public static func size(_ text: String, property: String = "max-size", element: String = "recordings") throws(HostError) -> Int64 {
        let bad = HostError(.usage, "\(element): bad value '\(Echo.value(text))' for property '\(property)': expected \(sizeExpected)")
        guard let last = text.last else { throw bad }
        var digits = Substring(text)
        var factor: Int64 = 1
        if !last.isASCIIDigit {
            guard let f = sizeUnits[Character(last.uppercased())] else { throw bad }
            factor = f
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let n = Int64(digits) else { throw bad }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw bad }
        return bytes
    }

    /// `seconds` in the largest unit that divides it (`7d`, `90m`), `0` for no limit.
    public static func durationText(_ seconds: Int) -> String {
        guard seconds > 0 else { return "0" }
        for (unit, factor) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds % factor == 0 { return "\(seconds / factor)\(unit)" }
        return "\(seconds)s"
    }

    /// `bytes` with the largest suffix that divides it (`20G`, `1536K`), plain bytes otherwise, `0` for no limit.
    public static func sizeText(_ bytes: Int64) -> String {
        guard bytes > 0 else { return "0" }
        for (unit, factor) in [("T", Int64(1) << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes % factor == 0 {
            return "\(bytes / factor)\(unit)"
        }
        return "\(bytes)"
    }
}

extension Character {
    /// 0-9 only (`isNumber` also takes other scripts' digits and fractions).
    fileprivate var isASCIIDigit: Bool { self >= "0" && self <= "9" }
}
