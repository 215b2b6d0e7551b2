import Overlay
import Stages
import Testing

@Suite struct PropertySpecTests {
    /// Parses `text`, expecting a usage error that names the stage, the property, the token and `expected`.
    private func expectRejected(
        _ spec: PropertySpec, _ text: String, token: String? = nil, expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let v = try spec.parse(text, stage: "stage7")
            Issue.record("'\(text)' was accepted as \(v)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.domain == .usage, sourceLocation: sourceLocation)
            let m = error.message
            #expect(m.hasPrefix("stage7: "), "\(m)", sourceLocation: sourceLocation)
            #expect(m.contains("property '\(spec.name)'"), "\(m)", sourceLocation: sourceLocation)
            #expect(m.contains("'\(token ?? text)'"), "\(m)", sourceLocation: sourceLocation)
            #expect(m.contains(expected), "\(m)", sourceLocation: sourceLocation)
        }
    }

    @Test func boolAcceptsTheUsualSpellings() throws {
        let spec = PropertySpec("manual", "blurb", .bool, default: "true")
        for t in ["true", "yes", "1", "on", "TRUE", "Yes"] { #expect(try spec.parse(t, stage: "s") == .bool(true), "\(t)") }
        for t in ["false", "no", "0", "off", "False"] { #expect(try spec.parse(t, stage: "s") == .bool(false), "\(t)") }
        expectRejected(spec, "maybe", expected: "expected boolean true, false")
        expectRejected(spec, "", expected: "true, false")
    }

    @Test func intChecksItsRange() throws {
        let spec = PropertySpec("quality", "blurb", .int(1...100), default: "90")
        #expect(try spec.parse("1", stage: "s") == .int(1))
        #expect(try spec.parse("100", stage: "s") == .int(100))
        #expect(try spec.parse("42", stage: "s") == .int(42))
        expectRejected(spec, "0", expected: "expected integer 1 - 100")
        expectRejected(spec, "101", expected: "1 - 100")
        expectRejected(spec, "ninety", expected: "1 - 100")
        expectRejected(spec, "4.5", expected: "1 - 100")
    }

    @Test func doubleChecksItsRangeAndFiniteness() throws {
        let spec = PropertySpec("width", "blurb", .double(0.5...40), default: "2")
        #expect(try spec.parse("0.5", stage: "s") == .double(0.5))
        #expect(try spec.parse("40", stage: "s") == .double(40))
        #expect(try spec.parse("2.25", stage: "s") == .double(2.25))
        expectRejected(spec, "0.4", expected: "expected double 0.5 - 40.0")
        expectRejected(spec, "41", expected: "0.5 - 40.0")
        expectRejected(spec, "nan", expected: "0.5 - 40.0")
        expectRejected(spec, "inf", expected: "0.5 - 40.0")
        expectRejected(spec, "wide", expected: "0.5 - 40.0")
    }

    @Test func stringTakesAnyText() throws {
        let spec = PropertySpec("location", "blurb", .string, default: "x.jpg")
        #expect(try spec.parse("shots/IMG_%05d.jpg", stage: "s") == .string("shots/IMG_%05d.jpg"))
        #expect(try spec.parse("", stage: "s") == .string(""))
        #expect(try spec.parse("a \"quoted\" name", stage: "s") == .string("a \"quoted\" name"))
    }

    @Test func choiceTakesOneOfItsWords() throws {
        let spec = PropertySpec("mode", "blurb", .choice(["auto", "manual", "off"]), default: "auto")
        #expect(try spec.parse("manual", stage: "s") == .choice("manual"))
        expectRejected(spec, "Manual", expected: "expected enum auto, manual, off")
        expectRejected(spec, "auto+off", expected: "auto, manual, off")
    }

    @Test func setTakesWordsJoinedByPlusOrComma() throws {
        let spec = PropertySpec("lines", "blurb", .set(["thirds", "golden", "center"]), default: "thirds")
        #expect(try spec.parse("golden", stage: "s") == .set(["golden"]))
        #expect(try spec.parse("thirds+center", stage: "s") == .set(["thirds", "center"]))
        #expect(try spec.parse("center,golden", stage: "s") == .set(["center", "golden"]))
        expectRejected(spec, "thirds+bogus", token: "bogus", expected: "expected flags any of thirds, golden, center joined by '+'")
        expectRejected(spec, "", expected: "any of thirds, golden, center")
        expectRejected(spec, "+", expected: "any of thirds, golden, center")
    }

    @Test func colorTakesHexAndNames() throws {
        let spec = PropertySpec("color", "blurb", .color, default: "#ffffffc0")
        #expect(try spec.parse("#ff0000", stage: "s") == .color(RGBAColor(red8: 255, green8: 0, blue8: 0)))
        #expect(try spec.parse("#00ff0080", stage: "s") == .color(RGBAColor(red8: 0, green8: 255, blue8: 0, alpha8: 0x80)))
        #expect(try spec.parse("red", stage: "s") == .color(.red))
        expectRejected(spec, "#zzzzzz", expected: "expected color #rrggbb, #rrggbbaa or a colour name")
        expectRejected(spec, "#ff00", expected: "#rrggbb, #rrggbbaa")
        expectRejected(spec, "mauve-ish", expected: "#rrggbb, #rrggbbaa")
    }

    @Test func intListTakesSortedNonNegativeNumbers() throws {
        let spec = PropertySpec("at", "blurb", .intList, default: "")
        #expect(try spec.parse("", stage: "s") == .intList([]))
        #expect(try spec.parse("10,3", stage: "s") == .intList([3, 10]))
        #expect(try spec.parse("0, 30 ,60", stage: "s") == .intList([0, 30, 60]))
        expectRejected(spec, "3,-1", token: "-1", expected: "expected integer list comma-separated frame numbers")
        expectRejected(spec, "3,x", token: "x", expected: "comma-separated frame numbers, e.g. 0,30,60")
    }

    @Test func typeNamesAndRangesForInspect() {
        #expect(PropertyType.bool.name == "Boolean")
        #expect(PropertyType.int(0...5).name == "Integer")
        #expect(PropertyType.double(0...1).name == "Double")
        #expect(PropertyType.string.name == "String")
        #expect(PropertyType.choice(["a"]).name == "Enum")
        #expect(PropertyType.set(["a"]).name == "Flags")
        #expect(PropertyType.color.name == "Color")
        #expect(PropertyType.intList.name == "Integer list")
        #expect(PropertyType.int(0...1_000_000).rangeText == "0 - 1000000")
        #expect(PropertyType.double(0...86_400).rangeText == "0.0 - 86400.0")
        #expect(PropertyType.choice(["a", "b"]).rangeText == "a, b")
        #expect(PropertyType.string.rangeText == "any text")
    }

    @Test func valuesPrintBackAsDescriptionText() throws {
        #expect(PropertyValue.bool(true).description == "true")
        #expect(PropertyValue.int(-3).description == "-3")
        #expect(PropertyValue.double(2).description == "2")
        #expect(PropertyValue.double(2.5).description == "2.5")
        #expect(PropertyValue.set(["thirds", "golden"]).description == "thirds+golden")
        #expect(PropertyValue.intList([3, 10]).description == "3,10")
        #expect(PropertyValue.color(RGBAColor(red8: 255, green8: 255, blue8: 255, alpha8: 0xc0)).description == "#ffffffc0")
        // The printed text parses back to the same value.
        let spec = PropertySpec("width", "blurb", .double(0.5...40), default: "2")
        #expect(try spec.parse(PropertyValue.double(2.5).description, stage: "s") == .double(2.5))
    }

    @Test func mutabilityAndDefaults() {
        let spec = PropertySpec("interval", "Seconds between shots", .double(0...10), default: "0", mutability: .playing)
        #expect(spec.name == "interval")
        #expect(spec.blurb == "Seconds between shots")
        #expect(spec.defaultText == "0")
        #expect(spec.mutability == .playing)
        #expect(PropertySpec("at", "b", .intList, default: "").mutability == .beforeStart)
        #expect(PropertyMutability.playing.rawValue == "while playing")
        #expect(PropertyMutability.beforeStart.rawValue == "before start")
    }

    /// A huge bad value is quoted cut to 80 characters, with an ellipsis and its length.
    @Test func hugeBadValuesAreCutInMessages() throws {
        let big = String(repeating: "y", count: 10_000)
        do {
            _ = try PropertySpec("n", "b", .int(0...5), default: "0").parse(big, stage: "s")
            Issue.record("accepted")
        } catch {
            #expect(
                error.message.hasPrefix("s: bad value '" + String(repeating: "y", count: 80) + "… (10000 characters)' for property 'n'"),
                "\(error.message)")
        }
        #expect(Echo.value("short") == "short")
        #expect(Echo.description("videotestsrc pattern=\(big) ! fakesink") == "videotestsrc pattern=… ! fakesink")
        #expect(
            Echo.message("could not set \"p\" to \"\(big)\"") == "could not set \"p\" to \"" + String(repeating: "y", count: 80)
                + "… (10000 characters)\"")
    }
}
