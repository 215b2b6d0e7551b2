import Foundation
import Stages
import TestTags
import Testing

/// libgstviewfinder.so as stock gst-inspect-1.0 sees it: every stage an element, every property with its
/// type, range, default and when it may change; a plugin that cannot load is named, with the loader's reason.
@Suite(.serialized, .tags(.process), .tier) struct PluginLoadTests {
    /// gst-inspect-1.0 output with runs of spaces collapsed (its columns are padded).
    static func squeezed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    @Test func inspectListsOneElementPerStage() throws {
        let r = try PluginTools.inspect("viewfinder")
        try #require(r.code == 0, "gst-inspect-1.0 viewfinder failed: \(r.err)\n\(PluginTools.loadDiagnosis())")
        let kinds = StageRegistry.all.map { $0.descriptor.kind }
        #expect(kinds.count == 9)
        for k in kinds { #expect(r.out.contains("  vf\(k): Viewfinder \(k) stage"), "vf\(k) missing:\n\(r.out)") }
        #expect(r.out.contains("\(kinds.count) elements"))
        #expect(r.out.contains("libgstviewfinder.so"))
    }

    /// Every PropertySpec of compose appears with its blurb, its GObject type and, for numbers, the spec's
    /// range and default; `.playing` ones are changeable while playing, the others only before start.
    @Test func vfcomposeShowsEveryPropertyWithRangeAndDefault() throws {
        let r = try PluginTools.inspect("vfcompose")
        try #require(r.code == 0, "\(r.err)\n\(PluginTools.loadDiagnosis())")
        let text = r.out
        let specs = ComposeStage.descriptor.properties
        #expect(specs.count > 10)
        for spec in specs {
            // The block of this property: from "  name  :" to the next property line.
            let lines = text.components(separatedBy: "\n")
            guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(spec.name) ") && $0.contains(":") }) else {
                Issue.record("property \(spec.name) missing")
                continue
            }
            var block = [lines[start]]
            for l in lines[(start + 1)...] {
                if !l.hasPrefix("    ") { break }
                block.append(l)
            }
            let b = Self.squeezed(block.joined(separator: "\n"))
            #expect(b.contains(Self.squeezed(spec.blurb)), "\(spec.name): \(b)")
            let mutable = spec.mutability == .playing ? "changeable in NULL, READY, PAUSED or PLAYING state" : "changeable only in NULL or READY state"
            #expect(b.contains(mutable), "\(spec.name): \(b)")
            let def = try spec.parse(spec.defaultText, stage: "compose")
            switch spec.type {
            case .int(let range):
                #expect(b.contains("Integer. Range: \(range.lowerBound) - \(range.upperBound) Default: \(def)"), "\(spec.name): \(b)")
            case .double(let range):
                let g = { (v: Double) in String(format: "%.7g", v) }
                let d: Double = if case .double(let v) = def { v } else { .nan }
                #expect(b.contains("Double. Range: \(g(range.lowerBound)) - \(g(range.upperBound)) Default: \(g(d))"), "\(spec.name): \(b)")
            case .bool:
                #expect(b.contains("Boolean. Default: \(def)"), "\(spec.name): \(b)")
            case .choice(let words):
                #expect(b.contains("Enum \"GstVfcompose-\(spec.name)\" Default: \(words.firstIndex(of: "\(def)") ?? -1), \"\(def)\""), "\(spec.name): \(b)")
                for (i, w) in words.enumerated() { #expect(b.contains("(\(i)): \(w) - \(w)"), "\(spec.name): \(w)") }
            case .set(let words):
                // Flags: one bit per word in declared order; gst-launch takes `a+b`.
                let parts: [String] = if case .set(let p) = def { p } else { [] }
                let mask = parts.reduce(0) { $0 | (1 << (words.firstIndex(of: $1) ?? 31)) }
                let head = "Flags \"GstVfcompose-\(spec.name)\" Default: \(String(format: "0x%08x", mask)), \"\(parts.joined(separator: "+"))\""
                #expect(b.contains(head), "\(spec.name): \(b)")
            case .string, .color, .intList:
                #expect(b.contains("String. Default: \"\(def)\""), "\(spec.name): \(b)")
            }
        }
        // Pad templates: raw video in the overlay formats, in and out.
        #expect(text.contains("SINK template: 'sink'") && text.contains("SRC template: 'src'"))
        #expect(text.contains("format: { (string)I420"))
    }

    /// capture's extra outputs are request pads named like the outputs.
    @Test func vfcaptureOffersItsOutputsAsRequestPads() throws {
        let r = try PluginTools.inspect("vfcapture")
        try #require(r.code == 0, "\(r.err)\n\(PluginTools.loadDiagnosis())")
        for o in CaptureStage.descriptor.outputs {
            #expect(r.out.contains("SRC template: '\(o.name)'"), "\(o.name)")
        }
        #expect(Self.squeezed(r.out).contains("Availability: On request"))
    }

    /// The same library under a name that does not match its gst_plugin_viewfinder_get_desc is refused by
    /// GStreamer with a message naming the file, and the refusal is kept in the private registry only.
    @Test func aPluginUnderTheWrongNameIsReportedByGstInspect() throws {
        let dir = PluginTools.tempDir()
        let wrong = dir.appendingPathComponent("libgstvfwrong.so")
        try FileManager.default.createSymbolicLink(at: wrong, withDestinationURL: PluginTools.library.resolvingSymlinksInPath())
        let registry = dir.appendingPathComponent("registry.bin")
        let env = PluginTools.environment(pluginDir: dir, registry: registry)
        let direct = try PluginTools.run("/usr/bin/gst-inspect-1.0", [wrong.path], environment: env)
        #expect(direct.code != 0)
        #expect(direct.err.contains("Could not load plugin file") && direct.err.contains("libgstvfwrong.so"), "\(direct.err)")
        #expect(direct.err.contains("is not a GStreamer plugin"), "\(direct.err)")
        let blacklist = try PluginTools.run("/usr/bin/gst-inspect-1.0", ["-b"], environment: env)
        #expect(blacklist.out.contains("libgstvfwrong.so"), "\(blacklist.out)")
        #expect(FileManager.default.fileExists(atPath: registry.path))
        // The right name in the same registry loads.
        let right = try PluginTools.run("/usr/bin/gst-inspect-1.0", [PluginTools.library.path], environment: env)
        #expect(right.code == 0 && right.out.contains("vfgrid"), "\(right.err)")
    }

    /// Every element runs frames in stock gst-launch-1.0 on I420 and on RGBA (chromakey takes RGBA only), with
    /// its defaults (files, where a stage writes any, in a temporary directory).
    @Test func everyElementProcessesFramesInStockGstLaunch() throws {
        let dir = PluginTools.tempDir()
        for kind in StageRegistry.all.map({ $0.descriptor.kind }) {
            let extra: String
            switch kind {
            case "capture": extra = " directory=\(dir.path)/photos"
            case "snapshot": extra = " location=\(dir.path)/snap-%03d.jpg interval=0.1"
            case "compose": extra = " sync=true warmup=0"
            default: extra = ""
            }
            let format = kind == "chromakey" ? "RGBA" : "I420"
            let r = try PluginTools.launch(
                "videotestsrc num-buffers=10 ! video/x-raw,format=\(format),width=320,height=240,framerate=30/1 ! vf\(kind)\(extra) ! fakesink")
            #expect(r.code == 0, "vf\(kind): \(r.err)\n\(PluginTools.loadDiagnosis())")
        }
        // snapshot's default branch wrote its files (interval 0.1 s over 1/3 s of stream).
        let shots = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("snap-") }
        #expect(shots.count >= 2, "\(shots)")
    }
}
