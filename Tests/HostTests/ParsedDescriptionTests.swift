import Testing

@testable import Host

private func parseError(_ text: String) -> DescriptionError? {
    do {
        _ = try ParsedDescription.parse(text)
        return nil
    } catch {
        return error
    }
}

private func texts(_ parsed: ParsedDescription) -> [[String]] {
    parsed.chains.map { $0.nodes.map(\.text) }
}

private func prop(_ key: String, _ value: String, _ text: String? = nil) -> PropertyAssignment {
    PropertyAssignment(key: key, value: value, text: text ?? "\(key)=\(value)")
}

@Suite struct ParsedDescriptionTests {
    // MARK: parsing

    @Test func singleChain() throws {
        let parsed = try ParsedDescription.parse("videotestsrc pattern=ball ! videoconvert ! autovideosink")
        #expect(
            parsed
                == ParsedDescription(chains: [
                    DescriptionChain(nodes: [
                        .element(factory: "videotestsrc", properties: [prop("pattern", "ball")], offset: 0),
                        .element(factory: "videoconvert", properties: [], offset: 28),
                        .element(factory: "autovideosink", properties: [], offset: 43),
                    ])
                ]))
    }

    @Test func capsNodes() throws {
        let parsed = try ParsedDescription.parse("v4l2src ! video/x-raw, width=1280,height=720 ! videoconvert")
        #expect(parsed.chains[0].nodes[1] == .caps("video/x-raw, width=1280,height=720", offset: 10))
    }

    @Test func whitespaceWithoutBangStartsANewChain() throws {
        let parsed = try ParsedDescription.parse(
            "videotestsrc ! tee name=t t. ! queue ! fakesink t.src_%u ! queue ! autovideosink")
        #expect(
            texts(parsed) == [
                ["videotestsrc", "tee name=t"],
                ["t.", "queue", "fakesink"],
                ["t.src_%u", "queue", "autovideosink"],
            ])
        #expect(parsed.chains[2].nodes[0] == .reference(name: "t", pad: "src_%u", offset: 48))
    }

    @Test func referenceAtTheEndClosesTheChain() throws {
        let parsed = try ParsedDescription.parse("audiotestsrc ! lamemp3enc ! mux. videotestsrc ! x264enc")
        #expect(texts(parsed) == [["audiotestsrc", "lamemp3enc", "mux."], ["videotestsrc", "x264enc"]])
    }

    @Test func binsAreKeptVerbatim() throws {
        let parsed = try ParsedDescription.parse(
            "fakesrc ! bin.( name=b queue ! video/x-raw(memory:GLMemory) ! identity ) ! fakesink ( queue )")
        #expect(parsed.chains[0].nodes[1] == .bin(text: "bin.( name=b queue ! video/x-raw(memory:GLMemory) ! identity )", offset: 10))
        #expect(parsed.chains[1].nodes == [.bin(text: "( queue )", offset: 84)])
        let contents = try BinContents.parse("bin.( name=b queue ! identity )")
        #expect(contents.factory == "bin")
        #expect(contents.properties == [prop("name", "b")])
        #expect(contents.chains.map { $0.nodes.map(\.text) } == [["queue", "identity"]])
    }

    @Test func propertiesWithSpacesQuotesAndTypes() throws {
        let parsed = try ParsedDescription.parse(#"filesrc location = "my clip.mp4" ! queue max-size-time=(guint64)0"#)
        #expect(
            parsed.chains[0].nodes == [
                .element(factory: "filesrc", properties: [prop("location", "my clip.mp4", #"location="my clip.mp4""#)], offset: 0),
                .element(factory: "queue", properties: [prop("max-size-time", "(guint64)0")], offset: 35),
            ])
    }

    @Test func uriElements() throws {
        let parsed = try ParsedDescription.parse("file:///tmp/a.mp4 ! decodebin")
        #expect(parsed.chains[0].nodes[0] == .element(factory: "file:///tmp/a.mp4", properties: [], offset: 0))
    }

    // MARK: errors

    @Test func emptyDescription() {
        let expected = DescriptionError(
            message: "empty description: expected at least one element, e.g. 'videotestsrc ! autovideosink'",
            token: "", offset: 0)
        #expect(parseError("") == expected)
        #expect(parseError("  \n ") == expected)
    }

    @Test func bangAtStart() {
        #expect(
            parseError("! videotestsrc")
                == DescriptionError(
                    message: "unexpected '!' at the start of a chain: expected an element before '!'", token: "!", offset: 0))
    }

    @Test func bangAtEnd() {
        #expect(
            parseError("videotestsrc !")
                == DescriptionError(
                    message: "unexpected '!' at the end of the description: expected an element after '!'", token: "!",
                    offset: 13))
    }

    @Test func doubleBang() {
        #expect(parseError("a ! ! b")?.message == "unexpected '!' after '!': expected an element before '!'")
        #expect(parseError("a ! ! b")?.offset == 4)
    }

    @Test func propertyWithoutElement() {
        #expect(
            parseError("a ! name=x")
                == DescriptionError(
                    message: "property 'name=x' does not follow an element: expected an element name before it",
                    token: "name=x", offset: 4))
    }

    @Test func referenceInTheMiddleOfAChain() {
        #expect(
            parseError("a ! t. ! b")
                == DescriptionError(
                    message: "reference 't.' in the middle of a chain: a reference can only start a chain ('t. ! queue ...') "
                        + "or end one ('... ! t.')",
                    token: "t.", offset: 4))
    }

    @Test func unlinkedReference() {
        #expect(parseError("a ! b t.")?.message == "reference 't.' is not linked: expected 't. ! element' or 'element ! t.'")
    }

    @Test func binErrors() {
        #expect(parseError("a ! ( queue ! b")?.message == "bin '(' is not closed: expected ')'")
        #expect(parseError("a ! b )")?.message == "unexpected ')': no bin '(' is open")
        #expect(parseError("a ! ( ) ! b")?.message == "empty bin '( )': expected elements inside")
        #expect(parseError("a ! ( b ! ) ! c")?.message == "unexpected ')' after '!': expected an element after '!'")
    }

    @Test func lexerErrorsSurface() {
        #expect(parseError("videotestsrc pattern=")?.token == "pattern=")
        #expect(parseError(#"filesrc location="x"#)?.token == #"location="x"#)
    }

    // MARK: rendering

    @Test func renderNormalisesSpacing() throws {
        let parsed = try ParsedDescription.parse("fakesrc!queue   max-size-buffers = 3 !video/x-raw,width=2!  fakesink")
        #expect(parsed.render() == "fakesrc ! queue max-size-buffers=3 ! video/x-raw,width=2 ! fakesink")
    }

    @Test(arguments: [
        #"videotestsrc pattern = ball ! video/x-raw,width=1280, height=720 ! tee name=t t. ! queue ! filesink location="a b.mp4" t.src_%u ! ( queue ! video/x-raw(memory:GLMemory) ! identity ) ! fakesink"#,
        #"fakesrc name=a\ b\,c ! identity name='x\' y' ! fakesink name="q\"r""#,
        "fakesrc ! bin . ( name=b queue ) ! fakesink audiotestsrc ! b.",
        "fakesrc ! video/x-raw,format=I420;video/x-raw,format=NV12 ! fakesink fakesrc ! fakesink",
        "file:///tmp/x ! decodebin name=d d. ! queue ! fakesink",
    ])
    func renderRoundTrips(description: String) throws {
        let parsed = try ParsedDescription.parse(description)
        let rendered = parsed.render()
        let reparsed = try ParsedDescription.parse(rendered)
        #expect(texts(reparsed) == texts(parsed))
        #expect(reparsed.chains.map { $0.nodes.count } == parsed.chains.map { $0.nodes.count })
        #expect(reparsed.render() == rendered)
    }

    @Test func capsAtAChainEdgeCannotSwallowTheNextChain() throws {
        let handBuilt = ParsedDescription(chains: [
            DescriptionChain(nodes: [
                .element(factory: "videotestsrc", properties: [], offset: -1),
                .caps("video/x-raw, width=640", offset: -1),
            ]),
            DescriptionChain(nodes: [.element(factory: "fakesrc", properties: [], offset: -1)]),
        ])
        let rendered = handBuilt.render()
        #expect(rendered == #"videotestsrc ! capsfilter caps="video/x-raw, width=640" fakesrc"#)
        #expect(
            texts(try ParsedDescription.parse(rendered)) == [
                ["videotestsrc", #"capsfilter caps="video/x-raw, width=640""#], ["fakesrc"],
            ])
    }

    @Test func renderKeepsQuotingOfValues() throws {
        let parsed = try ParsedDescription.parse(#"filesrc location="a b.mp4" ! fakesink"#)
        #expect(parsed.render() == #"filesrc location="a b.mp4" ! fakesink"#)
    }

    // MARK: joinArguments

    @Test func joinArgumentsEscapesSpaces() {
        #expect(
            ParsedDescription.joinArguments(["filesrc", "location=a b.mp4", "!", "fakesink"])
                == #"filesrc location=a\ b.mp4 ! fakesink"#)
    }

    @Test func joinArgumentsLeavesQuotedSpaces() {
        #expect(
            ParsedDescription.joinArguments(["filesrc", #"location="a b.mp4""#, "!", "fakesink"])
                == #"filesrc location="a b.mp4" ! fakesink"#)
        #expect(ParsedDescription.joinArguments([#"name="a\" b" c"#]) == #"name="a\" b"\ c"#)
    }

    @Test func joinArgumentsKeepsDescriptionPieces() throws {
        // `viewfinder launch 'videotestsrc num-buffers=3 ! fakesink'`: one argument, kept as written.
        #expect(ParsedDescription.joinArguments(["videotestsrc num-buffers=3 ! fakesink"]) == "videotestsrc num-buffers=3 ! fakesink")
        #expect(
            ParsedDescription.joinArguments(["videotestsrc", "!", "grid lines=thirds", "!", "fakesink"])
                == "videotestsrc ! grid lines=thirds ! fakesink")
        let parsed = try ParsedDescription.parse(ParsedDescription.joinArguments(["videotestsrc num-buffers=3 ! fakesink"]))
        #expect(parsed.chains.count == 1 && parsed.chains[0].nodes.count == 2)
    }

    @Test func joinedArgumentsParse() throws {
        let joined = ParsedDescription.joinArguments(["filesrc", "location=a b.mp4", "!", "fakesink"])
        let parsed = try ParsedDescription.parse(joined)
        #expect(
            parsed.chains[0].nodes[0]
                == .element(
                    factory: "filesrc", properties: [prop("location", "a b.mp4", #"location=a\ b.mp4"#)], offset: 0))
    }

    // MARK: overrides

    @Test func overrideByFactoryThatAppearsOnce() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! grid lines=halves ! autovideosink")
        let result = try parsed.applying(overrides: ["grid.lines=thirds", "videotestsrc.pattern=ball"])
        #expect(result.render() == "videotestsrc pattern=ball ! grid lines=thirds ! autovideosink")
    }

    @Test func overrideByNameQuotesTheValue() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! x264enc ! filesink name=out location=a.mp4")
        let result = try parsed.applying(overrides: ["out.location=my clip.mp4"])
        #expect(
            result.chains[0].nodes[2]
                == .element(
                    factory: "filesink",
                    properties: [prop("name", "out"), prop("location", "my clip.mp4", #"location="my clip.mp4""#)],
                    offset: 25))
        #expect(result.render() == #"videotestsrc ! x264enc ! filesink name=out location="my clip.mp4""#)
    }

    @Test func overrideByAutomaticName() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! grid ! grid ! autovideosink")
        let result = try parsed.applying(overrides: ["grid1.color=red"])
        #expect(result.render() == "videotestsrc ! grid ! grid color=red ! autovideosink")
    }

    @Test func ambiguousOverride() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! grid ! grid name=g2 ! autovideosink")
        #expect(
            throws: DescriptionError(
                message: "ambiguous override 'grid.lines=thirds': 'grid' appears 2 times; use one of its names instead: "
                    + "grid0, g2",
                token: "grid", offset: -1)
        ) {
            try parsed.applying(overrides: ["grid.lines=thirds"])
        }
    }

    @Test func overrideWithoutMatch() throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! autovideosink")
        #expect(
            throws: DescriptionError(
                message: "override 'grid.lines=thirds' matches nothing: no element is named 'grid' and no 'grid' element "
                    + "is in the description (names: videotestsrc0, autovideosink0)",
                token: "grid", offset: -1)
        ) {
            try parsed.applying(overrides: ["grid.lines=thirds"])
        }
    }

    @Test(arguments: ["grid", "grid.lines", ".lines=x", "grid.=x", "lines=thirds"])
    func malformedOverride(override: String) throws {
        let parsed = try ParsedDescription.parse("videotestsrc ! grid ! autovideosink")
        #expect(
            throws: DescriptionError(
                message: "malformed override '\(override)': expected TARGET.PROPERTY=VALUE, e.g. grid.lines=thirds",
                token: override, offset: -1)
        ) {
            try parsed.applying(overrides: [override])
        }
    }

    @Test func overrideValueMayContainEqualsAndDots() throws {
        let parsed = try ParsedDescription.parse("appsrc ! capsfilter ! fakesink")
        let result = try parsed.applying(overrides: ["capsfilter.caps=video/x-raw,width=1.5"])
        #expect(result.render() == "appsrc ! capsfilter caps=video/x-raw,width=1.5 ! fakesink")
    }
}
