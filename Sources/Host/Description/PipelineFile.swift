/// Reads `.pipeline` files: a gst-launch description spread over lines, with `#` comments.
public enum PipelineFile {
    /// Turns a .pipeline file's text into a description: `#` comments to end of line (outside quotes) removed, backslash-newline continuations and newlines become spaces. Empty result -> DescriptionError.
    ///
    /// A `#` starts a comment at the start of a line or after whitespace, as in a shell, so a value such
    /// as `location=shot#1.jpg` keeps its `#`; `\#` is never a comment. Quotes may span lines.
    public static func description(fromFileText text: String) throws(DescriptionError) -> String {
        let chars = Array(text)
        var out = ""
        var quote: Character?
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\\", i + 1 < chars.count {
                let next = chars[i + 1]
                if DescriptionLexer.isNewline(next) {
                    out.append(" ")  // continuation
                } else {
                    out.append(c)
                    out.append(next)
                }
                i += 2
                continue
            }
            if let open = quote {
                if c == open { quote = nil }
                out.append(DescriptionLexer.isNewline(c) ? " " : c)
                i += 1
                continue
            }
            if c == "\"" || c == "'" {
                quote = c
                out.append(c)
                i += 1
                continue
            }
            if c == "#", i == 0 || DescriptionLexer.isSpace(chars[i - 1]) {
                while i < chars.count, !DescriptionLexer.isNewline(chars[i]) { i += 1 }
                continue
            }
            out.append(DescriptionLexer.isNewline(c) ? " " : c)
            i += 1
        }
        let trimmed = trimSpaces(out)
        guard !trimmed.isEmpty else {
            throw DescriptionError(
                message: "pipeline file has no description: expected a gst-launch description after the comments, "
                    + "e.g. 'videotestsrc ! autovideosink'",
                token: "", offset: -1)
        }
        return trimmed
    }

    private static func trimSpaces(_ s: String) -> String {
        var chars = Substring(s)
        while let first = chars.first, DescriptionLexer.isSpace(first) { chars = chars.dropFirst() }
        while let last = chars.last, DescriptionLexer.isSpace(last) { chars = chars.dropLast() }
        return String(chars)
    }
}
