import Testing

@testable import Host

/// `SRTExposureFactory`: a start line warns about every SRT listener others can reach without a passphrase, and
/// the factory makes nothing otherwise. Sessions are built and prepared only: nothing runs, nothing binds.
@Suite struct SRTExposureServiceTests {
    /// The start lines of a prepared session built from `description`.
    static func startLines(_ description: String) throws -> [String] {
        let session = try Session(description: description)
        defer { session.close() }
        try session.prepare()
        #expect(session.services(SRTExposureService.self).count == (session.startLines.isEmpty ? 0 : 1))
        return session.startLines
    }

    static let sink = "videotestsrc ! x264enc ! mpegtsmux ! srtsink"

    @Test func warnsAboutAListenerOnEveryInterface() throws {
        #expect(
            try Self.startLines("\(Self.sink) uri=srt://:8890?mode=listener") == [
                "srt: warning: srtsink listens on every interface (srt://:8890?mode=listener) without encryption: anyone who reaches "
                    + "UDP port 8890 can watch; set passphrase= (10 to 79 characters, the same on the other end) to encrypt, listen on "
                    + "srt://127.0.0.1:8890?mode=listener for this machine only, or firewall the port"
            ])
        // No mode with no host is a listener too (GStreamer's default); 0.0.0.0 and :: are every interface.
        for uri in ["srt://:8890", "srt://0.0.0.0:8890?mode=listener", "srt://[::]:8890?mode=listener"] {
            #expect(
                try Self.startLines("\(Self.sink) uri=\(uri)").first?.hasPrefix("srt: warning: srtsink listens on every interface") == true,
                "\(uri)")
        }
    }

    @Test func namesTheElementAndWhatASourceExposes() throws {
        let lines = try Self.startLines("srtsrc name=cam uri=srt://:8900?mode=listener ! tsdemux ! h264parse ! fakesink")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("srt: warning: srtsrc 'cam' listens on every interface (srt://:8900?mode=listener)") == true)
        #expect(lines.first?.contains("anyone who reaches UDP port 8900 can send it a stream;") == true)
    }

    @Test func noWarningForLoopbackCallersOrAPassphrase() throws {
        for tail in [
            "uri=srt://127.0.0.1:8890?mode=listener", "uri=srt://[::1]:8890?mode=listener", "uri=srt://127.0.0.1:8891",
            "uri=srt://example.org:8890?mode=caller&latency=125", "latency=125",
            "uri=srt://:8890?mode=listener passphrase=0123456789abcdef", "uri=\"srt://:8890?mode=listener&passphrase=0123456789abcdef\"",
        ] {
            #expect(try Self.startLines("\(Self.sink) \(tail)").isEmpty, "\(tail)")
        }
    }

    @Test func seesListenersAfterAStageAndInEveryChain() throws {
        let lines = try Self.startLines(
            "videotestsrc ! passthrough ! tee name=t t. ! queue ! x264enc ! mpegtsmux ! srtsink uri=srt://:8890?mode=listener "
                + "t. ! queue ! x264enc ! mpegtsmux ! srtsink uri=srt://127.0.0.1:8891?mode=listener")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("(srt://:8890?mode=listener)") == true)
    }
}
