// The planner behind `Expansion.plan`. Steps:
// 1. refuse stages inside bins; with no stages the description is one segment, untouched;
// 2. name every element (name= or factory+counter), find runs of adjacent stages (groups);
// 3. rewrite each chain, cutting it at groups: upstream part + `appsink`, downstream `appsrc` + rest,
//    and turn references to stages into appsinks (inputs) and appsrcs (outputs);
// 4. add default branches for extra outputs nothing references;
// 5. join the rewritten chains into connected components (links and name references), one segment
//    each, and order segments upstream first.

/// A stage instance found in the description.
private struct StageInstance {
    var kind: String
    var name: String
    var properties: [PropertyAssignment]
    var signature: StageSignature
    var offset: Int
}

/// A run of adjacent stages in one chain, with its generated element names and link state.
private struct GroupState {
    var stages: [StageInstance]
    var chain: Int
    var firstNode: Int
    var lastNode: Int
    var appSink: String
    var mainSource: String
    var extraSources: [String: String]  // "stage.output" -> appsrc name
    var fedByChain: Bool
    var mainLinkedInChain: Bool
    var inputReference: Int?
    var mainReference: Int?
    var usedExtras: Set<String> = []
}

struct ExpansionPlanner {
    private var chains: [DescriptionChain]
    private let signatures: [String: StageSignature]
    private var groups: [GroupState] = []
    private var groupAt: [Int: [Int: Int]] = [:]  // chain -> first node -> group
    private var stageByName: [String: (group: Int, position: Int)] = [:]
    private var usedNames: Set<String> = []
    private var generatedSinks: Set<String> = []
    private var generatedSources: Set<String> = []

    /// `signatures` holds the signature of every factory in the description that is a stage kind.
    init(parsed: ParsedDescription, signatures: [String: StageSignature]) {
        self.chains = parsed.chains
        self.signatures = signatures
    }

    /// Every factory name used in `chains`, inside bins too, so stage kinds can be looked up up front.
    static func factories(in chains: [DescriptionChain]) throws(DescriptionError) -> Set<String> {
        var result: Set<String> = []
        for chain in chains {
            for node in chain.nodes {
                switch node {
                case .element(let factory, _, _):
                    result.insert(factory)
                case .bin(let text, _):
                    let contents = try BinContents.parse(text)
                    result.insert(contents.factory)
                    result.formUnion(try factories(in: contents.chains))
                default:
                    break
                }
            }
        }
        return result
    }

    private func stage(_ factory: String) -> StageSignature? {
        signatures[factory]
    }

    mutating func plan(
        stage lookUp: (String) -> StageSignature?, defaultBranch: (StagePlan, String) -> String?
    ) throws(DescriptionError) -> ExpansionPlan {
        let bins = try inspectBins()
        let hasStages = chains.contains { chain in
            chain.nodes.contains { node in
                if case .element(let factory, _, _) = node { return stage(factory) != nil }
                return false
            }
        }
        guard hasStages else {
            let description = ParsedDescription(chains: chains).render()
            return ExpansionPlan(
                segments: [SegmentPlan(index: 0, description: description, appSinks: [], appSources: [])],
                groups: [])
        }
        try nameElements(bins: bins)
        findGroups()
        var pieces = try rewriteChains()
        try checkInputs()
        let extras = try extraOutputs(stage: lookUp, defaultBranch: defaultBranch, pieces: &pieces)
        let groupPlans = groups.enumerated().map { index, group in
            StageGroupPlan(
                stages: group.stages.map { StagePlan(kind: $0.kind, name: $0.name, properties: $0.properties) },
                appSink: group.appSink,
                mainOutput: group.mainLinkedInChain || group.mainReference != nil ? group.mainSource : nil,
                extraOutputs: extras[index])
        }
        let segments = try segmentsFrom(pieces: pieces, groups: groupPlans)
        return ExpansionPlan(segments: segments, groups: groupPlans)
    }

    // MARK: bins

