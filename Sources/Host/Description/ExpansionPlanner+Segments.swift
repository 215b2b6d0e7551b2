// Step 5 of `ExpansionPlanner.plan`: the rewritten pieces joined into connected components, one segment each,
// upstream first.

extension ExpansionPlanner {
    // MARK: segments

    func segmentsFrom(
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
