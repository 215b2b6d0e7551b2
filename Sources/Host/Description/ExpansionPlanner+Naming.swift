// Steps 1 and 2 of `ExpansionPlanner.plan`: what bins define and reference (stages inside them refused),
// every element's name, the runs of adjacent stages (groups), and the names generated for their appsinks and appsrcs.

extension ExpansionPlanner {
    // MARK: bins

    /// Names defined and referenced inside one bin node (recursively).
    struct BinNames {
        var offset = -1
        var defined: [String] = []
        var referenced: [(name: String, text: String)] = []
    }

    /// Refuses stages inside bins and collects what each top-level bin defines and references, in order.
    func inspectBins() throws(DescriptionError) -> [BinNames] {
        var result: [BinNames] = []
        for chain in chains {
            for node in chain.nodes {
                guard case .bin(let text, let offset) = node else { continue }
                result.append(try binNames(text: text, offset: offset))
            }
        }
        return result
    }

    /// The names a bin node defines and references (recursively); throws for stages inside it.
    func binNames(text: String, offset: Int) throws(DescriptionError) -> BinNames {
        var names = BinNames()
        names.offset = offset
        try inspectBin(text: text, offset: offset, into: &names)
        return names
    }

    private func inspectBin(text: String, offset: Int, into names: inout BinNames) throws(DescriptionError) {
        let contents = try BinContents.parse(text)
        if stage(contents.factory) != nil {
            throw DescriptionError(
                message: "stage '\(contents.factory)' used as a bin in '\(text)' is not supported: expected a "
                    + "GStreamer bin such as 'bin.( ... )'",
                token: contents.factory, offset: offset)
        }
        if let name = contents.properties.last(where: { $0.key == "name" })?.value {
            names.defined.append(name)
        }
        for chain in contents.chains {
            for node in chain.nodes {
                switch node {
                case .element(let factory, _, let innerOffset):
                    if stage(factory) != nil {
                        throw DescriptionError(
                            message: "stage '\(factory)' inside bin '\(text)' is not supported: move the stage out "
                                + "of the bin",
                            token: factory, offset: offset + innerOffset)
                    }
                    if let name = node.explicitName { names.defined.append(name) }
                case .reference(let name, _, _):
                    names.referenced.append((name, node.text))
                case .bin(let innerText, let innerOffset):
                    try inspectBin(text: innerText, offset: offset + innerOffset, into: &names)
                case .caps:
                    break
                }
            }
        }
    }

    // MARK: names and groups

    mutating func nameElements(bins: [BinNames]) throws(DescriptionError) {
        let described = ParsedDescription(chains: chains)
        let named = described.namedElements()

        // Every explicit name once: generated names must not collide, references must be unambiguous.
        var seen: [String: Int] = [:]
        func claim(_ name: String, offset: Int) throws(DescriptionError) {
            if seen[name] != nil {
                throw DescriptionError(
                    message: "name '\(name)' is given to more than one element: expected unique name= values",
                    token: "name=\(name)", offset: offset)
            }
            seen[name] = offset
        }
        for element in named where element.isExplicit {
            try claim(element.name, offset: chains[element.chain].nodes[element.node].offset)
        }
        for names in bins {
            for name in names.defined { try claim(name, offset: names.offset) }
        }
        usedNames = Set(seen.keys)

        // References to automatic names (`tee0.`) only resolve after splitting if the name is written.
        var referenced: Set<String> = []
        for chain in chains {
            for case .reference(let name, _, _) in chain.nodes { referenced.insert(name) }
        }
        for names in bins { referenced.formUnion(names.referenced.map(\.name)) }

        for element in named {
            let node = chains[element.chain].nodes[element.node]
            guard case .element(let factory, let properties, let offset) = node else { continue }
            if let signature = stage(factory) {
                let instance = StageInstance(
                    kind: factory, name: element.name, properties: properties.filter { $0.key != "name" },
                    signature: signature, offset: offset)
                stages[StageKey(chain: element.chain, node: element.node)] = instance
                usedNames.insert(element.name)
            } else if !element.isExplicit, referenced.contains(element.name) {
                chains[element.chain].nodes[element.node] = .element(
                    factory: factory, properties: properties + [PropertyAssignment(key: "name", value: element.name)],
                    offset: offset)
                usedNames.insert(element.name)
            }
        }
    }

    mutating func findGroups() {
        for (c, chain) in chains.enumerated() {
            var n = 0
            while n < chain.nodes.count {
                guard stages[StageKey(chain: c, node: n)] != nil else {
                    n += 1
                    continue
                }
                var members: [StageInstance] = []
                let first = n
                while n < chain.nodes.count, let instance = stages[StageKey(chain: c, node: n)] {
                    members.append(instance)
                    n += 1
                }
                let last = n - 1
                var extraSources: [String: String] = [:]
                for member in members {
                    for output in member.signature.outputs {
                        extraSources[member.name + "." + output] = uniqueName(
                            "vf_" + sanitize(member.name) + "_" + sanitize(output))
                    }
                }
                let group = GroupState(
                    stages: members, chain: c, firstNode: first, lastNode: last,
                    appSink: uniqueName("vf_" + sanitize(members[0].name) + "_sink"),
                    mainSource: uniqueName("vf_" + sanitize(members[members.count - 1].name) + "_src"),
                    extraSources: extraSources,
                    fedByChain: first > 0, mainLinkedInChain: last < chain.nodes.count - 1)
                let index = groups.count
                groups.append(group)
                groupAt[c, default: [:]][first] = index
                for (position, member) in members.enumerated() {
                    stageByName[member.name] = (index, position)
                }
            }
        }
    }

    private mutating func uniqueName(_ base: String) -> String {
        var candidate = base
        var counter = 1
        while usedNames.contains(candidate) {
            candidate = base + "_" + String(counter)
            counter += 1
        }
        usedNames.insert(candidate)
        return candidate
    }

    private func sanitize(_ name: String) -> String {
        String(name.map { c in c == "_" || DescriptionLexer.isASCIILetter(c) || DescriptionLexer.isASCIIDigit(c) ? c : "_" })
    }

    mutating func generatedSink(_ name: String) -> DescriptionNode {
        generatedSinks.insert(name)
        return .element(factory: "appsink", properties: [PropertyAssignment(key: "name", value: name)], offset: -1)
    }

    mutating func generatedSource(_ name: String) -> DescriptionNode {
        generatedSources.insert(name)
        return .element(factory: "appsrc", properties: [PropertyAssignment(key: "name", value: name)], offset: -1)
    }
}
