import Foundation

/// A `Range` request header (RFC 9110 14.1.2) as a file server takes it: one byte range. Foundation only, fuzzed with
/// the command decoders (`launch/fuzz commands`).
enum HTTPRange {
    /// The header cannot be satisfied for this size (416).
    struct Unsatisfiable: Error, Equatable {}

    /// The byte range `header` asks of a file of `size` bytes: nil when there is no header or it is one a server may
    /// ignore (another unit, several ranges, bad syntax: the whole file is answered); `.failure` when the one range
    /// starts at or past the end (or is `-0`). A satisfied range lies inside `0..<size`.
    static func parse(_ header: String?, size: Int) -> Result<ClosedRange<Int>, Unsatisfiable>? {
        guard let header, header.utf8.count <= 200, size >= 0 else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        // Digits only, at most 18 of them: the value always fits an Int.
        func number(_ s: String) -> Int? { s.isEmpty || s.count > 18 || !s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? nil : Int(s) }
        if first.isEmpty {
            guard let n = number(last) else { return nil }
            guard n > 0, size > 0 else { return .failure(Unsatisfiable()) }
            return .success(max(0, size - n)...(size - 1))
        }
        guard let a = number(first) else { return nil }
        let b: Int
        if last.isEmpty {
            b = size - 1
        } else {
            guard let v = number(last), v >= a else { return nil }
            b = min(v, size - 1)
        }
        guard a < size else { return .failure(Unsatisfiable()) }
        return .success(a...b)
    }
}
