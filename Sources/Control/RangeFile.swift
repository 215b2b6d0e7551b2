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
        let asked = request.headers["If-Range"] == nil ? request.headers["Range"].flatMap(HTTPRange.ranges) : nil
        guard let asked else { return whole(handle, size: size, headers: headers, head: head) }
        guard let (start, end) = HTTPRange.satisfiable(asked, size: size) else {
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
