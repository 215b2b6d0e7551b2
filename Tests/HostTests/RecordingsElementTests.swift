import Foundation
import Host
import TestSupport
import Testing

/// `recordings` becomes a real splitmuxsink before planning (what `--print-expanded` shows), numbered on from the
/// segments already in its directory; its properties are refused as a stage's are (exit 2, the token and what was
/// expected); building it creates nothing.
@Suite struct RecordingsElementTests {
    static let encode = "videotestsrc num-buffers=1 ! x264enc ! h264parse ! "

    static func expanded(_ tail: String) throws -> String { try Session(description: encode + tail).plan.render() }

    static func refusal(_ tail: String) -> String? {
        do {
            _ = try Session(description: encode + tail)
            return nil
        } catch { return error.kind == .usage ? error.message : "not a usage error: \(error.message)" }
    }

    @Test func becomesASplitmuxsinkWithTheDefaults() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let existed = FileManager.default.fileExists(atPath: (cwd as NSString).appendingPathComponent("recordings"))
        let text = try Self.expanded("recordings")
        #expect(
            text.contains(
                "h264parse ! splitmuxsink name=vf_rec0 location=recordings/REC_%05d.mp4 max-size-time=60000000000 send-keyframe-requests=true muxer-factory=mp4mux start-index=0"
            ), "\(text)")
        #expect(!text.contains("recordings max"))
        // Nothing is made while building (a --dry-run writes nothing).
        #expect(FileManager.default.fileExists(atPath: (cwd as NSString).appendingPathComponent("recordings")) == existed)
    }

    @Test func startsOnePastTheHighestSegmentAlreadyThereWhateverItsFormat() throws {
        let d = Tools.tempDir().path
        for f in ["REC_00003.mp4", "REC_00007.mkv", "REC_00012.txt", "REC_7.mp4", "IMG_00099.jpg", "clip.mp4"] {
            FileManager.default.createFile(atPath: d + "/" + f, contents: Data("x".utf8))
        }
        try FileManager.default.createDirectory(atPath: d + "/REC_00050.ts", withIntermediateDirectories: false)
        let text = try Self.expanded("recordings name=cam directory=\(d) segment=5 format=ts max-size=20G max-age=7d")
        #expect(
            text.contains(
                "splitmuxsink name=cam location=\(d)/REC_%05d.ts max-size-time=5000000000 send-keyframe-requests=true muxer-factory=mpegtsmux start-index=8"
            ), "\(text)")
        #expect(try Self.expanded("recordings directory=\(d) format=mkv").contains("location=\(d)/REC_%05d.mkv"))
        #expect(try Self.expanded("recordings directory=\(d) format=MKV").contains("muxer-factory=matroskamux"))
    }

    @Test func refusesBadValuesNamingTheTokenAndWhatWasExpected() throws {
        let file = Tools.tempDir().appendingPathComponent("a-file").path
        FileManager.default.createFile(atPath: file, contents: Data())
        let cases: [(String, String)] = [
            (
                "recordings max-size=20Q",
                "recordings: bad value '20Q' for property 'max-size': expected size: a whole number of bytes with an optional K, M, G or T suffix (powers of 1024, e.g. 500M, 20G), or 0 for no limit"
            ),
            (
                "recordings max-age=7w",
                "recordings: bad value '7w' for property 'max-age': expected duration: a whole number with a unit s, m, h or d (e.g. 90m, 12h, 7d), or 0 for no limit"
            ),
            ("recordings max-age=60", "recordings: bad value '60' for property 'max-age': expected duration"),
            ("recordings max-size=-1G", "recordings: bad value '-1G' for property 'max-size'"),
            ("recordings segment=0", "recordings: bad value '0' for property 'segment': expected integer 1 - 3600"),
            ("recordings format=avi", "recordings: bad value 'avi' for property 'format': expected enum mp4, mkv, ts"),
            (
                "recordings colour=red",
                "recordings: no property 'colour'; properties are: name, directory, segment, max-age, max-size, format"
            ),
            ("recordings directory=\(file)", "recordings: cannot use directory '\(file)': '\(file)' is a file, not a directory"),
            ("recordings directory=\(file)/sub", "recordings: cannot use directory '\(file)/sub': '\(file)' is a file, not a directory"),
            // Not writable even by root (procfs).
            ("recordings directory=/proc/1", "recordings: cannot use directory '/proc/1': directory '/proc/1' is not writable"),
            ("recordings directory=/proc/1/rec", "directory '/proc/1/rec' cannot be created: '/proc/1' is not writable"),
            ("recordings directory=\"\"", "recordings: empty directory=: expected a directory"),
            (
                "tee name=t ! queue ! recordings directory=x  t. ! queue ! recordings directory=./x",
                "both write into './x': expected a directory= of its own"
            ),
        ]
        for (tail, expected) in cases {
            let message = Self.refusal(tail)
            #expect(message?.contains(expected) == true, "\(tail): \(message ?? "accepted")")
        }
    }

    @Test func aDirectoryThatCannotBeWrittenIsRefusedWhenNotRoot() throws {
        guard getuid() != 0 else { return }  // root ignores permission bits: /proc/1 above is the case for root
        let d = Tools.tempDir().appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: d.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: d.path) }
        #expect(Self.refusal("recordings directory=\(d.path)")?.contains("is not writable") == true)
    }

    @Test func itsPlanCarriesTheLimits() throws {
        let session = try Session(
            description: Self.encode + "recordings name=r directory=\(Tools.tempDir().path) max-age=36h max-size=1536K")
        let plan = try #require(session.recorders.first?.plan)
        #expect(plan.name == "r" && plan.maxAge == 36 * 3600 && plan.maxSize == 1536 * 1024 && plan.segment == 60 && plan.format == .mp4)
        #expect(plan.limitsText == "segment 60 s, max-age 36h, max-size 1536K")
    }
}
