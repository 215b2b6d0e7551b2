import Testing

@testable import Control

/// Range headers as the clip and recording files are served (`HTTPRange`, Decoding): the forms RFC 9110 gives, several
/// ranges answered as the one covering them, what a server may ignore, and what cannot be satisfied.
struct HTTPRangeTests {
    @Test func theThreeFormsOfOneRange() {
        #expect(HTTPRange.parse("bytes=0-99", size: 1000) == .success(0...99))
        #expect(HTTPRange.parse("bytes=500-", size: 1000) == .success(500...999))
        #expect(HTTPRange.parse("bytes=-100", size: 1000) == .success(900...999))
        // An end past the file is the file's end; a suffix longer than the file is all of it.
        #expect(HTTPRange.parse("bytes=900-5000", size: 1000) == .success(900...999))
        #expect(HTTPRange.parse("bytes=-5000", size: 1000) == .success(0...999))
        #expect(HTTPRange.parse("Bytes = 10-20", size: 1000) == .success(10...20))
        #expect(HTTPRange.parse("bytes=10 - 20", size: 1000) == nil)  // spaces inside a range: ignored, the whole file
    }

    @Test func severalRangesAreAnsweredAsTheOneCoveringThem() {
        #expect(HTTPRange.parse("bytes=0-1,5-6", size: 1000) == .success(0...6))
        #expect(HTTPRange.parse("bytes=900-,-50, 10-20", size: 1000) == .success(10...999))
        // Unsatisfiable members are left out; an empty member is ignored.
        #expect(HTTPRange.parse("bytes=5000-,0-9,", size: 1000) == .success(0...9))
    }

    @Test func unsatisfiableRanges() {
        #expect(HTTPRange.parse("bytes=1000-", size: 1000) == .failure(.init()))
        #expect(HTTPRange.parse("bytes=5000-6000", size: 1000) == .failure(.init()))
        #expect(HTTPRange.parse("bytes=-0", size: 1000) == .failure(.init()))
        #expect(HTTPRange.parse("bytes=0-", size: 0) == .failure(.init()))
    }

    @Test func headersAServerMayIgnore() {
        for header in [nil, "", "items=0-1", "bytes=5-1", "bytes=a-b", "bytes=-", "bytes=0x10-", "bytes=99999999999999999999-", "bytes=+1-2",
            "bytes=1", "bytes="]
        {
            #expect(HTTPRange.parse(header, size: 1000) == nil, "\(String(describing: header))")
        }
    }
}
