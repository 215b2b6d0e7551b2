// The planner behind `Expansion.plan`. Steps, and the file of each:
// 1. refuse stages inside bins; with no stages the description is one segment, untouched (+Naming);
// 2. name every element (name= or factory+counter), find runs of adjacent stages (groups) (+Naming);
// 3. rewrite each chain, cutting it at groups: upstream part + `appsink`, downstream `appsrc` + rest,
//    and turn references to stages into appsinks (inputs) and appsrcs (outputs) (+Cutting);
// 4. add default branches for extra outputs nothing references (+DefaultBranches);
// 5. join the rewritten chains into connected components (links and name references), one segment
//    each, and order segments upstream first (+Segments).
// This file holds the planner's state and `plan`, which runs the steps in that order.

struct ExpansionPlanner {
    /// A stage instance found in the description.
    struct StageInstance {
        var kind: String
        var name: String
        var properties: [PropertyAssignment]
        var signature: StageSignature
        var offset: Int
    }

    /// A run of adjacent stages in one chain, with its generated element names and link state.
    struct GroupState {
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

    /// Where a stage sits: chain and node index.
    struct StageKey: Hashable {
        var chain: Int
        var node: Int
    }

    var chains: [DescriptionChain]
    let signatures: [String: StageSignature]
    var groups: [GroupState] = []
    var groupAt: [Int: [Int: Int]] = [:]  // chain -> first node -> group
    var stageByName: [String: (group: Int, position: Int)] = [:]
    var usedNames: Set<String> = []
    var generatedSinks: Set<String> = []
    var generatedSources: Set<String> = []
    var stages: [StageKey: StageInstance] = [:]

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

    func stage(_ factory: String) -> StageSignature? {
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
}
