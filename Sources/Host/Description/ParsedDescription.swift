/// One node of a chain: an element (or stage), a caps filter, a reference to a named element, or a bin.
public enum DescriptionNode: Equatable, Sendable {
    /// An element or stage by factory name with its properties; a URI element has the URI as factory.
    case element(factory: String, properties: [PropertyAssignment], offset: Int)
    /// A caps filter between two `!`, verbatim, e.g. `video/x-raw,width=1280,height=720`.
    case caps(String, offset: Int)
    /// `t.` is `("t", nil)`, `t.src_%u` is `("t", "src_%u")`, `s.snapshot` is `("s", "snapshot")`.
    case reference(name: String, pad: String?, offset: Int)
    /// A bin, `( ... )` or `factory.( ... )`, kept verbatim.
    case bin(text: String, offset: Int)
}

extension DescriptionNode {
    /// The node as gst-launch text.
    public var text: String {
        switch self {
        case .element(let factory, let properties, _):
            return ([factory] + properties.map(\.text)).joined(separator: " ")
        case .caps(let caps, _):
            return caps
        case .reference(let name, let pad, _):
            return name + "." + (pad ?? "")
        case .bin(let text, _):
            return text
        }
    }

    /// The character offset of the node in the description it was parsed from, or -1 if generated.
    public var offset: Int {
        switch self {
        case .element(_, _, let offset), .caps(_, let offset), .reference(_, _, let offset), .bin(_, let offset):
            return offset
        }
    }

    /// The value of this element's `name=` property, if it is an element that has one.
    public var explicitName: String? {
        guard case .element(_, let properties, _) = self else { return nil }
        return properties.last { $0.key == "name" }?.value
    }
}

/// Nodes linked one to the next by `!`.
public struct DescriptionChain: Equatable, Sendable {
    /// The nodes in link order.
    public var nodes: [DescriptionNode]

    /// Creates a chain from its nodes.
    public init(nodes: [DescriptionNode]) {
        self.nodes = nodes
    }

    /// The chain as gst-launch text: nodes joined by ` ! `.
    ///
    /// gst-launch only reads caps between two `!`; a caps node that starts or ends a chain (possible only
    /// in chains built by hand) is written as `capsfilter caps="..."` so it cannot swallow what follows.
    public func render() -> String {
        nodes.enumerated().map { index, node in
            if case .caps(let caps, _) = node, index == 0 || index == nodes.count - 1 {
                return "capsfilter caps=" + PropertyAssignment.quoted(caps)
            }
            return node.text
        }.joined(separator: " ! ")
    }
}

/// A gst-launch description parsed into chains, as gst_parse_launch reads it.
public struct ParsedDescription: Equatable, Sendable {
    /// The chains; whitespace without `!` between two nodes starts a new chain, as in gst-launch.
    public var chains: [DescriptionChain]

    /// Creates a description from chains.
    public init(chains: [DescriptionChain]) {
        self.chains = chains
    }

    /// Parses a gst-launch description, or throws naming the first token that does not fit.
    public static func parse(_ text: String) throws(DescriptionError) -> ParsedDescription {
        let tokens = try DescriptionLexer.tokenize(text)
        var parser = DescriptionParser(tokens: tokens, source: Array(text))
        let chains = try parser.parseTop()
        return ParsedDescription(chains: chains)
    }

    /// Joins command-line arguments into one description like gst_parse_launchv: in an argument that
    /// is one `key=value` assignment, spaces outside double quotes become `\\ ` so the value stays
    /// whole (`location=a b.mp4`); an argument that is itself a piece of description
    /// (`'videotestsrc ! fakesink'`, how most people quote) is kept as written.
    public static func joinArguments(_ argv: [String]) -> String {
        argv.map { argument in
            guard isSingleAssignment(argument) else { return argument }
            var out = ""
            var inQuotes = false
            var previous: Character?
            for c in argument {
                if c == "\"" && (!inQuotes || previous != "\\") { inQuotes.toggle() }
                if c == " " && !inQuotes { out.append("\\") }
                out.append(c)
                previous = c
            }
            return out
        }.joined(separator: " ")
    }

    /// `key=value...` with an identifier key and no link operator outside quotes.
    static func isSingleAssignment(_ argument: String) -> Bool {
        guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex else { return false }
        let key = argument[..<eq]
        guard key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ":" }) else { return false }
        var inQuotes = false
        for c in argument[eq...] {
            if c == "\"" { inQuotes.toggle() }
            if c == "!" && !inQuotes { return false }
        }
        return true
    }

    /// The description as gst-launch text: chains joined by spaces. Parsing it gives the same chains.
    public func render() -> String {
        chains.map { $0.render() }.joined(separator: " ")
    }
}

/// The contents of a bin node: its factory, its own properties and its chains.
struct BinContents: Equatable, Sendable {
    /// `bin` for `( ... )`, else the factory before `.(`.
    var factory: String
    /// Properties written right after the opener, e.g. `name=b` in `( name=b queue )`.
    var properties: [PropertyAssignment]
    /// The chains inside.
    var chains: [DescriptionChain]

    /// Parses the text of a `.bin` node (`( ... )` or `factory.( ... )`).
    static func parse(_ text: String) throws(DescriptionError) -> BinContents {
        let tokens = try DescriptionLexer.tokenize(text)
        var parser = DescriptionParser(tokens: tokens, source: Array(text))
        return try parser.parseSingleBin()
    }
}

/// Recursive-descent parser over lexer tokens, following GStreamer's grammar.y: a chain list is a
/// sequence of chains; a chain is nodes joined by links; references may only start or end a chain.
struct DescriptionParser {
    private let tokens: [DescriptionToken]
    private let source: [Character]
    private var position = 0

