import Foundation
import TestSupport
import Testing

/// `packaging/viewfinder.1`, the man page the Debian package installs: groff reads it without a warning, and it stays
/// true to the CLI it describes: every subcommand `viewfinder --help` lists, every option `launch --help` and
/// `serve --help` print, the benchmarks `bench` accepts and the version `--version` prints are in it.
@Suite(.serialized, .tags(.process), .tier) struct ManPageTests {
    static let page = Tools.root.appendingPathComponent("packaging/viewfinder.1")

    /// The page as a reader sees it: groff's `\-` is a plain minus.
    static func text() throws -> String {
        try String(contentsOf: page, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
    }

    /// The `--long` options a help text names.
    static func options(in help: String) -> Set<String> {
        let pattern = /--[a-z][a-z-]+/
        return Set(help.matches(of: pattern).map { String($0.output) })
    }

    @Test func groffFormatsItWithoutAWarning() throws {
        let r = try Tools.run("/usr/bin/groff", ["-man", "-ww", "-z", Self.page.path], timeout: 30)
        #expect(r.code == 0 && r.err.isEmpty, "\(r.err)")
    }

    @Test func everySubcommandOptionAndBenchmarkOfTheCLIIsInIt() throws {
        let text = try Self.text()
        let help = try Tools.vf("--help")
        #expect(help.code == 0)
        // "SUBCOMMANDS:" then "  launch   Run a pipeline ..." lines (their wrapped abstracts indented further), up to
        // the blank line.
        let section = help.out.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        let subcommands = section.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0 != "help" }
        #expect(subcommands.count >= 7, "\(help.out)")
        for name in subcommands {
            #expect(text.contains(".B viewfinder \(name)") && text.contains(".B \(name)\n"), "\(name) is missing from the man page")
        }
        var options = Set<String>()
        for command in ["launch", "serve"] {
            let h = try Tools.vf("help", command)
            #expect(h.code == 0, "\(h.err)")
            options.formUnion(Self.options(in: h.out))
        }
        #expect(options.contains("--http") && options.contains("--discovery") && options.contains("--instance"), "\(options)")
        for option in options.sorted() {
            #expect(text.contains(option), "\(option) is missing from the man page")
        }
        // bench's list, as its error for an unknown benchmark gives it.
        let bench = try Tools.vf("bench", "nothing")
        let list = try #require(bench.err.components(separatedBy: "expected ").last)
        let kinds = list.replacingOccurrences(of: " or ", with: ", ").trimmingCharacters(in: .whitespacesAndNewlines)
        let flowing = text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: " or ", with: ", ")
        #expect(flowing.contains(kinds), "bench: \(kinds)")
        let version = try Tools.vf("--version").out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!version.isEmpty && text.contains("\"viewfinder \(version)\""), "--version: \(version)")
    }
}
