import Foundation
import Stages

/// A file answered over HTTP with byte ranges (RFC 9110 14, 15.3.7, 15.5.17): what a `<video>` element, a player
/// seeking in an mp4 whose moov is at its end, or `curl -r` need. Routes check the path first (listed, inside
/// its directory: `Gallery`); this only reads it.
///
/// - `Accept-Ranges: bytes` on every answer; `HEAD` gets the same head as `GET`, without a body (its
///   `Content-Length` is what the GET would send: `ControlHTTPServer` keeps a HEAD answer's own).
/// - `Range: bytes=A-B`, `A-`, `-N` (a suffix): 206 with `Content-Range: bytes A-B/SIZE` and only that slice,
///   read with a `FileHandle` at its offset. At most `sliceLimit` (8 MiB) is sent per answer, open-ended or not:
///   `Content-Range` says which bytes came, and players ask for the next ones. Several ranges are answered as the
///   one range covering them all (coalesced, RFC 9110 14.2), not as multipart.
/// - A range starting at or past the end, a suffix of 0, any range of an empty file: 416 with
///   `Content-Range: bytes */SIZE`.
/// - A Range header that is not `bytes=` or does not parse (`bytes=5-2`, `bytes=x`), and any request with `If-Range`
///   (no validator is given to match it): the Range is ignored, as RFC 9110 lets a server, and the whole file comes.
/// - The whole file (no Range): 200 with the file read at once up to `wholeLimit` (64 MiB). Larger files are still
///   200 with the whole file, streamed from the open file in `chunk`s with their `Content-Length` (a 206 is only ever
///   an answer to a Range, and a 416 only to an unsatisfiable one: neither may refuse a plain GET), so memory stays
///   bounded whatever the size. A file that shrinks while streamed ends the answer short (its connection closes).
/// - A file that cannot be opened: 404.
///
/// Threads: any (the connection's task); reads only the file.
enum RangeFile {
    /// Bytes sent at most for one range.
    static let sliceLimit: Int64 = 8 << 20
    /// Whole files up to this are read at once; larger ones are streamed.
    static let wholeLimit: Int64 = 64 << 20
    /// What one read of a streamed whole file reads.
    static let chunk = 1 << 20
    static let partial = ControlStatus(206, "Partial Content")
    static let unsatisfiable = ControlStatus(416, "Range Not Satisfiable")

    /// The answer to a `GET` or `HEAD` of the file at `path`.
    static func response(path: String, request: ControlRequest, contentType: String, downloadName: String?) -> ControlResponse {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return ControlRouter.error(.notFound, "no file \(Echo.value((path as NSString).lastPathComponent))")
        }
        let size = Int64(clamping: (try? handle.seekToEnd()) ?? 0)
        var headers: ControlHeaders = [
            "Content-Type": contentType, "Accept-Ranges": "bytes", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff",
        ]
        if let downloadName {
            headers["Content-Disposition"] = "attachment; filename=\"\(downloadName.replacingOccurrences(of: "\"", with: ""))\""
        }
        let head = request.method == .HEAD
        let asked = request.headers["If-Range"] == nil ? request.headers["Range"].flatMap(ranges) : nil
        guard let asked else { return whole(handle, size: size, headers: headers, head: head) }
        guard let (start, end) = satisfiable(asked, size: size) else {
            try? handle.close()
            return ControlRouter.error(
                unsatisfiable, "range \(Echo.value(request.headers["Range"] ?? "")) lies outside the file's \(size) bytes",
                headers: ["Accept-Ranges": "bytes", "Content-Range": "bytes */\(size)"])
        }
        let length = min(end - start + 1, sliceLimit)
        if head {
            try? handle.close()
            headers["Content-Range"] = "bytes \(start)-\(start + length - 1)/\(size)"
            headers["Content-Length"] = String(length)
            return ControlResponse(statusCode: partial, headers: headers)
        }
        let data = read(handle, from: start, count: Int(length))
        try? handle.close()
        guard let data, !data.isEmpty else {
            return ControlRouter.error(
                unsatisfiable, "the file ended before byte \(start)",
                headers: ["Accept-Ranges": "bytes", "Content-Range": "bytes */\(size)"])
        }
        headers["Content-Range"] = "bytes \(start)-\(start + Int64(data.count) - 1)/\(size)"
        return ControlResponse(statusCode: partial, headers: headers, body: data)
    }

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

    /// 200 with the whole file: read at once up to `wholeLimit`, streamed beyond.
    private static func whole(_ handle: FileHandle, size: Int64, headers: ControlHeaders, head: Bool) -> ControlResponse {
        var headers = headers
        if head || size > wholeLimit { headers["Content-Length"] = String(size) }
        if head {
            try? handle.close()
            return ControlResponse(statusCode: .ok, headers: headers)
        }
        if size <= wholeLimit {
            let data = read(handle, from: 0, count: Int(size)) ?? Data()
            try? handle.close()
            return ControlResponse(statusCode: .ok, headers: headers, body: data)
        }
        let reader = ChunkReader(handle: handle, size: size)
        return ControlResponse(
            statusCode: .ok, headers: headers, body: .stream(ControlStream(file: { reader.next() }, leave: { reader.close() })))
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file), nil when the read fails.
    static func read(_ handle: FileHandle, from offset: Int64, count: Int) -> Data? {
        do {
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: count) ?? Data()
        } catch { return nil }
    }

    private static func number(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(s)
    }

    /// A whole file's chunks in order, `size` bytes at most, then nil; closed when the connection ends.
    final class ChunkReader: @unchecked Sendable {
        private let lock = NSLock()
        private var handle: FileHandle?
        private var offset: Int64 = 0
        private let size: Int64

        init(handle: FileHandle, size: Int64) { self.handle = handle; self.size = size }

        func next() -> Data? {
            lock.lock()
            defer { lock.unlock() }
            guard let handle, offset < size else { return nil }
            guard let data = RangeFile.read(handle, from: offset, count: Int(min(Int64(RangeFile.chunk), size - offset))), !data.isEmpty
            else {
                return nil
            }
            offset += Int64(data.count)
            return data
        }

        func close() {
            lock.lock()
            defer { lock.unlock() }
            try? handle?.close()
            handle = nil
        }
    }
}