    init(tokens: [DescriptionToken], source: [Character]) {
        self.tokens = tokens
        self.source = source
    }

    mutating func parseTop() throws(DescriptionError) -> [DescriptionChain] {
        let chains = try parseChainList(closer: nil)
        guard !chains.isEmpty else {
            throw DescriptionError(
                message: "empty description: expected at least one element, e.g. 'videotestsrc ! autovideosink'",
                token: "", offset: 0)
        }
        return chains
    }

    mutating func parseSingleBin() throws(DescriptionError) -> BinContents {
        guard position < tokens.count, case .binOpen(let factory) = tokens[position].kind else {
            throw DescriptionError(
                message: "expected a bin '( ... )'", token: tokens.first?.text ?? "", offset: 0)
        }
        let (contents, _) = try parseBin(factory: factory)
        if position < tokens.count {
            let token = tokens[position]
            throw DescriptionError(
                message: "unexpected '\(token.text)' after the bin: expected nothing", token: token.text,
                offset: token.offset)
        }
        return contents
    }

    /// Parses `opener assignments chains ')'` with `position` at the opener; returns contents and the node.
    private mutating func parseBin(factory: String?) throws(DescriptionError) -> (BinContents, DescriptionNode) {
        let opener = tokens[position]
        position += 1
        var properties: [PropertyAssignment] = []
        while position < tokens.count, case .assignment(let assignment) = tokens[position].kind {
            properties.append(assignment)
            position += 1
        }
        let chains = try parseChainList(closer: opener)
        let closer = tokens[position]  // parseChainList guarantees a ')' here
        position += 1
        let text = String(source[opener.offset..<closer.end])
        guard !chains.isEmpty else {
            throw DescriptionError(
                message: "empty bin '\(text)': expected elements inside", token: text, offset: opener.offset)
        }
        let contents = BinContents(factory: factory ?? "bin", properties: properties, chains: chains)
        return (contents, .bin(text: text, offset: opener.offset))
    }

    /// Parses chains until the end (closer nil) or until the `)` matching `closer`, left at `position`.
    private mutating func parseChainList(closer: DescriptionToken?) throws(DescriptionError) -> [DescriptionChain] {
        var chains: [DescriptionChain] = []
        var current: [DescriptionNode] = []
        var pendingLink: DescriptionToken?  // a '!' that still needs a node after it

        func finishChain() throws(DescriptionError) {
            guard !current.isEmpty else { return }
            if current.count == 1, case .reference(let name, let pad, let offset) = current[0] {
                let text = name + "." + (pad ?? "")
                throw DescriptionError(
                    message: "reference '\(text)' is not linked: expected '\(text) ! element' or "
                        + "'element ! \(text)'",
                    token: text, offset: offset)
            }
            chains.append(DescriptionChain(nodes: current))
            current = []
        }

        while position < tokens.count {
            let token = tokens[position]
            switch token.kind {
            case .binClose:
                guard closer != nil else {
                    throw DescriptionError(
                        message: "unexpected ')': no bin '(' is open", token: ")", offset: token.offset)
                }
                if let link = pendingLink {
                    throw DescriptionError(
                        message: "unexpected ')' after '\(link.text)': expected an element after '!'",
                        token: ")", offset: token.offset)
                }
                try finishChain()
                return chains

            case .link(let caps):
                if pendingLink != nil || current.isEmpty {
                    let what = pendingLink != nil ? "after '!'" : "at the start of a chain"
                    throw DescriptionError(
                        message: "unexpected '\(token.text)' \(what): expected an element before '!'",
                        token: token.text, offset: token.offset)
                }
                if current.count > 1, case .reference(let name, let pad, let offset) = current[current.count - 1] {
                    let text = name + "." + (pad ?? "")
                    throw DescriptionError(
                        message: "reference '\(text)' in the middle of a chain: a reference can only start a "
                            + "chain ('\(text) ! queue ...') or end one ('... ! \(text)')",
                        token: text, offset: offset)
                }
                if let caps {
                    current.append(.caps(caps, offset: token.capsOffset))
                }
                pendingLink = token
                position += 1

            case .assignment:
                throw DescriptionError(
                    message: "property '\(token.text)' does not follow an element: expected an element name "
                        + "before it",
                    token: token.text, offset: token.offset)

            case .element, .url, .reference, .binOpen:
                let node: DescriptionNode
                switch token.kind {
                case .element(let factory), .url(let factory):
                    position += 1
                    var properties: [PropertyAssignment] = []
                    while position < tokens.count, case .assignment(let assignment) = tokens[position].kind {
                        properties.append(assignment)
                        position += 1
                    }
                    node = .element(factory: factory, properties: properties, offset: token.offset)
                case .reference(let name, let pad):
                    position += 1
                    node = .reference(name: name, pad: pad, offset: token.offset)
                case .binOpen(let factory):
                    node = try parseBin(factory: factory).1
                default:
                    preconditionFailure("unreachable")
                }
                if pendingLink == nil {
                    try finishChain()
                }
                pendingLink = nil
                current.append(node)
            }
        }

        if let closer {
            throw DescriptionError(
                message: "bin '\(closer.text)' is not closed: expected ')'", token: closer.text,
                offset: closer.offset)
        }
        if let link = pendingLink {
            throw DescriptionError(
                message: "unexpected '\(link.text)' at the end of the description: expected an element after '!'",
                token: link.text, offset: link.offset)
        }
        try finishChain()
        return chains
    }
}
