import Foundation
import Stages

/// Which segments a `recordings` element's retention deletes (a pure function: `Recorder` stats the files and
/// deletes what this picks).
///
/// - **age**: a segment whose end (its file's modification time) lies more than `maxAge` seconds before `now` (the
///   host clock's `wallNow`);
/// - **size**: then, while all the element's segments together (the protected ones included) take more than
///   `maxSize` bytes, the oldest remaining one (lowest index first), but never the newest: a segment larger than
///   `maxSize` alone stays (while being written, and after the run: the last recording is not lost to the limit);
/// - never a **protected** one: the segment being written (the last opened, not closed) and any this run has not
///   seen closed yet.
///
/// A limit of 0 is no limit.
public enum RetentionPolicy {
    /// A segment as the policy sees it.
    public struct Candidate: Sendable, Equatable {
        public var file: String
        public var bytes: Int64
        /// Its end (modification time); nil when unknown (never deleted for age).
        public var modified: Date?

        public init(file: String, bytes: Int64, modified: Date?) { self.file = file; self.bytes = bytes; self.modified = modified }
    }

    /// One segment to delete and why.
    public struct Victim: Sendable, Equatable {
        public var file: String
        public var bytes: Int64
        public var reason: RecordingsMessage.Reason

        public init(file: String, bytes: Int64, reason: RecordingsMessage.Reason) {
            self.file = file; self.bytes = bytes; self.reason = reason
        }
    }

    /// The segments of `segments` (oldest first) to delete, age first, then size; none of `protected`.
    public static func victims(
        _ segments: [Candidate], protected: Set<String>, maxAge: Int, maxSize: Int64, now: Date
    ) -> [Victim] {
        var out: [Victim] = []
        var gone = Set<String>()
        if maxAge > 0 {
            for s in segments where !protected.contains(s.file) {
                guard let m = s.modified, now.timeIntervalSince(m) > Double(maxAge) else { continue }
                out.append(Victim(file: s.file, bytes: s.bytes, reason: .age))
                gone.insert(s.file)
            }
        }
        if maxSize > 0 {
            var total = segments.filter { !gone.contains($0.file) }.reduce(Int64(0)) { $0 + max(0, $1.bytes) }
            let newest = segments.last?.file
            for s in segments where total > maxSize && s.file != newest && !protected.contains(s.file) && !gone.contains(s.file) {
                out.append(Victim(file: s.file, bytes: s.bytes, reason: .size))
                gone.insert(s.file)
                total -= max(0, s.bytes)
            }
        }
        return out
    }
}
