import Foundation
import Testing

@testable import Host

/// Whole-file replacement: new content, the old permissions, no temp file; a failure leaves the old file.
struct AtomicFileTests {
    @Test func replacesContentKeepingPermissions() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = "\(dir)/a.txt"
        try "old".write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o640)
        try AtomicFile.write(Data("new content".utf8), to: file)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "new content")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.txt"])
        try AtomicFile.remove(file)
        try AtomicFile.remove(file)  // already gone: no error
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aWriteIntoAMissingDirectoryFailsWithTheReason() {
        #expect {
            try AtomicFile.write(Data("x".utf8), to: "/nonexistent-dir/a.txt")
        } throws: { e in
            ((e as? AtomicFile.Failure)?.reason ?? "").contains("No such file or directory")
        }
    }
}
