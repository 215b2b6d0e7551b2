import Foundation
import GStreamerKit
import Stages
import Synchronization

/// A file answered with HTTP range support (RFC 9110 14), for video a page plays and seeks (`<video>` asks
/// `Range: bytes=0-`, then the parts it seeks to) and for downloads. Reads only what it sends.
///
/// - No `Range` (or one this does not take: several ranges, another unit, bad syntax, which RFC 9110 lets a server
///   ignore): 200 with the whole file; a file over `wholeLimit` is streamed in chunks instead of read at once.
/// - One satisfiable range `a-b`, `a-` or `-n`: 206 with `Content-Range: bytes a-b/size`, at most `sliceLimit` bytes
///   (a longer range gets its first `sliceLimit` bytes, and `Content-Range` says so: players ask for the rest).
/// - A range starting at or beyond the end (or `-0`): 416 with `Content-Range: bytes */size`.
/// Every answer says `Accept-Ranges: bytes`.
enum RangeFile {
    /// Bytes one 206 answer carries at most.
    static let sliceLimit = 8 << 20
    /// Bytes read whole for a 200; larger files are streamed.
    static let wholeLimit = 16 << 20
    /// Chunk of a streamed file.
    static let chunk = 256 << 10

    /// The answer for `path` (already checked to be servable) to `request`.
    static func response(path: String, request: ControlRequest, contentType: String, downloadName: String? = nil) -> ControlResponse {
        let notFound = ControlRouter.error(.notFound, "not found: \(Echo.value(request.rawPath))")
        guard let handle = FileHandle(forReadingAtPath: path) else { return notFound }
        guard let end = try? handle.seekToEnd(), let size = Int(exactly: end) else {
            try? handle.close()
            return notFound
        }
        var headers: ControlHeaders = ["Content-Type": contentType, "Accept-Ranges": "bytes", "Cache-Control": "no-cache"]
        if let downloadName { headers["Content-Disposition"] = "attachment; filename=\"\(downloadName)\"" }
        switch HTTPRange.parse(request.headers["Range"], size: size) {
        case .failure?:
            try? handle.close()
            headers["Content-Range"] = "bytes */\(size)"
            return ControlResponse(statusCode: .rangeNotSatisfiable, headers: headers, body: Data())
        case .success(let r)?:
            defer { try? handle.close() }
            let upper = min(r.upperBound, r.lowerBound + sliceLimit - 1)
            guard (try? handle.seek(toOffset: UInt64(r.lowerBound))) != nil, let data = try? handle.read(upToCount: upper - r.lowerBound + 1),
                data.count == upper - r.lowerBound + 1
            else { return ControlRouter.error(.internalServerError, "cannot read \(Echo.value(request.rawPath))") }
            headers["Content-Range"] = "bytes \(r.lowerBound)-\(upper)/\(size)"
            return ControlResponse(statusCode: .partialContent, headers: headers, body: data)
        case nil:
            guard size > wholeLimit else {
                defer { try? handle.close() }
                guard (try? handle.seek(toOffset: 0)) != nil, let data = try? handle.readToEnd() ?? Data() else {
                    return ControlRouter.error(.internalServerError, "cannot read \(Echo.value(request.rawPath))")
                }
                return ControlResponse(statusCode: .ok, headers: headers, body: data)
            }
            try? handle.seek(toOffset: 0)
            return ControlResponse(statusCode: .ok, headers: headers, body: .stream(ControlStream(reading: handle, size: size)))
        }
    }
}

extension ControlStream {
    /// A file's bytes in `RangeFile.chunk`s from where `handle` stands, `size` in all; the file is closed at the end or
    /// when the client goes.
    init(reading handle: FileHandle, size: Int) {
        let left = Mutex(size)
        next = {
            let n = left.withLock { min($0, RangeFile.chunk) }
            guard n > 0, let data = try? handle.read(upToCount: n), !data.isEmpty else { return nil }
            left.withLock { $0 -= data.count }
            return data
        }
        leave = { try? handle.close() }
    }
}

extension ControlStatus {
    public static let partialContent = ControlStatus(206, "Partial Content")
    public static let rangeNotSatisfiable = ControlStatus(416, "Range Not Satisfiable")
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