    /// Names defined and referenced inside one bin node (recursively).
    fileprivate struct BinNames {
        var offset = -1
        var defined: [String] = []
        var referenced: [(name: String, text: String)] = []
    }

    /// Refuses stages inside bins and collects what each top-level bin defines and references, in order.
    private func inspectBins() throws(DescriptionError) -> [BinNames] {
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
    private func binNames(text: String, offset: Int) throws(DescriptionError) -> BinNames {
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

    private mutating func nameElements(bins: [BinNames]) throws(DescriptionError) {
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

    private struct StageKey: Hashable {
        var chain: Int
        var node: Int
    }

    private var stages: [StageKey: StageInstance] = [:]

    private mutating func findGroups() {
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

    private mutating func generatedSink(_ name: String) -> DescriptionNode {
        generatedSinks.insert(name)
        return .element(factory: "appsink", properties: [PropertyAssignment(key: "name", value: name)], offset: -1)
    }

    private mutating func generatedSource(_ name: String) -> DescriptionNode {
        generatedSources.insert(name)
        return .element(factory: "appsrc", properties: [PropertyAssignment(key: "name", value: name)], offset: -1)
    }

    // MARK: rewriting chains

    private mutating func rewriteChains() throws(DescriptionError) -> [[DescriptionNode]] {
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

    private func checkInputs() throws(DescriptionError) {
        for group in groups where !group.fedByChain && group.inputReference == nil {
            let first = group.stages[0]
            throw DescriptionError(
                message: "stage '\(first.name)' has no input: expected an element before it ('videotestsrc ! "
                    + "\(first.kind)') or a chain linked into it ('videotestsrc ! \(first.name).')",
                token: first.kind, offset: first.offset)
        }
    }

    // MARK: extra outputs and default branches

    private mutating func extraOutputs(
        stage: (String) -> StageSignature?, defaultBranch: (StagePlan, String) -> String?,
        pieces: inout [[DescriptionNode]]
    ) throws(DescriptionError) -> [[ExtraOutputPlan]] {
        var result: [[ExtraOutputPlan]] = []
        for g in groups.indices {
            var plans: [ExtraOutputPlan] = []
            for instance in groups[g].stages {
                for output in instance.signature.outputs {
                    let key = instance.name + "." + output
                    let source = groups[g].extraSources[key]!
                    if groups[g].usedExtras.contains(key) {
                        plans.append(ExtraOutputPlan(stage: instance.name, output: output, appSource: source, isDefaultBranch: false))
                        continue
                    }
                    let stagePlan = StagePlan(kind: instance.kind, name: instance.name, properties: instance.properties)
                    guard let fragment = defaultBranch(stagePlan, output) else { continue }
                    pieces.append(contentsOf: try defaultBranchPieces(fragment, source: source, output: key, stage: stage))
                    plans.append(ExtraOutputPlan(stage: instance.name, output: output, appSource: source, isDefaultBranch: true))
                }
            }
            result.append(plans)
        }
        return result
    }

    private mutating func defaultBranchPieces(
        _ fragment: String, source: String, output: String, stage: (String) -> StageSignature?
    ) throws(DescriptionError) -> [[DescriptionNode]] {
        let parsed: ParsedDescription
        do {
            parsed = try ParsedDescription.parse("appsrc name=" + source + " ! " + fragment)
        } catch {
            throw DescriptionError(
                message: "default branch '\(fragment)' for '\(output)' is not a valid description: \(error.message)",
                token: fragment, offset: -1)
        }
        for chain in parsed.chains {
            for case .element(let factory, _, _) in chain.nodes where stage(factory) != nil {
                throw DescriptionError(
                    message: "default branch '\(fragment)' for '\(output)' contains stage '\(factory)': "
                        + "expected GStreamer elements only",
                    token: factory, offset: -1)
            }
        }
        var pieces = parsed.chains.map(\.nodes)
        pieces[0][0] = generatedSource(source)
        return pieces
    }

    // MARK: segments

    private func segmentsFrom(
        pieces: [[DescriptionNode]], groups: [StageGroupPlan]
    ) throws(DescriptionError) -> [SegmentPlan] {
        // Which piece defines each name; what each bin node inside a piece defines and references.
        var definedIn: [String: Int] = [:]
        var binsIn: [[BinNames]] = []
        for (p, piece) in pieces.enumerated() {
            var bins: [BinNames] = []
            for node in piece {
                if let name = node.explicitName { definedIn[name] = p }
                if case .bin(let text, let offset) = node {
                    let names = try binNames(text: text, offset: offset)
                    for name in names.defined { definedIn[name] = p }
                    bins.append(names)
                }
            }
            binsIn.append(bins)
        }

        var parent = Array(pieces.indices)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { x = parent[x] }
            return x
        }
        func union(_ a: Int, _ b: Int) {
            let (ra, rb) = (root(a), root(b))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        func resolve(_ name: String, text: String, offset: Int, piece: Int) throws(DescriptionError) {
            guard let target = definedIn[name] else {
                throw DescriptionError(
                    message: "unknown reference '\(text)': no element or stage has name=\(name)",
                    token: text, offset: offset)
            }
            union(piece, target)
        }
        for (p, piece) in pieces.enumerated() {
            for node in piece {
                switch node {
                case .reference(let name, _, let offset):
                    try resolve(name, text: node.text, offset: offset, piece: p)
                default:
                    break
                }
            }
            for names in binsIn[p] {
                for reference in names.referenced {
                    try resolve(reference.name, text: reference.text, offset: names.offset, piece: p)
                }
            }
        }

        // Components in order of first appearance.
        var componentOf: [Int: Int] = [:]
        var components: [[Int]] = []
        for p in pieces.indices {
            let r = root(p)
            if let c = componentOf[r] {
                components[c].append(p)
            } else {
                componentOf[r] = components.count
                components.append([p])
            }
        }

        var drafts: [(description: String, sinks: [String], sources: [String])] = []
        for component in components {
            var sinks: [String] = []
            var sources: [String] = []
            for p in component {
                for node in pieces[p] {
                    guard let name = node.explicitName, node.offset == -1 else { continue }
                    if generatedSinks.contains(name) { sinks.append(name) }
                    if generatedSources.contains(name) { sources.append(name) }
                }
            }
            let description = component.map { p in DescriptionChain(nodes: pieces[p]).render() }
                .joined(separator: " ")
            drafts.append((description, sinks, sources))
        }

        // Upstream first: a group's appsink segment before its appsrc segments (Kahn, stable by appearance).
        var successors = Array(repeating: Set<Int>(), count: drafts.count)
        var predecessors = Array(repeating: 0, count: drafts.count)
        func segment(containing name: String, sinks: Bool) -> Int? {
            drafts.firstIndex { (sinks ? $0.sinks : $0.sources).contains(name) }
        }
        for group in groups {
            guard let from = segment(containing: group.appSink, sinks: true) else { continue }
            let outputs = [group.mainOutput].compactMap { $0 } + group.extraOutputs.map(\.appSource)
            for output in outputs {
                guard let to = segment(containing: output, sinks: false), to != from else { continue }
                if successors[from].insert(to).inserted { predecessors[to] += 1 }
            }
        }
        var order: [Int] = []
        var placed = Array(repeating: false, count: drafts.count)
        while order.count < drafts.count {
            let next =
                drafts.indices.first { !placed[$0] && predecessors[$0] == 0 }
                ?? drafts.indices.first { !placed[$0] }!  // a cycle: fall back to appearance order
            placed[next] = true
            order.append(next)
            for s in successors[next] { predecessors[s] -= 1 }
        }
        return order.enumerated().map { index, d in
            SegmentPlan(index: index, description: drafts[d].description, appSinks: drafts[d].sinks, appSources: drafts[d].sources)
        }
    }
}
