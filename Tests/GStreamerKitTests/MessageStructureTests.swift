import GStreamerKit
import Testing

@Suite struct MessageStructureTests {
    /// Posts `structure` from the element `src` of a fresh pipeline and pops the element message.
    private func postAndPop(_ structure: MessageStructure) throws -> Message {
        let pipeline = try Pipeline.parse("fakesrc name=src ! fakesink")
        let src = try #require(pipeline.element(named: "src"))
        src.postElementMessage(structure)
        let bus = pipeline.bus
        while let m = bus.pop(timeout: 0) {
            if case .element = m.kind { return m }
        }
        Issue.record("no element message on the bus")
        throw GStreamerError(.core, "no element message")
    }

    @Test func typedFieldsAppearInTheMessage() throws {
        let m = try postAndPop(
            MessageStructure(
                "viewfinder/snapshot",
                [
                    ("stage", .string("snap")), ("shot", .int(3)), ("frame", .uint64(42)),
                    ("ratio", .double(0.5)), ("pushed", .bool(true)),
                ]))
        #expect(m.source == "src")
        #expect(m.sourceFactory == "fakesrc")
        guard case .element(let structure) = m.kind else { Issue.record("not an element message: \(m)"); return }
        let fields = structure.text
        #expect(structure.name == "viewfinder/snapshot")
        #expect(structure.fields.map(\.0) == ["stage", "shot", "frame", "ratio", "pushed"])
        #expect(structure.integer("shot") == 3 && structure.string("stage") == "snap" && structure.bool("pushed") == true)
        #expect(
            fields == "viewfinder/snapshot, stage=(string)snap, shot=(int)3, frame=(guint64)42, ratio=(double)0.5, pushed=(boolean)true;")
    }

    @Test func negativeAndLargeNumbersKeepTheirTypes() throws {
        let m = try postAndPop(
            MessageStructure(
                "viewfinder/test",
                [
                    ("n", .int(-7)), ("pts", .uint64(UInt64.max)), ("off", .bool(false)),
                ]))
        guard case .element(let structure) = m.kind else { Issue.record("not an element message"); return }
        let fields = structure.text
        #expect(fields.contains("n=(int)-7"))
        #expect(fields.contains("pts=(guint64)18446744073709551615"))
        #expect(fields.contains("off=(boolean)false"))
    }

    @Test func stringsWithSpacesAreQuoted() throws {
        let m = try postAndPop(MessageStructure("viewfinder/test", [("reason", .string("two words"))]))
        guard case .element(let structure) = m.kind else { Issue.record("not an element message"); return }
        let fields = structure.text
        #expect(fields == "viewfinder/test, reason=(string)\"two\\ words\";")
    }

    @Test func aStructureWithoutFieldsIsJustItsName() throws {
        let m = try postAndPop(MessageStructure("viewfinder/ping"))
        #expect(m.kind == .element(MessageStructure("viewfinder/ping")))
        if case .element(let structure) = m.kind { #expect(structure.text == "viewfinder/ping;") }
        #expect(m.description.hasPrefix("src: "))
    }

    @Test func fieldsKeepTheirOrder() {
        var s = MessageStructure("viewfinder/x", [("a", .int(1))])
        s.fields.append(("b", .bool(true)))
        #expect(s.name == "viewfinder/x")
        #expect(s.fields.map(\.0) == ["a", "b"])
    }

    @Test func parsingGStreamersTextKeepsTypesAndRoundTrips() throws {
        let text =
            "GstMultiFileSink, filename=(string)\"/tmp/a\\ b/IMG_00001.jpg\", index=(int)1, timestamp=(guint64)4733333333, offset=(guint64)18446744073709551615, ok=(boolean)true, ratio=(double)0.5, size=(uint)7, when=(datetime)2026-11-22T10:00:00Z;"
        let m = try #require(MessageStructure(parsing: text))
        #expect(m.name == "GstMultiFileSink")
        #expect(m.string("filename") == "/tmp/a b/IMG_00001.jpg")
        #expect(m.integer("index") == 1)
        #expect(m.integer("timestamp") == 4_733_333_333)
        #expect(m.integer("offset").map { UInt64(bitPattern: $0) } == UInt64.max)
        #expect(m.bool("ok") == true && m.double("ratio") == 0.5 && m.integer("size") == 7)
        #expect(m.string("when")?.hasPrefix("2026-11-22T10:00:00") == true)
        let back = try #require(MessageStructure(parsing: MessageStructure("x/y", [("s", .string("a b;c")), ("n", .int(-3))]).text))
        #expect(back.string("s") == "a b;c" && back.integer("n") == -3)
        #expect(MessageStructure(parsing: "not a structure, =broken") == nil)
    }
}
