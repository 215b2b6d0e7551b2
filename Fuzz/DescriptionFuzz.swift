// libFuzzer target for the description front end: lexer, parser, overrides, pipeline files and the
// expansion planner (Sources/Host/Description, which imports nothing, so no GStreamer is needed).
// Built and run by launch/fuzz:  swiftc -sanitize=fuzzer -parse-as-library Fuzz/DescriptionFuzz.swift
// Sources/Host/Description/*.swift. Any trap (a failed check below, an index out of range, a force
// unwrap, an overflow) is a crash libFuzzer saves; a thrown DescriptionError is a correct answer.
//
// Besides "no crash", it checks what the Description code promises:
// - every error carries a non-empty message;
// - render() is a fixed point: parsing a rendered description renders the same text again;
// - every planned segment is itself a description that parses with no stage left in it;
// - a stage's property value goes through PropertyAssignment.quoted into a default branch and parses
//   back unchanged (the path snapshot/capture use for their multifilesink location).

/// The stages as the host registers them, reduced to what the planner needs.
private func signature(_ factory: String) -> StageSignature? {
    switch factory {
    case "grid", "compose", "ringlight", "chromakey", "passthrough": StageSignature(kind: factory)
    case "snapshot": StageSignature(kind: factory, outputs: ["snapshot"])
    case "capture": StageSignature(kind: factory, outputs: ["snapshot", "thumbnail", "full"])
    default: nil
    }
}

private func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { fatalError("DescriptionFuzz invariant: " + what()) }
}

private func isStageFree(_ description: String) -> Bool {
    guard let parsed = try? ParsedDescription.parse(description) else { return false }
    return parsed.chains.allSatisfy { chain in
        chain.nodes.allSatisfy { node in
            if case .element(let factory, _, _) = node { return signature(factory) == nil }
            return true
        }
    }
}

private func exercise(_ text: String) {
    let parsed: ParsedDescription
    do {
        parsed = try ParsedDescription.parse(text)
    } catch {
        check(!error.message.isEmpty, "empty parse error message for \(text.debugDescription)")
        return
    }

    // render() is a fixed point and keeps every chain and node.
    let rendered = parsed.render()
    do {
        let again = try ParsedDescription.parse(rendered)
        check(again.render() == rendered, "render not stable: \(rendered.debugDescription) -> \(again.render().debugDescription)")
        check(
            again.chains.map { $0.nodes.map(\.text) } == parsed.chains.map { $0.nodes.map(\.text) },
            "render changed the nodes: \(text.debugDescription) -> \(rendered.debugDescription)")
    } catch {
        check(false, "rendered description does not parse: \(rendered.debugDescription) (from \(text.debugDescription)): \(error.message)")
    }

    _ = parsed.namedElements()
    for override in ["grid.lines=thirds", "videotestsrc0.pattern=ball", "a.b=", ".x=1", "t.name=u v"] {
        if let changed = try? parsed.applying(overrides: [override]) {
            _ = try? ParsedDescription.parse(changed.render())
        }
    }

    // Default branches carry a stage's `location` value through PropertyAssignment.quoted.
    var carried: [String: String] = [:]
    let plan: ExpansionPlan
    do {
        plan = try Expansion.plan(parsed, stage: signature) { stage, output in
            let location = stage.properties.last { $0.key == "location" }?.value ?? "shot-%05d.jpg"
            carried[stage.name + "." + output] = location
            return "queue ! jpegenc ! multifilesink location=" + PropertyAssignment.quoted(location)
        }
    } catch {
        check(!error.message.isEmpty, "empty plan error message for \(text.debugDescription)")
        return
    }
    _ = plan.render()
    for segment in plan.segments {
        check(
            isStageFree(segment.description),
            "segment does not parse or keeps a stage: \(segment.description.debugDescription) (from \(text.debugDescription))")
    }
    for group in plan.groups {
        check(!group.stages.isEmpty, "empty stage group from \(text.debugDescription)")
        for extra in group.extraOutputs where extra.isDefaultBranch {
            guard let location = carried[extra.stage + "." + extra.output] else { continue }
            let segment = plan.segments.first { $0.appSources.contains(extra.appSource) }
            guard let segment, let reparsed = try? ParsedDescription.parse(segment.description) else {
                check(false, "no segment for \(extra.appSource) from \(text.debugDescription)")
                return
            }
            let sinks = reparsed.chains.flatMap(\.nodes).compactMap { node -> String? in
                guard case .element("multifilesink", let properties, _) = node else { return nil }
                return properties.last { $0.key == "location" }?.value
            }
            check(
                sinks.contains(location),
                "location \(location.debugDescription) did not survive quoting: \(sinks) in \(segment.description.debugDescription)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    exercise(text)
    // The same bytes as a .pipeline file (comments, continuations, quotes over lines).
    if let description = try? PipelineFile.description(fromFileText: text) {
        exercise(description)
    }
    // And as command-line arguments split at spaces, the way `viewfinder launch a ! b` receives them.
    let joined = ParsedDescription.joinArguments(text.split(separator: " ").map(String.init))
    if joined != text { exercise(joined) }
    return 0
}
