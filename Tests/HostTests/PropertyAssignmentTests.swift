import Testing

@testable import Host

@Suite struct PropertyAssignmentTests {
    @Test(arguments: [
        ("thirds", "thirds"),
        ("(int)5", "(int)5"),
        ("a b", #""a b""#),
        (#"a"b"#, #""a\"b""#),
        (#"a\b"#, #""a\\b""#),
        ("it's", #""it's""#),
        ("x!y", #""x!y""#),
        ("", #""""#),
    ])
    func quoting(value: String, written: String) {
        #expect(PropertyAssignment.quoted(value) == written)
    }

    @Test(arguments: ["thirds", "a b", #"a"b\c"#, "it's", "x!y", "", "tab\tx", #"a\"#])
    func quotedValuesLexBackUnchanged(value: String) throws {
        let assignment = PropertyAssignment(key: "name", value: value)
        let parsed = try ParsedDescription.parse("fakesrc \(assignment.text) ! fakesink")
        guard case .element(_, let properties, _) = parsed.chains[0].nodes[0] else {
            Issue.record("expected an element")
            return
        }
        #expect(properties == [assignment])
    }

    @Test func unescapeFollowsGstLaunch() {
        #expect(PropertyAssignment.unescape(#""a b""#) == "a b")
        #expect(PropertyAssignment.unescape(#"a\ b"#) == "a b")
        #expect(PropertyAssignment.unescape(#""a\\b""#) == #"a\b"#)
        #expect(PropertyAssignment.unescape(#""a\"b""#) == #"a"b"#)
        #expect(PropertyAssignment.unescape("'a b'") == "a b")
        #expect(PropertyAssignment.unescape(#"x"a\b"y"#) == #"x"a\b"y"#)
    }
}
