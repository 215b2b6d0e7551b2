/// A straight (not premultiplied) colour with components in 0...1.
public struct RGBAColor: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Red, 0...1.
    public var red: Double
    /// Green, 0...1.
    public var green: Double
    /// Blue, 0...1.
    public var blue: Double
    /// Opacity, 0 (transparent) ... 1 (opaque).
    public var alpha: Double

    /// A colour from components in 0...1; values outside are clamped.
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = RGBAColor.clamp(red)
        self.green = RGBAColor.clamp(green)
        self.blue = RGBAColor.clamp(blue)
        self.alpha = RGBAColor.clamp(alpha)
    }

    /// A colour from 8-bit components.
    public init(red8: UInt8, green8: UInt8, blue8: UInt8, alpha8: UInt8 = 255) {
        self.init(
            red: Double(red8) / 255, green: Double(green8) / 255,
            blue: Double(blue8) / 255, alpha: Double(alpha8) / 255)
    }

    /// The same colour with a different alpha.
    public func withAlpha(_ alpha: Double) -> RGBAColor {
        RGBAColor(red: red, green: green, blue: blue, alpha: alpha)
    }

    /// Opaque white.
    public static let white = RGBAColor(red: 1, green: 1, blue: 1)
    /// Opaque black.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    /// Opaque red.
    public static let red = RGBAColor(red: 1, green: 0, blue: 0)
    /// Opaque green (#00ff00).
    public static let green = RGBAColor(red: 0, green: 1, blue: 0)
    /// Opaque blue.
    public static let blue = RGBAColor(red: 0, green: 0, blue: 1)
    /// Opaque yellow.
    public static let yellow = RGBAColor(red: 1, green: 1, blue: 0)
    /// Opaque cyan.
    public static let cyan = RGBAColor(red: 0, green: 1, blue: 1)
    /// Opaque magenta.
    public static let magenta = RGBAColor(red: 1, green: 0, blue: 1)
    /// Fully transparent black.
    public static let transparent = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Colour names accepted by `parse`, in the order they are listed in errors.
    public static let names: [(name: String, color: RGBAColor)] = [
        ("white", .white), ("black", .black), ("red", .red), ("green", .green), ("blue", .blue),
        ("yellow", .yellow), ("cyan", .cyan), ("magenta", .magenta), ("transparent", .transparent),
    ]

    /// Parses `#rrggbb`, `#rrggbbaa`, `#rgb` or a colour name (case-insensitive, surrounding spaces ignored).
    public static func parse(_ text: String) throws(ColorParseError) -> RGBAColor {
        let trimmed = text.trimmingSpaces().lowercased()
        if let named = names.first(where: { $0.name == trimmed }) {
            return named.color
        }
        guard trimmed.first == "#" else { throw ColorParseError(text: text) }
        let digits = Array(trimmed.dropFirst())
        var values: [UInt8] = []
        for d in digits {
            guard let v = d.hexDigitValue else { throw ColorParseError(text: text) }
            values.append(UInt8(v))
        }
        switch values.count {
        case 3:
            return RGBAColor(red8: values[0] * 17, green8: values[1] * 17, blue8: values[2] * 17)
        case 6, 8:
            var bytes: [UInt8] = []
            var i = 0
            while i < values.count {
                bytes.append(values[i] << 4 | values[i + 1])
                i += 2
            }
            return RGBAColor(
                red8: bytes[0], green8: bytes[1], blue8: bytes[2],
                alpha8: bytes.count == 4 ? bytes[3] : 255)
        default:
            throw ColorParseError(text: text)
        }
    }

    /// The colour as lowercase `#rrggbbaa`.
    public var hex: String {
        "#"
            + [red, green, blue, alpha].map { component in
                let byte = Int((component * 255).rounded())
                let s = String(byte, radix: 16)
                return s.count == 1 ? "0" + s : s
            }.joined()
    }

    /// Same as `hex`.
    public var description: String { hex }

    private static func clamp(_ v: Double) -> Double {
        v.isNaN ? 0 : min(1, max(0, v))
    }
}

/// A colour string that `RGBAColor.parse` does not accept.
public struct ColorParseError: Error, Equatable, CustomStringConvertible {
    /// The text that failed to parse.
    public let text: String

    /// Creates the error for `text`.
    public init(text: String) { self.text = text }

    /// Names the bad text and every accepted form.
    public var description: String {
        "invalid colour '\(text)': expected #rrggbb, #rrggbbaa, #rgb or one of "
            + RGBAColor.names.map(\.name).joined(separator: ", ")
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
