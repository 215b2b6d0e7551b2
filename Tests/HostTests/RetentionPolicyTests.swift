import Foundation
import Host
import Testing

/// Which segments retention picks: age first (from each segment's end), then the oldest while over the size, never a
/// protected one nor, for size, the newest.
@Suite struct RetentionPolicyTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func segment(_ i: Int, kb: Int64, endedAgo: Double?) -> RetentionPolicy.Candidate {
        RetentionPolicy.Candidate(
            file: String(format: "REC_%05d.mp4", i), bytes: kb * 1024, modified: endedAgo.map { now.addingTimeInterval(-$0) })
    }

    @Test func sizeDeletesTheOldestFirstUntilUnderTheLimit() {
        let s = (0..<5).map { Self.segment($0, kb: 100, endedAgo: Double(50 - $0 * 10)) }
        let v = RetentionPolicy.victims(s, protected: [], maxAge: 0, maxSize: 250 * 1024, now: Self.now)
        #expect(v.map(\.file) == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mp4"])
        #expect(v.allSatisfy { $0.reason == .size && $0.bytes == 100 * 1024 })
        #expect(RetentionPolicy.victims(s, protected: [], maxAge: 0, maxSize: 500 * 1024, now: Self.now).isEmpty)
        #expect(RetentionPolicy.victims(s, protected: [], maxAge: 0, maxSize: 0, now: Self.now).isEmpty)
    }

    @Test func ageDeletesWhatEndedLongerAgoThanTheLimit() {
        let s = [
            Self.segment(0, kb: 1, endedAgo: 7200), Self.segment(1, kb: 1, endedAgo: 3601), Self.segment(2, kb: 1, endedAgo: 3600),
            Self.segment(3, kb: 1, endedAgo: nil),
        ]
        let v = RetentionPolicy.victims(s, protected: [], maxAge: 3600, maxSize: 0, now: Self.now)
        #expect(
            v == [
                RetentionPolicy.Victim(file: "REC_00000.mp4", bytes: 1024, reason: .age),
                RetentionPolicy.Victim(file: "REC_00001.mp4", bytes: 1024, reason: .age),
            ])
    }

    @Test func neverAProtectedSegmentNorForSizeTheNewest() {
        // The open one counts in the total but stays; so does the newest even when it alone is over the limit.
        let s = (0..<4).map { Self.segment($0, kb: 100, endedAgo: 99_999) }
        let open: Set = ["REC_00003.mp4"]
        #expect(
            RetentionPolicy.victims(s, protected: open, maxAge: 0, maxSize: 50 * 1024, now: Self.now).map(\.file)
                == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mp4"])
        #expect(
            RetentionPolicy.victims(s, protected: open, maxAge: 60, maxSize: 0, now: Self.now).map(\.file)
                == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mp4"])
        #expect(
            RetentionPolicy.victims(s, protected: [], maxAge: 0, maxSize: 50 * 1024, now: Self.now).map(\.file)
                == ["REC_00000.mp4", "REC_00001.mp4", "REC_00002.mp4"])
        // Age spares nothing for being newest.
        #expect(RetentionPolicy.victims(s, protected: [], maxAge: 60, maxSize: 0, now: Self.now).count == 4)
    }

    @Test func ageFirstThenSizeOverWhatRemains() {
        let s = [
            Self.segment(0, kb: 300, endedAgo: 10_000), Self.segment(1, kb: 100, endedAgo: 10),
            Self.segment(2, kb: 100, endedAgo: 5), Self.segment(3, kb: 100, endedAgo: 1),
        ]
        let v = RetentionPolicy.victims(s, protected: [], maxAge: 3600, maxSize: 250 * 1024, now: Self.now)
        #expect(v.map(\.reason) == [.age, .size])
        #expect(v.map(\.file) == ["REC_00000.mp4", "REC_00001.mp4"])
    }
}
