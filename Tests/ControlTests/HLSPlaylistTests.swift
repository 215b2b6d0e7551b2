import Foundation
import Testing

@testable import Control

/// `HLSPlaylist.parse`: a playlist is served only when complete (hlssink2 writes its first one in place), and
/// only its plain segment names are servable.
@Suite struct HLSPlaylistTests {
    static let full =
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-TARGETDURATION:2\n\n"
        + "#EXTINF:2,\nsegment00000.ts\n#EXTINF:2,\nsegment00001.ts\n"

    @Test func aCompletePlaylistListsItsSegments() throws {
        let p = try HLSPlaylist.parse(Self.full).get()
        #expect(p.segments == ["segment00000.ts", "segment00001.ts"])
        #expect(p.text == Self.full)
    }

    @Test func everyCutOfAPlaylistIsIncompleteOrAShorterCompleteOne() {
        // Cut after every character: either refused, or a complete playlist listing a prefix of the segments.
        let chars = Array(Self.full)
        for n in 0..<chars.count {
            let cut = String(chars[0..<n])
            switch HLSPlaylist.parse(cut) {
            case .failure(let problem): #expect(problem != .missing && problem != .stale)
            case .success(let p):
                #expect(cut.hasSuffix("\n") && cut.contains("#EXT-X-TARGETDURATION:2\n"), "\(n)")
                #expect(["segment00000.ts", "segment00001.ts"].starts(with: p.segments), "\(n): \(p.segments)")
                #expect(!cut.hasSuffix("#EXTINF:2,\n"), "\(n)")
            }
        }
    }

    @Test func emptyAndForeignTextAreRefusedNamingWhy() {
        #expect(HLSPlaylist.parse("") == .failure(.incomplete("empty")))
        #expect(HLSPlaylist.parse("hello\n") == .failure(.incomplete("no #EXTM3U first line")))
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXTINF:2,") == .failure(.incomplete("no newline at the end")))
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-VERSION:3\n") == .failure(.incomplete("no #EXT-X-TARGETDURATION")))
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n") == .failure(.incomplete("#EXTINF without its URI")))
    }

    @Test func onlyPlainNamesAreServable() throws {
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nhttp://cdn.example/seg1.ts\n#EXTINF:2,\n../etc/passwd\n"
            + "#EXTINF:2,\nsub/seg.ts\n#EXTINF:2,\nseg 4.ts\n#EXTINF:2,\nseg5.ts\r\n"
        #expect(try HLSPlaylist.parse(text).get().segments == ["seg5.ts"])
    }

    @Test func contentTypes() {
        #expect(HLSPlaylist.contentType(ofSegment: "a.ts") == "video/mp2t")
        #expect(HLSPlaylist.contentType(ofSegment: "a.M4S") == "video/mp4")
        #expect(HLSPlaylist.contentType(ofSegment: "a.bin") == "application/octet-stream")
    }
}
