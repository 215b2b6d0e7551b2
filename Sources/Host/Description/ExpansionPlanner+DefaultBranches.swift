// Step 4 of `ExpansionPlanner.plan`: each stage's extra outputs, linked or given the stage's default branch.

extension ExpansionPlanner {
    // MARK: extra outputs and default branches

    mutating func extraOutputs(
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
}
