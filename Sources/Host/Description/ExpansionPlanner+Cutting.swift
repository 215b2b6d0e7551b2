// Step 3 of `ExpansionPlanner.plan`: each chain cut at its stage groups (upstream part + appsink, appsrc +
// downstream part), and references to a stage turned into its appsink (input) or an appsrc (outputs).

extension ExpansionPlanner {
    // MARK: rewriting chains

    mutating func rewriteChains() throws(DescriptionError) -> [[DescriptionNode]] {
        var pieces: [[DescriptionNode]] = []
        for (c, chain) in chains.enumerated() {
            var pending: [DescriptionNode] = []
            var n = 0
            while n < chain.nodes.count {
                let node = chain.nodes[n]
                if let g = groupAt[c]?[n] {
                    if !pending.isEmpty {
                        pending.append(generatedSink(groups[g].appSink))
                        pieces.append(pending)
                        pending = []
                    }
                    n = groups[g].lastNode + 1
                    if n < chain.nodes.count {
                        pending = [generatedSource(groups[g].mainSource)]
                    }
                    continue
                }
                if case .reference(let name, let pad, let offset) = node, let target = stageByName[name] {
                    let (g, position) = target
                    let text = node.text
                    if n == 0 && chain.nodes.count > 1 {
                        pending = [try outputReference(text: text, pad: pad, offset: offset, group: g, position: position)]
                    } else if n == chain.nodes.count - 1 && n > 0 {
                        try inputReference(text: text, pad: pad, offset: offset, group: g, position: position)
                        pending.append(generatedSink(groups[g].appSink))
                    } else {
                        throw DescriptionError(
                            message: "reference '\(text)' to a stage in the middle of a chain: expected it to start "
                                + "a chain ('\(text) ! queue ...') or end one ('... ! \(text)')",
                            token: text, offset: offset)
                    }
                    n += 1
                    continue
                }
                pending.append(node)
                n += 1
            }
            if !pending.isEmpty { pieces.append(pending) }
        }
        return pieces
    }

    private mutating func outputReference(
        text: String, pad: String?, offset: Int, group g: Int, position: Int
    ) throws(DescriptionError) -> DescriptionNode {
        let instance = groups[g].stages[position]
        if pad == nil || pad == "src" {
            if position < groups[g].stages.count - 1 {
                let next = groups[g].stages[position + 1].name
                throw DescriptionError(
                    message: "main output '\(text)' is already linked to stage '\(next)' in its chain: to use it "
                        + "twice, add a tee: '\(instance.kind) ! tee name=t ! \(groups[g].stages[position + 1].kind) "
                        + "t. ! queue ! ...'",
                    token: text, offset: offset)
            }
            if groups[g].mainLinkedInChain || groups[g].mainReference != nil {
                let where_ = groups[g].mainLinkedInChain ? "in its chain" : "by an earlier '\(instance.name).'"
                throw DescriptionError(
                    message: "main output of stage '\(instance.name)' is linked twice ('\(text)' and \(where_)): "
                        + "add a tee, as in '\(instance.kind) name=\(instance.name) ! tee name=t t. ! queue ! ... "
                        + "t. ! queue ! ...'",
                    token: text, offset: offset)
            }
            groups[g].mainReference = offset
            return generatedSource(groups[g].mainSource)
        }
        guard let pad, instance.signature.outputs.contains(pad) else {
            let outputs = instance.signature.outputs
            let listing =
                outputs.isEmpty
                ? "has no extra outputs; its main output is '\(instance.name).'"
                : "has outputs: " + outputs.joined(separator: ", ")
            throw DescriptionError(
                message: "unknown output '\(text)': stage '\(instance.name)' (\(instance.kind)) \(listing)",
                token: text, offset: offset)
        }
        let key = instance.name + "." + pad
        if groups[g].usedExtras.contains(key) {
            throw DescriptionError(
                message: "output '\(text)' is referenced twice: add a tee, as in '\(text) ! tee name=t "
                    + "t. ! queue ! ... t. ! queue ! ...'",
                token: text, offset: offset)
        }
        groups[g].usedExtras.insert(key)
        return generatedSource(groups[g].extraSources[key]!)
    }

    private mutating func inputReference(
        text: String, pad: String?, offset: Int, group g: Int, position: Int
    ) throws(DescriptionError) {
        let instance = groups[g].stages[position]
        if let pad, pad != "sink" {
            throw DescriptionError(
                message: "unknown input '\(text)': stage '\(instance.name)' (\(instance.kind)) has one input, "
                    + "'\(instance.name).' (or '\(instance.name).sink')",
                token: text, offset: offset)
        }
        if position > 0 {
            let previous = groups[g].stages[position - 1].name
            throw DescriptionError(
                message: "stage '\(instance.name)' is already fed by stage '\(previous)' in its chain: "
                    + "'\(text)' cannot add a second input",
                token: text, offset: offset)
        }
        if groups[g].fedByChain || groups[g].inputReference != nil {
            let source = groups[g].fedByChain ? "from its own chain" : "from an earlier '\(instance.name).'"
            throw DescriptionError(
                message: "stage '\(instance.name)' already has an input \(source): '\(text)' would be a second "
                    + "one (merge streams before the stage, e.g. with a compositor)",
                token: text, offset: offset)
        }
        groups[g].inputReference = offset
    }

    func checkInputs() throws(DescriptionError) {
        for group in groups where !group.fedByChain && group.inputReference == nil {
            let first = group.stages[0]
            throw DescriptionError(
                message: "stage '\(first.name)' has no input: expected an element before it ('videotestsrc ! "
                    + "\(first.kind)') or a chain linked into it ('videotestsrc ! \(first.name).')",
                token: first.kind, offset: first.offset)
        }
    }
}
