import Foundation
import Stages
import TestSupport
import Testing

@testable import Host

/// Thousands of generated descriptions (DescriptionGenerator: valid ones mutated) through parse, plan
/// and build in this process: each one builds, or throws a HostError with a message, and an exit-2
/// message names a token of the description (MessageCheck.namesToken says what that means).
@Suite(.serialized) struct GeneratedDescriptionTests {
    static let seed: UInt64 = 0x5EED_2026
    static let generated = 2000

    /// Inputs that once crashed the description code (found by launch/fuzz or by this test), as regressions.
    static let regressions: [String] = [
        // launch/fuzz: a value ending in a backslash before a line break swallowed the next word once
        // rendered into a segment (`name=a\ y`); the first one is the fuzzer's own input.
        "videotetsrc ! grid nameviddotestsrc ! grid\nname='vi=eotome='\0\\\nbbbbb='x y' ! fakeshiinkeo",
        "videotestsrc ! grid name=a\\\nfakesink",
        "videotestsrc ! grid name=a\\\\\nfakesink",
        "file:///a\\\nvideotestsrc ! grid ! fakesink",
    ]

    /// Stages that write when they are made (capture's directory, compose's metadata-location) get a
    /// path under `tmp`, however the mutations moved or dropped their properties: tests cannot change
    /// the current directory, and relative paths would land in the package. Appends a property after
    /// the stage's last one (the last assignment wins), so everything else is kept as generated.
    static func keepWritesUnder(_ tmp: String, _ description: String, index: Int) -> String {
        guard let tokens = try? DescriptionLexer.tokenize(description) else { return description }
        var chars = Array(description)
        var inserts: [(Int, String)] = []
        var k = 0
        while k < tokens.count {
            guard case .element(let factory) = tokens[k].kind, factory == "capture" || factory == "compose" else { k += 1; continue }
            let key = factory == "capture" ? "directory" : "metadata-location"
            var value: String? = nil
            var end = tokens[k].end
            k += 1
            while k < tokens.count, case .assignment(let a) = tokens[k].kind {
                if a.key == key { value = a.value }
                end = tokens[k].end
                k += 1
            }
            let safe: Bool
            switch value {
            case nil: safe = factory == "compose"  // compose writes nothing by default; capture writes ./photos
            case let v?:
                safe =
                    v.isEmpty
                    ? factory == "compose"
                    : DescriptionGenerator.harmlessWrittenPath(v, tmp: tmp, mode: .inProcess) == v && !v.contains("..")
            }
            if !safe { inserts.append((end, " \(key)=\(tmp)/w\(index)-\(inserts.count)")) }
        }
        for (at, text) in inserts.reversed() { chars.insert(contentsOf: text, at: at) }
        return String(chars)
    }

    struct Tally { var built = 0, usage = 0, runtime = 0 }

    /// Builds `description` in this process and checks the outcome.
    static func check(_ description: String, tmp: URL, tally: inout Tally) throws {
        do {
            _ = try Session(description: description)
            tally.built += 1
        } catch {
            #expect(!error.message.isEmpty, "empty message for \(description.debugDescription)")
            if error.exitCode == 2 {
                tally.usage += 1
                #expect(
                    MessageCheck.namesToken(error.message, description: description),
                    "message names no token: \(error.message.debugDescription) for \(description.debugDescription)")
            } else {
                tally.runtime += 1
            }
        }
    }

    static func tempDir() -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-generated-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Found by launch/fuzz: a value or URI ending in a backslash (possible only before a line break or
    /// at the end) is refused, naming it; before, rendering it into a segment made the backslash escape
    /// the joining space, so `grid name=a\` + newline + `fakesink` became one property `name=a\ fakesink`.
    @Test func trailingBackslashIsRefusedNotGluedToTheNextWord() throws {
        let cases: [(String, String)] = [
            ("videotestsrc ! grid name=a\\\nfakesink", "property 'name' ends with a backslash in 'name=a\\'"),
            ("videotestsrc ! grid name=a\\\\\nfakesink", "property 'name' ends with a backslash in 'name=a\\\\'"),
            ("videotestsrc ! filesink location=x\\", "property 'location' ends with a backslash in 'location=x\\'"),
            ("file:///a\\\nvideotestsrc ! grid ! fakesink", "URI 'file:///a\\' ends with a backslash"),
        ]
        for (description, expected) in cases {
            #expect(throws: DescriptionError.self) { try ParsedDescription.parse(description) }
            do {
                _ = try Session(description: description)
                Issue.record("no error for \(description.debugDescription)")
            } catch {
                #expect(error.exitCode == 2)
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        // An escaped space inside a value and a quoted value ending in a backslash stay accepted.
        let parsed = try ParsedDescription.parse("videotestsrc ! grid name=a\\ b ! fakesink name=\"c\\\\\"")
        #expect(parsed.chains[0].nodes.map(\.explicitName) == [nil, "a b", "c\\"])
        #expect(
            try ParsedDescription.parse(parsed.render()).chains.map { $0.nodes.map(\.text) } == parsed.chains.map { $0.nodes.map(\.text) })
    }

    @Test func handWrittenCorpusBuilds() throws {
        let tmp = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: tmp) }
        for d in DescriptionGenerator.handWritten {
            let description = d.replacingOccurrences(of: "@T", with: tmp.path)
            #expect(throws: Never.self, "\(description)") { _ = try Session(description: description) }
        }
    }

    @Test func generatedDescriptionsBuildOrNameTheBadToken() throws {
        let tmp = Self.tempDir()
        defer { try? FileManager.default.removeItem(at: tmp) }
        var generator = DescriptionGenerator(seed: Self.seed, mode: .inProcess, tmp: tmp.path)
        let corpus = DescriptionGenerator.corpus()
        var descriptions = corpus.map { $0.replacingOccurrences(of: "@T", with: tmp.path) } + Self.regressions
        for _ in 0..<Self.generated { descriptions.append(generator.next(corpus: corpus)) }

        let root = DescriptionGenerator.root.path
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
        var tally = Tally()
        for (i, d) in descriptions.enumerated() {
            try Self.check(Self.keepWritesUnder(tmp.path, d, index: i), tmp: tmp, tally: &tally)
        }
        // Nothing was written into the package directory, and the mix is not degenerate.
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []) == before)
        #expect(tally.built + tally.usage + tally.runtime == descriptions.count)
        #expect(tally.built >= descriptions.count / 10, "\(tally)")
        #expect(tally.usage >= descriptions.count / 3, "\(tally)")
        print("generated descriptions: \(tally)")
    }
}
