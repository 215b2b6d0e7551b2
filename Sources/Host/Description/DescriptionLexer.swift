// Tokenises gst-launch descriptions the way GStreamer's flex lexer (gst/parse/parse.l) does, so text
// that gst_parse_launch accepts lexes the same here:
//
// - identifiers `[A-Za-z0-9_][A-Za-z0-9_%:-]*` name element factories;
// - `key=value` with optional whitespace around `=`; the value is the longer of a run of non-space
//   characters (a backslash also takes the next character, so `a\ b` is one value) and a quoted string
//   (`"..."` or `'...'`, where `\"` / `\'` do not close it);
// - `!` links; when the text after `!` starts with a media type (`video/x-raw`) the caps run to the next
//   unescaped `!` (spaces, commas, `;`, `(memory:NVMM)` included) and the whole `! caps !` is one link;
// - `name.` / `name.pad` (optionally `,pad2`) are references, `(` or `name.(` open a bin, `)` closes it;
// - `proto://...` is a URI element.
//
// Deliberately stricter than GStreamer where it would silently build something odd: an unterminated
// quote, a `key=` with no value, `:` (link all pads), `.pad` after an element, `@preset` and stray
// characters are errors that name the token.

/// What one token of a gst-launch description is.
enum DescriptionTokenKind: Equatable, Sendable {
    /// An element factory name such as `videotestsrc`.
    case element(String)
    /// A URI used as an element (`file:///a.mp4`).
    case url(String)
    /// `key=value` following an element or a bin opener.
    case assignment(PropertyAssignment)
    /// `name.` or `name.pad` (`pad` may be a comma-separated list as written).
    case reference(name: String, pad: String?)
    /// `(` (factory nil) or `factory.(`.
    case binOpen(factory: String?)
    /// `)`.
    case binClose
    /// `!`, or `! caps !` with the caps text.
    case link(caps: String?)
}

/// One token with its source span (character offsets).
struct DescriptionToken: Equatable, Sendable {
    var kind: DescriptionTokenKind
    /// The token's text as written.
    var text: String
    /// Offset of the token's first character.
    var offset: Int
    /// Offset one past the token's last character.
    var end: Int
    /// Offset of the caps text inside a `! caps !` link (else `offset`).
    var capsOffset: Int
}

/// Splits a gst-launch description into tokens.
struct DescriptionLexer {
    private let chars: [Character]

    private init(_ text: String) {
        chars = Array(text)
    }

    /// Tokenises `text`, or throws naming the first token GStreamer's grammar would not accept.
    static func tokenize(_ text: String) throws(DescriptionError) -> [DescriptionToken] {
        try DescriptionLexer(text).run()
    }

