import Testing

@testable import Host

/// Token kinds only, for compact expectations.
private func kinds(_ text: String) throws -> [DescriptionTokenKind] {
    try DescriptionLexer.tokenize(text).map(\.kind)
}

private func lexError(_ text: String) -> DescriptionError? {
    do {
        _ = try DescriptionLexer.tokenize(text)
        return nil
    } catch {
        return error
    }
}

@Suite struct DescriptionLexerTests {
    @Test func elementsAndLinks() throws {
        #expect(try kinds("fakesrc!fakesink") == [.element("fakesrc"), .link(caps: nil), .element("fakesink")])
        let tokens = try DescriptionLexer.tokenize("videotestsrc ! autovideosink")
        #expect(tokens.map(\.offset) == [0, 13, 15])
        #expect(tokens.map(\.end) == [12, 14, 28])
    }

    @Test func identifiersMayStartWithDigitOrUnderscore() throws {
        #expect(try kinds("3dfoo ! _bar") == [.element("3dfoo"), .link(caps: nil), .element("_bar")])
    }

    @Test func capsWithoutSpacesRunToTheNextBang() throws {
        let tokens = try DescriptionLexer.tokenize("a ! video/x-raw,width=1280,height=720 ! b")
        #expect(
            tokens.map(\.kind) == [
                .element("a"), .link(caps: "video/x-raw,width=1280,height=720"), .element("b"),
            ])
        #expect(tokens[1].text == "! video/x-raw,width=1280,height=720 !")
        #expect(tokens[1].capsOffset == 4)
    }

    @Test func capsWithSpacesBracesParensAndAlternatives() throws {
        #expect(try kinds("a ! video/x-raw, format=I420 ! b")[1] == .link(caps: "video/x-raw, format=I420"))
        #expect(try kinds("a ! video/x-raw,format={ I420, NV12 } ! b")[1] == .link(caps: "video/x-raw,format={ I420, NV12 }"))
        #expect(
            try kinds("a ! video/x-raw(memory:GLMemory),format=RGBA ! b")[1]
                == .link(caps: "video/x-raw(memory:GLMemory),format=RGBA"))
        #expect(try kinds("a ! video/x-raw;image/jpeg ! b")[1] == .link(caps: "video/x-raw;image/jpeg"))
    }

    @Test func capsNotFollowedByBangIsAnError() {
        let error = lexError("a ! video/x-raw,width=640")
        #expect(error?.token == "video/x-raw,width=640")
        #expect(error?.offset == 4)
        #expect(
            error?.message == "caps 'video/x-raw,width=640' are not followed by '!': a caps filter goes between "
                + "two elements, as in 'videotestsrc ! video/x-raw,width=640 ! autovideosink'")
    }

    @Test func assignmentWithSpacesAroundEquals() throws {
        let tokens = try DescriptionLexer.tokenize("queue max-size-buffers = 3")
        #expect(tokens[1].kind == .assignment(PropertyAssignment(key: "max-size-buffers", value: "3", text: "max-size-buffers=3")))
        #expect(tokens[1].text == "max-size-buffers = 3")
        #expect(try kinds("queue leaky=\n2")[1] == .assignment(PropertyAssignment(key: "leaky", value: "2", text: "leaky=2")))
    }

    @Test func doubleQuotedValue() throws {
        #expect(
            try kinds(#"filesrc location="a b.mp4""#)[1]
                == .assignment(PropertyAssignment(key: "location", value: "a b.mp4", text: #"location="a b.mp4""#)))
        #expect(
            try kinds(#"x name="a\" b""#)[1]
                == .assignment(PropertyAssignment(key: "name", value: #"a" b"#, text: #"name="a\" b""#)))
        #expect(try kinds(#"x name="""#)[1] == .assignment(PropertyAssignment(key: "name", value: "", text: #"name="""#)))
    }

    @Test func singleQuotedValue() throws {
        #expect(try kinds("x name='a b'")[1] == .assignment(PropertyAssignment(key: "name", value: "a b", text: "name='a b'")))
        #expect(
            try kinds(#"x name='a\' b'"#)[1]
                == .assignment(PropertyAssignment(key: "name", value: "a' b", text: #"name='a\' b'"#)))
    }

    @Test func backslashEscapesInBareValues() throws {
        #expect(
            try kinds(#"x location=a\ b.mp4 ! y"#) == [
                .element("x"),
                .assignment(PropertyAssignment(key: "location", value: "a b.mp4", text: #"location=a\ b.mp4"#)),
                .link(caps: nil), .element("y"),
            ])
        #expect(try kinds(#"x name=a\"b\"c"#)[1] == .assignment(PropertyAssignment(key: "name", value: #"a"b"c"#, text: #"name=a\"b\"c"#)))
    }

    @Test func quotedStringEndsTheValueWhenLonger() throws {
        // As in GStreamer: the longer of `"a` (a run) and `"a b"` (a quoted string) wins.
        #expect(
            try kinds(#"x name="a b"c"#) == [
                .element("x"), .assignment(PropertyAssignment(key: "name", value: "a b", text: #"name="a b""#)), .element("c"),
            ])
    }

    @Test func bareValueTakesEverythingUpToWhitespace() throws {
        #expect(try kinds("x name=a!y")[1] == .assignment(PropertyAssignment(key: "name", value: "a!y", text: "name=a!y")))
    }

    @Test func typedValuesStayVerbatim() throws {
        #expect(
            try kinds("videotestsrc pattern=(int)1")[1]
                == .assignment(PropertyAssignment(key: "pattern", value: "(int)1", text: "pattern=(int)1")))
        #expect(
            try kinds(#"x caps="video/x-raw, format=(string)I420""#)[1]
                == .assignment(
                    PropertyAssignment(
                        key: "caps", value: "video/x-raw, format=(string)I420",
                        text: #"caps="video/x-raw, format=(string)I420""#)))
    }

    @Test func childProxyKeys() throws {
        #expect(try kinds("x child::prop=1")[1] == .assignment(PropertyAssignment(key: "child::prop", value: "1", text: "child::prop=1")))
    }

    @Test func missingValueAtEnd() {
        let error = lexError("videotestsrc pattern=")
        #expect(
            error
                == DescriptionError(
                    message: "property 'pattern' has no value: expected a value after 'pattern='", token: "pattern=", offset: 13))
    }

    @Test func missingValueBeforeBang() {
        let error = lexError("videotestsrc pattern= ! fakesink")
        #expect(error?.message == "property 'pattern' has no value: expected a value after 'pattern=', found '!'")
        #expect(error?.offset == 13)
    }

    @Test func unterminatedQuote() {
        let error = lexError(#"filesrc location="a b.mp4 ! fakesink"#)
        #expect(
            error
                == DescriptionError(
                    message: #"unterminated quote in 'location="a': expected a closing " in the value of 'location'"#,
                    token: #"location="a"#, offset: 8))
        #expect(lexError("x name='abc")?.token == "name='abc")
    }

    @Test func references() throws {
        #expect(try kinds("t.") == [.reference(name: "t", pad: nil)])
        #expect(try kinds("t.src_%u") == [.reference(name: "t", pad: "src_%u")])
        #expect(try kinds("s.snapshot ! q") == [.reference(name: "s", pad: "snapshot"), .link(caps: nil), .element("q")])
        #expect(try kinds("t.src_0, src_1 ! q")[0] == .reference(name: "t", pad: "src_0,src_1"))
    }

    @Test func bins() throws {
        #expect(try kinds("( queue )") == [.binOpen(factory: nil), .element("queue"), .binClose])
        #expect(
            try kinds("bin.( name=b queue )") == [
                .binOpen(factory: "bin"), .assignment(PropertyAssignment(key: "name", value: "b", text: "name=b")),
                .element("queue"), .binClose,
            ])
        #expect(try kinds("bin . ( queue )")[0] == .binOpen(factory: "bin"))
    }

    @Test func uris() throws {
        #expect(try kinds("file:///tmp/a.mp4 ! decodebin") == [.url("file:///tmp/a.mp4"), .link(caps: nil), .element("decodebin")])
    }

    @Test func unsupportedSyntaxNamesTheToken() {
        #expect(lexError("a : b")?.message == "unsupported ':' (link all pads) at offset 2: expected '!' between elements")
        #expect(lexError("a .src ! b")?.token == ".src")
        #expect(lexError("a ! \"video/x-raw\" ! b")?.token == "\"video/x-raw\"")
        let error = lexError("identity @preset")
        #expect(error?.message == "unexpected '@preset': expected an element, '!', '(' or a reference 'name.'")
        #expect(error?.offset == 9)
    }
}
