import Foundation
import TestSupport
import Testing

@testable import Control

/// `RangeFile.response` on real files: whole answers, 206 slices (bounded), 416, ignored ranges, HEAD, and a file
/// above the whole-file limit streamed with its length.
@Suite struct RangeFileTests {
    /// A file of `count` bytes, byte i = i % 251 (sparse beyond `written`: zeros).
    static func file(_ count: Int, written: Int? = nil) throws -> String {
        let path = Tools.tempDir().appendingPathComponent("f.mp4").path
        let n = min(count, written ?? count)
        #expect(FileManager.default.createFile(atPath: path, contents: Data((0..<n).map { UInt8($0 % 251) })))
        if count > n {
            let h = try #require(FileHandle(forWritingAtPath: path))
            try h.truncate(atOffset: UInt64(count))
            try h.close()
        }
        return path
    }

    static func get(_ path: String, range: String? = nil, method: ControlMethod = .GET, extra: ControlHeaders = [:]) -> ControlResponse {
        var headers = extra
        if let range { headers["Range"] = range }
        return RangeFile.response(
            path: path, request: ControlRequest(method: method, target: "/x", headers: headers), contentType: "video/mp4", downloadName: nil
        )
    }

    static func body(_ r: ControlResponse) -> Data? { if case .bytes(let d) = r.body { return d }; return nil }
    static func expected(_ range: ClosedRange<Int>) -> Data { Data(range.map { UInt8($0 % 251) }) }

    @Test func aWholeFileIsA200WithAcceptRanges() throws {
        let p = try Self.file(1000)
        let r = Self.get(p)
        #expect(r.statusCode.code == 200 && Self.body(r) == Self.expected(0...999))
        #expect(r.headers["Accept-Ranges"] == "bytes" && r.headers["Content-Type"] == "video/mp4" && r.headers["Content-Range"] == nil)
        let d = RangeFile.response(
            path: p, request: ControlRequest(method: .GET, target: "/x"), contentType: "video/mp4", downloadName: "REC_00001.mp4")
        #expect(d.headers["Content-Disposition"] == "attachment; filename=\"REC_00001.mp4\"")
    }

    @Test func rangesAreAnsweredWith206AndOnlyTheirBytes() throws {
        let p = try Self.file(1000)
        let cases: [(String, String, ClosedRange<Int>)] = [
            ("bytes=0-99", "bytes 0-99/1000", 0...99), ("bytes=100-", "bytes 100-999/1000", 100...999),
            ("bytes=-10", "bytes 990-999/1000", 990...999), ("bytes=990-5000", "bytes 990-999/1000", 990...999),
            ("bytes=-5000", "bytes 0-999/1000", 0...999), ("bytes=999-999", "bytes 999-999/1000", 999...999),
            // Several ranges: one part covering them (coalesced), never multipart.
            ("bytes=10-19, 50-59", "bytes 10-59/1000", 10...59), ("bytes=5000-, 20-29", "bytes 20-29/1000", 20...29),
            ("Bytes = 0-0", "bytes 0-0/1000", 0...0), ("bytes=0-1,,", "bytes 0-1/1000", 0...1),
        ]
        for (range, contentRange, bytes) in cases {
            let r = Self.get(p, range: range)
            #expect(r.statusCode.code == 206 && r.statusCode.reason == "Partial Content", "\(range)")
            #expect(r.headers["Content-Range"] == contentRange, "\(range): \(r.headers["Content-Range"] ?? "none")")
            #expect(Self.body(r) == Self.expected(bytes), "\(range)")
            #expect(r.headers["Accept-Ranges"] == "bytes")
        }
    }

    @Test func anUnsatisfiableRangeIs416WithTheSize() throws {
        let p = try Self.file(1000)
        for range in ["bytes=1000-", "bytes=5000-6000", "bytes=-0", "bytes=1000-1000, 2000-"] {
            let r = Self.get(p, range: range)
            #expect(r.statusCode.code == 416 && r.headers["Content-Range"] == "bytes */1000", "\(range)")
            #expect(r.headers["Content-Type"] == "application/json")
        }
        let empty = try Self.file(0)
        #expect(Self.get(empty, range: "bytes=0-").statusCode.code == 416)
        #expect(Self.get(empty, range: "bytes=-1").headers["Content-Range"] == "bytes */0")
        #expect(Self.get(empty).statusCode.code == 200)
    }

    @Test func aRangeThatDoesNotParseOrComesWithIfRangeIsIgnored() throws {
        let p = try Self.file(300)
        for range in ["items=0-1", "bytes=5-2", "bytes=x-", "bytes=-", "bytes=", "bytes=1-2-3", "bytes=,", "0-10"] {
            let r = Self.get(p, range: range)
            #expect(r.statusCode.code == 200 && Self.body(r)?.count == 300, "\(range)")
        }
        let r = Self.get(p, range: "bytes=0-9", extra: ["If-Range": "\"some-etag\""])
        #expect(r.statusCode.code == 200 && Self.body(r)?.count == 300)
    }

    @Test func aSliceIsAtMost8MiBWhateverWasAsked() throws {
        let size = 20 << 20
        let p = try Self.file(size, written: 1 << 20)
        for range in ["bytes=100-", "bytes=100-\(size - 1)", "bytes=-\(size)"] {
            let r = Self.get(p, range: range)
            let start = range == "bytes=-\(size)" ? 0 : 100
            #expect(r.headers["Content-Range"] == "bytes \(start)-\(start + (8 << 20) - 1)/\(size)", "\(range)")
            #expect(Self.body(r)?.count == 8 << 20)
        }
        #expect(Self.body(Self.get(p, range: "bytes=100-"))?.prefix(10) == Self.expected(100...109))
    }

    @Test func headIsTheHeadOfTheSameGetWithoutABody() throws {
        let p = try Self.file(1000)
        let whole = Self.get(p, method: .HEAD)
        #expect(whole.statusCode.code == 200 && Self.body(whole)?.isEmpty == true && whole.headers["Content-Length"] == "1000")
        let part = Self.get(p, range: "bytes=10-19", method: .HEAD)
        #expect(part.statusCode.code == 206 && Self.body(part)?.isEmpty == true)
        #expect(part.headers["Content-Length"] == "10" && part.headers["Content-Range"] == "bytes 10-19/1000")
    }

    @Test func aFileAboveTheWholeLimitIsStreamedWhole() async throws {
        let size = Int(RangeFile.wholeLimit) + 12345
        let p = try Self.file(size, written: 3000)
        let r = Self.get(p)
        #expect(r.statusCode.code == 200 && r.headers["Content-Length"] == String(size))
        guard case .stream(let stream) = r.body else {
            Issue.record("expected a stream")
            return
        }
        #expect(!stream.live, "a file is written through the usual socket buffers")
        var count = 0
        var first = Data()
        while let chunk = await stream.next() {
            if first.isEmpty { first = chunk.prefix(3000) }
            #expect(chunk.count <= RangeFile.chunk)
            count += chunk.count
        }
        stream.leave()
        #expect(count == size && first == Self.expected(0...2999))
    }

    @Test func aFileThatCannotBeOpenedIs404() {
        #expect(Self.get("/nonexistent/REC_00000.mp4").statusCode.code == 404)
    }
}
