import Stages
import Testing

@Suite struct StageInspectorTests {
    @Test(arguments: StageRegistry.all.map { $0.descriptor.kind })
    func textListsEveryPropertyWithDefaultAndRange(kind: String) throws {
        let d = try #require(StageRegistry.type(of: kind)).descriptor
        let text = StageInspector.text(for: d)
        #expect(text.hasPrefix("Stage Details:\n  Name\t\t\t\(kind)\n  Description\t\t\(d.blurb)\n"))
        #expect(text.contains(d.formats.joined(separator: ", ")))
        for p in d.properties {
            #expect(text.contains("  \(p.name.padding(toLength: 20, withPad: " ", startingAt: 0)): \(p.blurb)\n"), "\(p.name)")
            #expect(text.contains("\(p.type.name). Range: \(p.type.rangeText) Default: \"\(p.defaultText)\"\n"), "\(p.name)")
        }
        for o in d.outputs { #expect(text.contains("  \(o.name): \(o.blurb) (link as NAME.\(o.name))")) }
    }

    @Test func gridPropertiesInDetail() {
        let text = StageInspector.text(for: GridStage.descriptor)
        #expect(text.contains("Double. Range: 0.5 - 40.0 Default: \"2\""))
        #expect(text.contains("Color. Range: #rrggbb, #rrggbbaa or a colour name Default: \"#ffffffc0\""))
        #expect(text.contains("Flags. Range: any of thirds, golden,"))
        #expect(text.contains("Default: \"thirds\""))
        // All three grid properties may change while playing.
        #expect(text.components(separatedBy: "flags: changeable while playing").count - 1 == 3)
        #expect(!text.contains("changeable before start"))
    }

    @Test func snapshotListsMutabilityAndOutput() {
        let text = StageInspector.text(for: SnapshotStage.descriptor)
        #expect(text.contains("Integer list. Range: comma-separated frame numbers, e.g. 0,30,60 Default: \"\""))
        #expect(text.contains("Integer. Range: 1 - 100 Default: \"90\""))
        #expect(text.contains("String. Range: any text Default: \"snapshot-%05d.jpg\""))
        #expect(text.contains("Boolean. Range: true, false Default: \"true\""))
        #expect(text.components(separatedBy: "flags: changeable while playing").count - 1 == 3)
        #expect(text.components(separatedBy: "flags: changeable before start").count - 1 == 3)
        #expect(text.contains("  snapshot: the clean frame at each trigger, with its timestamps (link as NAME.snapshot)\n"))
        #expect(text.contains("  src: the processed frames (linked by '!')\n"))
    }

    @Test func stageWithoutPropertiesSaysNone() {
        let text = StageInspector.text(for: PassthroughStage.descriptor)
        #expect(text.hasSuffix("Stage Properties:\n  none\n"))
        #expect(text.contains("Input/Output formats (raw video):\n  ANY\n"))
    }
}
