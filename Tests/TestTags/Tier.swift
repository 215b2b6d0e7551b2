import Foundation
import Testing

/// Picks the tests of a pass by tag, from the environment (this toolchain's `swift test` has no `--filter tag:NAME`:
/// Swift Testing 6.3.1 reads `tag:live` as a regular expression over test IDs and matches nothing).
///
/// `VIEWFINDER_TEST_SKIP=live,evaluation` skips every test tagged with one of those tags (the tags of its suites
/// count); `VIEWFINDER_TEST_SKIPPED=FILE` appends the ID of each test or suite so skipped, one a line, so that a
/// later pass can run exactly those (`launch/test`). Neither set: every test runs, as with a plain `swift test`.
///
/// Put `.tier` next to `.tags(...)` on every suite (or test) that has tags: it is recursive, so one on a suite
/// gates each of its tests by that test's own tags too.
public struct Tier: TestTrait, SuiteTrait {
    public var isRecursive: Bool { true }

    /// The tags skipped in this process (`VIEWFINDER_TEST_SKIP`, comma-separated names without the dot).
    public static let skipped: Set<String> = {
        let text = ProcessInfo.processInfo.environment["VIEWFINDER_TEST_SKIP"] ?? ""
        return Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }()

    /// Whether tests with `tags` run in this process.
    public static func runs(_ tags: Set<Tag>) -> Bool { excluded(tags).isEmpty }

    /// The skipped tags among `tags`, sorted.
    static func excluded(_ tags: Set<Tag>) -> [String] {
        tags.map { String(describing: $0).trimmingCharacters(in: CharacterSet(charactersIn: ".")) }.filter(skipped.contains).sorted()
    }

    public func prepare(for test: Test) async throws {
        let tags = Self.excluded(test.tags)
        guard !tags.isEmpty else { return }
        Self.record(test)
        // A ConditionTrait's skip: reported as skipped with the reason, as `.disabled` would be.
        try await ConditionTrait.disabled("tier: tagged \(tags.joined(separator: ", ")), skipped in this pass").prepare(for: test)
    }

    private static let lock = NSLock()

    /// Appends the test's ID to `VIEWFINDER_TEST_SKIPPED`'s file.
    static func record(_ test: Test) {
        guard let path = ProcessInfo.processInfo.environment["VIEWFINDER_TEST_SKIPPED"], !path.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        let line = Data((String(describing: test.id) + "\n").utf8)
        if let h = FileHandle(forWritingAtPath: path) {
            h.seekToEndOfFile()
            h.write(line)
            h.closeFile()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: line)
        }
    }
}

extension Trait where Self == Tier {
    /// Gates the suite or test by its tags (`Tier`).
    public static var tier: Self { Tier() }
}
