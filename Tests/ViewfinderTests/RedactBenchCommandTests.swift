import Foundation
import TestSupport
import Testing

/// `viewfinder bench redact`, run small through the binary (the report's shape and sane figures, not the measurement).
@Suite(.serialized, .tags(.process), .tier) struct RedactBenchCommandTests {
    @Test func aSmallRunReportsBothMethodsOnEveryPhotoAsJSON() throws {
        let r = try Tools.run(
            Tools.viewfinder, ["bench", "redact", "--frames", "3", "--video", "/nonexistent.avi", "--json"], cwd: Tools.root, timeout: 300)
        #expect(r.code == 0, "\(r.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let scenarios = try #require(json["scenarios"] as? [[String: Any]])
        #expect(scenarios.compactMap { $0["name"] as? String } == ["t1", "family", "multi_face", "obama"])
        for s in scenarios {
            let methods = try #require(s["methods"] as? [[String: Any]])
            #expect(methods.compactMap { $0["method"] as? String } == ["redact", "faceblur"])
            for m in methods {
                #expect(m["frames"] as? Int == 3 && m["truthFrames"] as? Int == 3, "\(m)")
                #expect((m["meanMs"] as? Double ?? 0) > 0)
            }
            // The stage covers every labelled face from the first frame (sync detects it); faceblur's blur keeps them.
            #expect(methods[0]["leakedFrames"] as? Int == 0, "\(s["name"] ?? ""): \(methods[0])")
            #expect((methods[1]["leakedFaces"] as? Int ?? 0) > 0)
        }
    }
}
