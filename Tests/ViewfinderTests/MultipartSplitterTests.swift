import Foundation
import Testing

@testable import ViewfinderBench

/// The bench's preview-stream parser: parts split at any chunk boundary, JPEG size from the SOF segment.
@Suite struct MultipartSplitterTests {
    /// SOI, an APP0 segment (16 bytes), SOF0 of 640x360, then filler: what the parser reads of a JPEG.
    static func jpeg(fill: UInt8) -> Data {
        var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + [UInt8](repeating: 0, count: 14)
        b += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x68, 0x02, 0x80, 0x03] + [UInt8](repeating: 1, count: 9)
        b += [UInt8](repeating: fill, count: 50) + [0xFF, 0xD9]
        return Data(b)
    }

    static func part(_ jpeg: Data) -> Data {
        Data("--vfpreviewframe\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg + Data("\r\n".utf8)
    }

    @Test func partsComeOutWhole_whateverTheChunks() {
        let a = Self.jpeg(fill: 0x0D), b = Self.jpeg(fill: 0x0A)
        let body = Self.part(a) + Self.part(b)
        for size in [1, 7, 64, body.count] {
            var splitter = MultipartSplitter()
            var parts: [Data] = []
            var i = 0
            while i < body.count {
                parts += splitter.add(body.subdata(in: i..<min(body.count, i + size)))
                i += size
            }
            #expect(parts == [a, b], "chunks of \(size)")
        }
    }

    @Test func jpegSizeComesFromTheStartOfFrame() throws {
        let size = try #require(MultipartSplitter.jpegSize(Self.jpeg(fill: 0)))
        #expect(size.width == 640)
        #expect(size.height == 360)
        #expect(MultipartSplitter.jpegSize(Data([0xFF, 0xD8, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09])) == nil)
    }

    @Test func eventLinesGiveTheirDataPayloads() {
        var lines = EventLineSplitter()
        #expect(lines.add(Data(": connected\n\ndata: {\"a\"".utf8)).isEmpty)
        #expect(lines.add(Data(":1}\n\n: ping\n\ndata: 2\n".utf8)) == [Data("{\"a\":1}".utf8), Data("2".utf8)])
    }
}
