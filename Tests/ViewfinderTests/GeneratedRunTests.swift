import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Host

/// Generated descriptions (DescriptionGenerator in .run mode: bounded test sources, fakesinks, files in
/// a temp directory that is the current directory) run by the real binary: none hangs (still running
/// 10 s after the start and 5 s after a Ctrl-C), none dies of a signal, every exit code is 0, 1 or 2,
/// and every exit-2 message names a token of the description (MessageCheck.namesToken).
@Suite(.tags(.process), .tier) struct GeneratedRunTests {
    static let seed: UInt64 = 0xB1A5_2026
    static let count = 80

    @Test func generatedDescriptionsEndWithACleanExitCode() throws {
        let tmp = Tools.tempDir()
        defer { try? FileManager.default.removeItem(at: tmp) }
        var generator = DescriptionGenerator(seed: Self.seed, mode: .run, tmp: tmp.path)
        let corpus = DescriptionGenerator.corpus()
        let descriptions = (0..<Self.count).map { _ in generator.next(corpus: corpus) }

        // Two at a time (the CI machine has two cores).
        let results = Mutex<[Int: Tools.Result]>([:])
        DispatchQueue.concurrentPerform(iterations: descriptions.count) { i in
            let r = try? Tools.run(Tools.viewfinder, ["launch", descriptions[i]], cwd: tmp, timeout: 10, interruptGrace: 5)
            results.withLock { $0[i] = r }
        }
        let all = results.withLock { $0 }
        var codes: [Int32: Int] = [:]
        for (i, d) in descriptions.enumerated() {
            guard let r = all[i] else {
                Issue.record("could not start the binary for \(d.debugDescription)")
                continue
            }
            if r.hung || r.signal != nil {
                let what = r.hung ? "hang (killed after 10 s + 5 s after SIGINT)" : "signal \(r.signal ?? 0)"
                Issue.record("\(what) running \(d.debugDescription): \(r.err.suffix(2000))")
                continue
            }
            codes[r.code, default: 0] += 1
            #expect([0, 1, 2].contains(r.code), "exit \(r.code) for \(d.debugDescription): \(r.err.suffix(2000))")
            if r.code == 2 {
                #expect(MessageCheck.namesToken(r.err, description: d), "\(r.err) -- for \(d.debugDescription)")
            }
        }
        print("generated runs: exit codes \(codes.sorted { $0.key < $1.key })")
        #expect(codes[0, default: 0] >= Self.count / 10, "\(codes)")
    }
}
