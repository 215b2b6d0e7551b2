import Foundation

/// A `Range` request header (RFC 9110 14.1.2) as `RangeFile` takes it. Foundation only, fuzzed with the command decoders
/// (`launch/fuzz commands`).
enum HTTPRange {
    /// A Range header's byte ranges as written (`nil` start: a suffix of `end` bytes; `nil` end: to the end), nil
    /// when it is not `bytes=` or does not parse (then it is ignored).
    static func ranges(_ header: String) -> [(start: Int64?, end: Int64?)]? {
        let parts = header.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return nil }
        var out: [(start: Int64?, end: Int64?)] = []
        for spec in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            let s = spec.trimmingCharacters(in: .whitespaces)
            if s.isEmpty { continue }  // empty list elements are ignored (RFC 9110 5.6.1)
            guard let dash = s.firstIndex(of: "-") else { return nil }
            let a = s[..<dash], b = s[s.index(after: dash)...]
            let start = a.isEmpty ? nil : number(a), end = b.isEmpty ? nil : number(b)
            guard (a.isEmpty || start != nil) && (b.isEmpty || end != nil), start != nil || end != nil else { return nil }
            if let start, let end, end < start { return nil }
            out.append((start, end))
        }
        return out.isEmpty ? nil : out
    }

    /// The one range covering every satisfiable range of `asked` (first byte, last byte), nil when none is.
    static func satisfiable(_ asked: [(start: Int64?, end: Int64?)], size: Int64) -> (Int64, Int64)? {
        var covering: (Int64, Int64)?
        for r in asked {
            let span: (Int64, Int64)
            switch (r.start, r.end) {
            case (let a?, let b):
                guard a < size else { continue }
                span = (a, min(b ?? size - 1, size - 1))
            case (nil, let n?):
                guard n > 0, size > 0 else { continue }
                span = (max(0, size - n), size - 1)
            case (nil, nil): continue
            }
            covering = covering.map { (min($0.0, span.0), max($0.1, span.1)) } ?? span
        }
        return covering
    }

    static func number(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(s)  // nil beyond Int64: the header is then ignored
    }

    /// The one range (first and last byte) a header asks of a file of `size` bytes: nil when there is no header or it is
    /// ignored (not `bytes=`, unparsable: the whole file is answered); `.failure` when no range of it can be satisfied.
    static func parse(_ header: String?, size: Int64) -> Result<ClosedRange<Int64>, Unsatisfiable>? {
        guard let asked = header.flatMap(ranges) else { return nil }
        guard let (a, b) = satisfiable(asked, size: size) else { return .failure(Unsatisfiable()) }
        return .success(a...b)
    }

    /// No range of the header lies in the file (416).
    struct Unsatisfiable: Error, Equatable {}
}
