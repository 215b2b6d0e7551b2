extension ParsedDescription {
    /// Applies `--set` overrides, each `target.prop=value`, in order.
    ///
    /// `target` is an element's or stage's name (`name=`, or the automatic `grid0`), else a factory or stage
    /// kind that appears exactly once, so `--set grid.lines=thirds` works. The property is replaced when
    /// present and appended otherwise; `value` is taken literally and quoted as needed. Elements inside
    /// bins are not reachable. Throws for a malformed override, no match, or an ambiguous match.
    public func applying(overrides: [String]) throws(DescriptionError) -> ParsedDescription {
        var result = self
        for override in overrides {
            try result.apply(override: override)
        }
        return result
    }

    private mutating func apply(override: String) throws(DescriptionError) {
        let malformed = DescriptionError(
            message: "malformed override '\(override)': expected TARGET.PROPERTY=VALUE, e.g. grid.lines=thirds",
            token: override, offset: -1)
        guard let equals = override.firstIndex(of: "=") else { throw malformed }
        let lhs = override[..<equals]
        let value = String(override[override.index(after: equals)...])
        guard let dot = lhs.lastIndex(of: ".") else { throw malformed }
        let target = String(lhs[..<dot])
        let key = String(lhs[lhs.index(after: dot)...])
        guard !target.isEmpty, let first = key.first, DescriptionLexer.isIdentifierStart(first),
            key.allSatisfy(DescriptionLexer.isIdentifierChar)
        else { throw malformed }

        let elements = namedElements()
        var matches = elements.filter { $0.name == target }
        if matches.count > 1 {
            throw DescriptionError(
                message: "ambiguous override '\(override)': \(matches.count) elements are named '\(target)'; "
                    + "give them different name= values",
                token: target, offset: -1)
        }
        if matches.isEmpty {
            matches = elements.filter { $0.factory == target }
            if matches.count > 1 {
                let names = matches.map(\.name).joined(separator: ", ")
                throw DescriptionError(
                    message: "ambiguous override '\(override)': '\(target)' appears \(matches.count) times; "
                        + "use one of its names instead: \(names)",
                    token: target, offset: -1)
            }
        }
        guard let match = matches.first else {
            let names = elements.map(\.name).joined(separator: ", ")
            throw DescriptionError(
                message: "override '\(override)' matches nothing: no element is named '\(target)' and no "
                    + "'\(target)' element is in the description (names: \(names))",
                token: target, offset: -1)
        }

        guard case .element(let factory, var properties, let offset) = chains[match.chain].nodes[match.node] else {
            return
        }
        let assignment = PropertyAssignment(key: key, value: value)
        if let index = properties.lastIndex(where: { $0.key == key }) {
            properties[index] = assignment
        } else {
            properties.append(assignment)
        }
        chains[match.chain].nodes[match.node] = .element(factory: factory, properties: properties, offset: offset)
    }
}