    private func run() throws(DescriptionError) -> [DescriptionToken] {
        var tokens: [DescriptionToken] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if Self.isSpace(c) {
                i += 1
                continue
            }
            // gst_parse_launchv escapes every space of an argument as `\ `; between tokens that is
            // plain whitespace (so `launch 'a ! b'` and `launch a ! b` read the same).
            if c == "\\", i + 1 < chars.count, Self.isSpace(chars[i + 1]) {
                i += 2
                continue
            }
            let token: DescriptionToken
            switch c {
            case "!":
                token = try lexLink(at: i)
            case "(":
                token = DescriptionToken(kind: .binOpen(factory: nil), text: "(", offset: i, end: i + 1, capsOffset: i)
            case ")":
                token = DescriptionToken(kind: .binClose, text: ")", offset: i, end: i + 1, capsOffset: i)
            case ":":
                throw DescriptionError(
                    message: "unsupported ':' (link all pads) at offset \(i): expected '!' between elements",
                    token: ":", offset: i)
            case ".":
                let word = String(chars[i..<wordEnd(from: i)])
                throw DescriptionError(
                    message: "unsupported pad reference '\(word)' after an element: give the element a name= "
                        + "and link 'name\(word)' instead",
                    token: word, offset: i)
            case "\"", "'":
                let word = String(chars[i..<wordEnd(from: i)])
                throw DescriptionError(
                    message: "unexpected quote in '\(word)': quotes are only allowed in property values, "
                        + "as in location=\"a b.mp4\"",
                    token: word, offset: i)
            default:
                guard Self.isIdentifierStart(c) else {
                    let word = String(chars[i..<wordEnd(from: i)])
                    throw DescriptionError(
                        message: "unexpected '\(word)': expected an element, '!', '(' or a reference 'name.'",
                        token: word, offset: i)
                }
                token = try lexWord(at: i)
            }
            tokens.append(token)
            i = token.end
        }
        return tokens
    }

    // MARK: links and caps

    private func lexLink(at start: Int) throws(DescriptionError) -> DescriptionToken {
        var k = start + 1
        while k < chars.count, Self.isSpace(chars[k]) { k += 1 }
        guard isMediaType(at: k) else {
            return DescriptionToken(kind: .link(caps: nil), text: "!", offset: start, end: start + 1, capsOffset: start)
        }
        var m = k
        while m < chars.count {
            if chars[m] == "\\", m + 1 < chars.count {
                m += 2
                continue
            }
            if chars[m] == "!" { break }
            m += 1
        }
        var capsEnd = min(m, chars.count)
        while capsEnd > k, Self.isSpace(chars[capsEnd - 1]) { capsEnd -= 1 }
        let caps = String(chars[k..<capsEnd])
        guard m < chars.count else {
            throw DescriptionError(
                message: "caps '\(caps)' are not followed by '!': a caps filter goes between two elements, "
                    + "as in 'videotestsrc ! video/x-raw,width=640 ! autovideosink'",
                token: caps, offset: k)
        }
        return DescriptionToken(
            kind: .link(caps: caps), text: String(chars[start...m]), offset: start, end: m + 1, capsOffset: k)
    }

    /// `[A-Za-z0-9-]+/[A-Za-z0-9-]+` at `p`.
    private func isMediaType(at p: Int) -> Bool {
        var q = p
        while q < chars.count, Self.isMediaChar(chars[q]) { q += 1 }
        guard q > p, q < chars.count, chars[q] == "/" else { return false }
        return q + 1 < chars.count && Self.isMediaChar(chars[q + 1])
    }

    // MARK: words: elements, URIs, assignments, references, bin openers

    private func lexWord(at start: Int) throws(DescriptionError) -> DescriptionToken {
        if let url = lexURL(at: start) {
            // As for values (lexAssignment): a trailing backslash would swallow what follows when rendered.
            guard !url.text.hasSuffix("\\") else {
                throw DescriptionError(
                    message: "URI '\(url.text)' ends with a backslash: expected a character after '\\' "
                        + "(a backslash escapes the next character, as in 'a\\ b')",
                    token: url.text, offset: start)
            }
            return url
        }

        var p = start + 1
        while p < chars.count, Self.isIdentifierChar(chars[p]) { p += 1 }
        let name = String(chars[start..<p])

        var q = p
        while q < chars.count, Self.isSpace(chars[q]) { q += 1 }

        if q < chars.count, chars[q] == "=" {
            return try lexAssignment(key: name, start: start, equals: q)
        }
        if q < chars.count, chars[q] == "." {
            var s = q + 1
            while s < chars.count, Self.isSpace(chars[s]) { s += 1 }
            if s < chars.count, chars[s] == "(" {
                return DescriptionToken(
                    kind: .binOpen(factory: name), text: String(chars[start...s]), offset: start, end: s + 1,
                    capsOffset: start)
            }
            if q == p { return lexReference(name: name, start: start, dot: p) }
        }
        return DescriptionToken(kind: .element(name), text: name, offset: start, end: p, capsOffset: start)
    }

    /// `proto://rest` where proto is `[A-Za-z][A-Za-z0-9+.-]*`.
    private func lexURL(at start: Int) -> DescriptionToken? {
        guard Self.isASCIILetter(chars[start]) else { return nil }
        var p = start + 1
        while p < chars.count, Self.isASCIILetter(chars[p]) || Self.isASCIIDigit(chars[p]) || "+-.".contains(chars[p]) {
            p += 1
        }
        guard p + 2 < chars.count, chars[p] == ":", chars[p + 1] == "/", chars[p + 2] == "/" else { return nil }
        let end = characterRunEnd(from: p + 3)
        let text = String(chars[start..<end])
        return DescriptionToken(kind: .url(text), text: text, offset: start, end: end, capsOffset: start)
    }

    private func lexReference(name: String, start: Int, dot: Int) -> DescriptionToken {
        var p = dot + 1
        while p < chars.count, Self.isIdentifierChar(chars[p]) { p += 1 }
        var pad: String? = p > dot + 1 ? String(chars[(dot + 1)..<p]) : nil
        var end = p
        // `name.pad1,pad2`: more pads, as GStreamer's grammar allows (spaces around ',' too).
        if pad != nil {
            while true {
                var c = end
                while c < chars.count, Self.isSpace(chars[c]) { c += 1 }
                guard c < chars.count, chars[c] == "," else { break }
                var d = c + 1
                while d < chars.count, Self.isSpace(chars[d]) { d += 1 }
                guard d < chars.count, Self.isIdentifierStart(chars[d]) else { break }
                var e = d + 1
                while e < chars.count, Self.isIdentifierChar(chars[e]) { e += 1 }
                pad! += "," + String(chars[d..<e])
                end = e
            }
        }
        return DescriptionToken(
            kind: .reference(name: name, pad: pad), text: String(chars[start..<end]), offset: start, end: end,
            capsOffset: start)
    }

    private func lexAssignment(key: String, start: Int, equals: Int) throws(DescriptionError) -> DescriptionToken {
        var v = equals + 1
        while v < chars.count, Self.isSpace(chars[v]) { v += 1 }
        let written = String(chars[start...equals])
        guard v < chars.count else {
            throw DescriptionError(
                message: "property '\(key)' has no value: expected a value after '\(key)='", token: written,
                offset: start)
        }
        let end = try valueEnd(from: v, key: key, start: start)
        let raw = String(chars[v..<end])
        // A value ends in a backslash only before a line break or at the end of the text. GStreamer
        // keeps it, but written back with a space after it (render(), a segment) the backslash escapes
        // that space and the value swallows the next word (found by launch/fuzz).
        if raw.hasSuffix("\\") {
            let written = String(chars[start..<end])
            throw DescriptionError(
                message: "property '\(key)' ends with a backslash in '\(written)': expected a character after '\\' "
                    + "(a backslash escapes the next character, as in 'a\\ b'); quote the value instead",
                token: written, offset: start)
        }
        if raw == "!" {
            throw DescriptionError(
                message: "property '\(key)' has no value: expected a value after '\(key)=', found '!'",
                token: String(chars[start..<end]), offset: start)
        }
        let assignment = PropertyAssignment(key: key, value: PropertyAssignment.unescape(raw), text: key + "=" + raw)
        return DescriptionToken(
            kind: .assignment(assignment), text: String(chars[start..<end]), offset: start, end: end,
            capsOffset: start)
    }

    /// End of a property value starting at `v`: the longer of a character run and a quoted string.
    private func valueEnd(from v: Int, key: String, start: Int) throws(DescriptionError) -> Int {
        let runEnd = characterRunEnd(from: v)
        let quote = chars[v]
        guard quote == "\"" || quote == "'" else { return runEnd }
        var closing: Int?
        var lastEscapedQuote: Int?
        var k = v + 1
        while k < chars.count {
            if chars[k] == quote {
                if chars[k - 1] != "\\" {
                    closing = k
                    break
                }
                lastEscapedQuote = k
            }
            k += 1
        }
        guard let close = closing ?? lastEscapedQuote else {
            let written = String(chars[start..<runEnd])
            throw DescriptionError(
                message: "unterminated quote in '\(written)': expected a closing \(quote) in the value of '\(key)'",
                token: written, offset: start)
        }
        return max(runEnd, close + 1)
    }

    /// End of a run of non-space characters from `p`; a backslash also takes a following space or tab.
    private func characterRunEnd(from p: Int) -> Int {
        var m = p
        while m < chars.count {
            let c = chars[m]
            if !Self.isSpace(c) {
                m += 1
            } else if m > p, chars[m - 1] == "\\", !Self.isNewline(c) {
                m += 1
            } else {
                break
            }
        }
        return m
    }

    /// End of the word starting at `p`, for quoting it in an error.
    private func wordEnd(from p: Int) -> Int {
        var m = p + 1
        while m < chars.count, !Self.isSpace(chars[m]), chars[m] != "!" { m += 1 }
        return m
    }

    // MARK: character classes (ASCII, as flex's [[:alnum:]] in the C locale)

    static func isSpace(_ c: Character) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n" || c == "\u{0B}" || c == "\u{0C}"
    }

    static func isNewline(_ c: Character) -> Bool {
        c == "\n" || c == "\r" || c == "\r\n"
    }

    static func isASCIILetter(_ c: Character) -> Bool {
        guard let a = c.asciiValue else { return false }
        return (a >= 65 && a <= 90) || (a >= 97 && a <= 122)
    }

    static func isASCIIDigit(_ c: Character) -> Bool {
        guard let a = c.asciiValue else { return false }
        return a >= 48 && a <= 57
    }

    static func isIdentifierStart(_ c: Character) -> Bool {
        isASCIILetter(c) || isASCIIDigit(c) || c == "_"
    }

    static func isIdentifierChar(_ c: Character) -> Bool {
        isIdentifierStart(c) || c == "-" || c == "%" || c == ":"
    }

    static func isMediaChar(_ c: Character) -> Bool {
        isASCIILetter(c) || isASCIIDigit(c) || c == "-"
    }
}
