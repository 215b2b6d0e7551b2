import Testing

@testable import Host

private func signature(_ factory: String) -> StageSignature? {
    switch factory {
    case "grid": StageSignature(kind: "grid")
    case "compose": StageSignature(kind: "compose")
    case "snapshot": StageSignature(kind: "snapshot", outputs: ["snapshot"])
    default: nil
    }
}

private func plan(
    _ text: String, defaultBranch: (StagePlan, String) -> String? = { _, _ in nil }
) throws -> ExpansionPlan {
    try Expansion.plan(ParsedDescription.parse(text), stage: signature, defaultBranch: defaultBranch)
}

private func planError(_ text: String) -> DescriptionError? {
    do {
        _ = try plan(text)
        return nil
    } catch let error as DescriptionError {
        return error
    } catch {
        return nil
    }
}

private func name(_ value: String) -> PropertyAssignment {
    PropertyAssignment(key: "name", value: value, text: "name=\(value)")
}

@Suite struct ExpansionTests {
    @Test func noStagesIsOneSegment() throws {
        let result = try plan("videotestsrc ! tee name=t t. ! queue ! fakesink t. ! queue ! autovideosink")
        #expect(
            result
                == ExpansionPlan(
                    segments: [
                        SegmentPlan(
                            index: 0, description: "videotestsrc ! tee name=t t. ! queue ! fakesink t. ! queue ! autovideosink",
                            appSinks: [], appSources: [])
                    ],
                    groups: []))
    }

    @Test func singleStage() throws {
        let result = try plan("a ! b ! grid ! c ! d")
        #expect(
            result
                == ExpansionPlan(
                    segments: [
                        SegmentPlan(
                            index: 0, description: "a ! b ! appsink name=vf_grid0_sink", appSinks: ["vf_grid0_sink"], appSources: []),
                        SegmentPlan(index: 1, description: "appsrc name=vf_grid0_src ! c ! d", appSinks: [], appSources: ["vf_grid0_src"]),
                    ],
                    groups: [
                        StageGroupPlan(
                            stages: [StagePlan(kind: "grid", name: "grid0", properties: [])],
                            appSink: "vf_grid0_sink", mainOutput: "vf_grid0_src", extraOutputs: [])
                    ]))
    }

    @Test func stageBetweenTwoQueuesKeepsCapsAndProperties() throws {
        let result = try plan(
            "videotestsrc ! video/x-raw,format=RGBA ! queue ! grid lines=thirds color=\"light blue\" ! queue ! autovideosink")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! video/x-raw,format=RGBA ! queue ! appsink name=vf_grid0_sink",
                "appsrc name=vf_grid0_src ! queue ! autovideosink",
            ])
        #expect(
            result.groups[0].stages == [
                StagePlan(
                    kind: "grid", name: "grid0",
                    properties: [
                        PropertyAssignment(key: "lines", value: "thirds", text: "lines=thirds"),
                        PropertyAssignment(key: "color", value: "light blue", text: "color=\"light blue\""),
                    ])
            ])
    }

    @Test func twoAdjacentStagesFuse() throws {
        let result = try plan("v4l2src ! compose rule=thirds ! grid name=g ! autovideosink")
        #expect(
            result.segments.map(\.description) == [
                "v4l2src ! appsink name=vf_compose0_sink",
                "appsrc name=vf_g_src ! autovideosink",
            ])
        #expect(
            result.groups == [
                StageGroupPlan(
                    stages: [
                        StagePlan(
                            kind: "compose", name: "compose0",
                            properties: [PropertyAssignment(key: "rule", value: "thirds", text: "rule=thirds")]),
                        StagePlan(kind: "grid", name: "g", properties: []),
                    ],
                    appSink: "vf_compose0_sink", mainOutput: "vf_g_src", extraOutputs: [])
            ])
    }

    @Test func separatedStagesAreTwoGroupsWithCountersLikeGStreamer() throws {
        let result = try plan("videotestsrc ! grid ! videoconvert ! grid ! autovideosink")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_grid0_sink",
                "appsrc name=vf_grid0_src ! videoconvert ! appsink name=vf_grid1_sink",
                "appsrc name=vf_grid1_src ! autovideosink",
            ])
        #expect(result.groups.map(\.appSink) == ["vf_grid0_sink", "vf_grid1_sink"])
    }

    @Test func teeAfterAStage() throws {
        let result = try plan("videotestsrc ! grid ! tee name=t t. ! queue ! autovideosink t. ! queue ! fakesink")
        #expect(
            result.segments == [
                SegmentPlan(
                    index: 0, description: "videotestsrc ! appsink name=vf_grid0_sink", appSinks: ["vf_grid0_sink"], appSources: []),
                SegmentPlan(
                    index: 1,
                    description: "appsrc name=vf_grid0_src ! tee name=t t. ! queue ! autovideosink t. ! queue ! fakesink",
                    appSinks: [], appSources: ["vf_grid0_src"]),
            ])
    }

    @Test func extraOutputByReference() throws {
        let result = try plan(
            "v4l2src ! snapshot name=cap ! autovideosink cap.snapshot ! queue ! jpegenc ! multifilesink location=IMG_%05d.jpg")
        #expect(
            result.segments.map(\.description) == [
                "v4l2src ! appsink name=vf_cap_sink",
                "appsrc name=vf_cap_src ! autovideosink",
                "appsrc name=vf_cap_snapshot ! queue ! jpegenc ! multifilesink location=IMG_%05d.jpg",
            ])
        #expect(
            result.groups[0].extraOutputs == [
                ExtraOutputPlan(stage: "cap", output: "snapshot", appSource: "vf_cap_snapshot", isDefaultBranch: false)
            ])
        #expect(result.segments[2].appSources == ["vf_cap_snapshot"])
    }

    @Test func mainOutputByReference() throws {
        let result = try plan("videotestsrc ! grid name=g g.src ! autovideosink")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_g_sink", "appsrc name=vf_g_src ! autovideosink",
            ])
        #expect(result.groups[0].mainOutput == "vf_g_src")
    }

    @Test func unlinkedMainOutputIsNil() throws {
        let result = try plan("videotestsrc ! grid")
        #expect(result.groups[0].mainOutput == nil)
        #expect(result.segments.map(\.description) == ["videotestsrc ! appsink name=vf_grid0_sink"])
    }

    @Test func defaultBranchForUnreferencedExtraOutput() throws {
        var asked: [String] = []
        let result = try plan("videotestsrc ! snapshot name=s interval=2 ! fakesink") { stage, output in
            asked.append("\(stage.name).\(output) \(stage.properties.map(\.text))")
            return "queue ! jpegenc ! multifilesink location=shots/IMG_%05d.jpg"
        }
        #expect(asked == [#"s.snapshot ["interval=2"]"#])
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_s_sink",
                "appsrc name=vf_s_src ! fakesink",
                "appsrc name=vf_s_snapshot ! queue ! jpegenc ! multifilesink location=shots/IMG_%05d.jpg",
            ])
        #expect(
            result.groups[0].extraOutputs == [
                ExtraOutputPlan(stage: "s", output: "snapshot", appSource: "vf_s_snapshot", isDefaultBranch: true)
            ])
    }

    @Test func noDefaultBranchOmitsTheOutput() throws {
        let result = try plan("videotestsrc ! snapshot ! fakesink")
        #expect(result.groups[0].extraOutputs == [])
        #expect(result.segments.count == 2)
    }

    @Test func invalidDefaultBranchNamesTheFragment() {
        #expect(
            throws: DescriptionError(
                message: "default branch 'queue !' for 's.snapshot' is not a valid description: unexpected '!' at the end "
                    + "of the description: expected an element after '!'",
                token: "queue !", offset: -1)
        ) {
            try plan("videotestsrc ! snapshot name=s ! fakesink") { _, _ in "queue !" }
        }
    }

    @Test func unknownOutput() {
        #expect(
            planError("videotestsrc ! snapshot name=s ! fakesink s.snapshto ! fakesink")
                == DescriptionError(
                    message: "unknown output 's.snapshto': stage 's' (snapshot) has outputs: snapshot",
                    token: "s.snapshto", offset: 42))
        #expect(
            planError("videotestsrc ! grid name=g ! fakesink g.snapshot ! fakesink")?.message
                == "unknown output 'g.snapshot': stage 'g' (grid) has no extra outputs; its main output is 'g.'")
    }

    @Test func stageWithoutInput() {
        #expect(
            planError("grid ! autovideosink")
                == DescriptionError(
                    message: "stage 'grid0' has no input: expected an element before it ('videotestsrc ! grid') or a chain "
                        + "linked into it ('videotestsrc ! grid0.')",
                    token: "grid", offset: 0))
    }

    @Test func inputByReference() throws {
        let result = try plan("grid name=g ! autovideosink videotestsrc ! g.")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_g_sink", "appsrc name=vf_g_src ! autovideosink",
            ])
        #expect(result.segments.map(\.index) == [0, 1])
    }

    @Test func inputByReferenceToAStageAlreadyFed() {
        #expect(
            planError("videotestsrc ! grid name=g ! fakesink audiotestsrc ! g.sink")?.message
                == "stage 'g' already has an input from its own chain: 'g.sink' would be a second one (merge streams "
                + "before the stage, e.g. with a compositor)")
        #expect(
            planError("videotestsrc ! compose ! grid name=g ! fakesink videotestsrc ! g.")?.message
                == "stage 'g' is already fed by stage 'compose0' in its chain: 'g.' cannot add a second input")
    }

    @Test func mainOutputLinkedTwice() {
        #expect(
            planError("videotestsrc ! grid name=g ! fakesink g. ! autovideosink")
                == DescriptionError(
                    message: "main output of stage 'g' is linked twice ('g.' and in its chain): add a tee, as in "
                        + "'grid name=g ! tee name=t t. ! queue ! ... t. ! queue ! ...'",
                    token: "g.", offset: 38))
    }

    @Test func extraOutputReferencedTwice() {
        #expect(
            planError("videotestsrc ! snapshot name=s ! fakesink s.snapshot ! fakesink s.snapshot ! fakesink")?.message
                == "output 's.snapshot' is referenced twice: add a tee, as in 's.snapshot ! tee name=t t. ! queue ! ... "
                + "t. ! queue ! ...'")
    }

    @Test func stageReferenceInTheMiddleOfAChain() {
        // The parser refuses this; a hand-built description still gets a clear error from the planner.
        let parsed = ParsedDescription(chains: [
            DescriptionChain(nodes: [
                .element(factory: "videotestsrc", properties: [], offset: 0),
                .element(factory: "grid", properties: [name("g")], offset: 15),
                .element(factory: "fakesink", properties: [], offset: 30),
            ]),
            DescriptionChain(nodes: [
                .element(factory: "audiotestsrc", properties: [], offset: 39),
                .reference(name: "g", pad: nil, offset: 54),
                .element(factory: "fakesink", properties: [], offset: 59),
            ]),
        ])
        #expect(
            throws: DescriptionError(
                message: "reference 'g.' to a stage in the middle of a chain: expected it to start a chain "
                    + "('g. ! queue ...') or end one ('... ! g.')",
                token: "g.", offset: 54)
        ) {
            try Expansion.plan(parsed, stage: signature) { _, _ in nil }
        }
        #expect(planError("videotestsrc ! grid name=g ! fakesink audiotestsrc ! g. ! fakesink")?.token == "g.")
    }

    @Test func undefinedReference() {
        #expect(
            planError("videotestsrc ! grid ! mux. ")
                == DescriptionError(
                    message: "unknown reference 'mux.': no element or stage has name=mux", token: "mux.", offset: 22))
    }

    @Test func stageInsideABin() {
        #expect(
            planError("videotestsrc ! ( queue ! grid ) ! fakesink")
                == DescriptionError(
                    message: "stage 'grid' inside bin '( queue ! grid )' is not supported: move the stage out of the bin",
                    token: "grid", offset: 25))
    }

    @Test func audioChainJoinsTheMuxerSegment() throws {
        let result = try plan(
            "videotestsrc ! grid ! x264enc ! mp4mux name=mux ! filesink location=o.mp4 audiotestsrc ! lamemp3enc ! mux.")
        #expect(
            result.segments == [
                SegmentPlan(
                    index: 0, description: "videotestsrc ! appsink name=vf_grid0_sink", appSinks: ["vf_grid0_sink"], appSources: []),
                SegmentPlan(
                    index: 1,
                    description: "appsrc name=vf_grid0_src ! x264enc ! mp4mux name=mux ! filesink location=o.mp4 "
                        + "audiotestsrc ! lamemp3enc ! mux.",
                    appSinks: [], appSources: ["vf_grid0_src"]),
            ])
    }

    @Test func referenceIntoABinJoinsItsSegment() throws {
        let result = try plan(
            "videotestsrc ! grid ! bin.( name=enc x264enc ! mp4mux name=mux ! filesink location=o.mp4 ) "
                + "audiotestsrc ! lamemp3enc ! mux.")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_grid0_sink",
                "appsrc name=vf_grid0_src ! bin.( name=enc x264enc ! mp4mux name=mux ! filesink location=o.mp4 ) "
                    + "audiotestsrc ! lamemp3enc ! mux.",
            ])
    }

    @Test func unrelatedChainIsItsOwnSegment() throws {
        let result = try plan("videotestsrc ! grid ! autovideosink audiotestsrc ! autoaudiosink")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_grid0_sink",
                "appsrc name=vf_grid0_src ! autovideosink",
                "audiotestsrc ! autoaudiosink",
            ])
    }

    @Test func segmentsAreOrderedUpstreamFirst() throws {
        // The snapshot branch and the stage's input are written before the stage itself.
        let result = try plan("s.snapshot ! fakesink videotestsrc ! grid0. grid ! snapshot name=s")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_grid0_sink",
                "appsrc name=vf_s_snapshot ! fakesink",
            ])
        #expect(result.groups[0].stages.map(\.name) == ["grid0", "s"])
        #expect(result.groups[0].mainOutput == nil)
    }

    @Test func referenceToAnAutomaticNameBecomesExplicit() throws {
        let result = try plan("videotestsrc ! grid ! tee tee0. ! queue ! fakesink")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_grid0_sink",
                "appsrc name=vf_grid0_src ! tee name=tee0 tee0. ! queue ! fakesink",
            ])
    }

    @Test func generatedNamesAreSanitisedAndUnique() throws {
        let result = try plan("videotestsrc ! grid name=my-grid ! fakesink name=vf_my_grid_src")
        #expect(
            result.segments.map(\.description) == [
                "videotestsrc ! appsink name=vf_my_grid_sink",
                "appsrc name=vf_my_grid_src_1 ! fakesink name=vf_my_grid_src",
            ])
    }

    @Test func duplicateNamesAreAnError() {
        #expect(
            planError("videotestsrc ! grid name=x ! queue name=x ! fakesink")?.message
                == "name 'x' is given to more than one element: expected unique name= values")
    }

    @Test func renderListsSegmentsAndGroups() throws {
        let result = try plan("videotestsrc ! compose ! snapshot name=s auto=true ! autovideosink") { _, _ in "fakesink" }
        #expect(
            result.render() == """
                segments:
                  [0] videotestsrc ! appsink name=vf_compose0_sink
                  [1] appsrc name=vf_s_src ! autovideosink
                  [2] appsrc name=vf_s_snapshot ! fakesink
                stage groups:
                  [0] compose0 (compose) -> s (snapshot auto=true)
                      input: vf_compose0_sink
                      output: vf_s_src
                      s.snapshot: vf_s_snapshot (default branch)
                """)
    }
}
