import Testing

@testable import Control

/// Range headers as the clip and recording files are served: one byte range, the forms RFC 9110 gives, what a server may
/// ignore, and what cannot be satisfied.
struct HTTPRangeTests {
    @Test func theThreeFormsOfOneRange() {
        #expect(HTTPRange.parse("bytes=0-99", size: 1000) == .success(0...99))
        #expect(HTTPRange.parse("bytes=500-", size: 1000) == .success(500...999))
        #expect(HTTPRange.parse("bytes=-100", size: 1000) == .success(900...999))
        // An end past the file is the file's end; a suffix longer than the file is all of it.
        #expect(HTTPRange.parse("bytes=900-5000", size: 1000) == .success(900...999))
        #expect(HTTPRange.parse("bytes=-5000", size: 1000) == .success(0...999))
        #expect(HTTPRange.parse(" Bytes = 10 - 20 ", size: 1000) == nil)  // spaces inside the unit: not ours
        #expect(HTTPRange.parse("bytes= 10 - 20", size: 1000) == .success(10...20))
    }

    @Test func unsatisfiableRanges() {
        #expect(HTTPRange.parse("bytes=1000-", size: 1000) == .failure(.init()))
        #expect(HTTPRange.parse("bytes=5000-6000", size: 1000) == .failure(.init()))
        #expect(HTTPRange.parse("bytes=-0", size: 1000) == .failure(.init()))
        #expect(HTTPRange.parse("bytes=0-", size: 0) == .failure(.init()))
    }

    @Test func headersAServerMayIgnore() {
        for header in [nil, "", "items=0-1", "bytes=0-1,5-6", "bytes=5-1", "bytes=a-b", "bytes=-", "bytes=0x10-", "bytes=99999999999999999999-",
            "bytes=+1-2", "bytes=1", String(repeating: "bytes=0-1", count: 40)]
        {
            #expect(HTTPRange.parse(header, size: 1000) == nil, "\(String(describing: header))")
        }
    }
}
