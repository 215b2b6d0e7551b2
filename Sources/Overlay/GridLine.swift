/// One family of composition guide lines that `GridRenderer` can draw.
public enum GridLine: String, CaseIterable, Sendable {
    /// Rule of thirds: lines at 1/3 and 2/3 of each axis.
    case thirds
    /// Phi grid: lines at 1/φ² ≈ 0.382 and 1/φ ≈ 0.618 of each axis (alias `phi`).
    case golden
    /// A short cross at the frame centre, each bar 4% of the shorter side long.
    case crosshair
    /// Full-length vertical and horizontal centre (symmetry) lines.
    case center
    /// Both corner-to-corner diagonals.
    case diagonals
    /// Golden spiral with its eye near the top-left corner (alias `spiral`); see `GoldenSpiral`.
    case spiralTopLeft = "spiral-tl"
    /// Golden spiral with its eye near the top-right corner.
    case spiralTopRight = "spiral-tr"
    /// Golden spiral with its eye near the bottom-left corner.
    case spiralBottomLeft = "spiral-bl"
    /// Golden spiral with its eye near the bottom-right corner.
    case spiralBottomRight = "spiral-br"
    /// Draws nothing.
    case none

    /// Alternative spellings accepted by `parse` and `parseList`, mapped to their line.
    public static let aliases: [String: GridLine] = ["phi": .golden, "spiral": .spiralTopLeft, "centre": .center]

    /// The spiral this line draws, or nil when it is not a spiral.
    public var spiral: GoldenSpiral? {
        switch self {
        case .spiralTopLeft: GoldenSpiral(eyeCorner: .topLeft)
        case .spiralTopRight: GoldenSpiral(eyeCorner: .topRight)
        case .spiralBottomLeft: GoldenSpiral(eyeCorner: .bottomLeft)
        case .spiralBottomRight: GoldenSpiral(eyeCorner: .bottomRight)
        default: nil
        }
    }

    /// Parses one name or alias, case-insensitively, ignoring surrounding spaces.
    public static func parse(_ token: String) throws(GridLineParseError) -> GridLine {
        let key = token.trimmingSpaces().lowercased()
        if let line = GridLine(rawValue: key) ?? aliases[key] {
            return line
        }
        throw GridLineParseError(token: token.trimmingSpaces(), text: token)
    }

    /// Parses names joined by `+` or `,` (e.g. "thirds+diagonals", "thirds,golden"); duplicates are dropped.
    public static func parseList(_ text: String) throws(GridLineParseError) -> [GridLine] {
        var result: [GridLine] = []
        for token in text.split(separator: "+", omittingEmptySubsequences: false)
            .flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) })
        {
            let line: GridLine
            do {
                line = try parse(String(token))
            } catch {
                throw GridLineParseError(token: error.token, text: text)
            }
            if !result.contains(line) { result.append(line) }
        }
        return result
    }

    /// Every accepted spelling for the error message, aliases in parentheses.
    static var choices: String {
        allCases.map { line in
            let alias = aliases.filter { $0.value == line }.map(\.key).sorted()
            return alias.isEmpty ? line.rawValue : "\(line.rawValue) (\(alias.joined(separator: ", ")))"
        }.joined(separator: ", ")
    }
}

/// A grid-line list that `GridLine.parseList` (or `parse`) does not accept.
public struct GridLineParseError: Error, Equatable, CustomStringConvertible {
    /// The offending token (empty when the text had an empty item).
    public let token: String
    /// The whole text being parsed.
    public let text: String

    /// Creates the error for `token` found in `text`.
    public init(token: String, text: String) {
        self.token = token
        self.text = text
    }

    /// Names the bad token and lists the choices.
    public var description: String {
        let what = token.isEmpty ? "empty grid line name" : "unknown grid line '\(token)'"
        return "\(what) in '\(text)': choose from \(GridLine.choices); combine with '+' or ','"
    }
}
