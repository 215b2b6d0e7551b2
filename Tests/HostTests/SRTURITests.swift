import Testing

@testable import Host

/// `SRTURI`: srtsink/srtsrc uris read as GStreamer 1.22 reads them, and refused (through `Preflight.checkSRTURIs`,
/// exit 2) where GStreamer would silently do something else.
@Suite struct SRTURITests {
    /// The message `checkSRTURIs` throws for `srtsink uri=URI` (the real bind probe), nil when it passes.
    static func refusal(_ uri: String, factory: String = "srtsink") throws -> String? {
        let chain = factory == "srtsink" ? "videotestsrc ! x264enc ! mpegtsmux ! srtsink uri=\(uri)" : "srtsrc uri=\(uri) ! fakesink"
        let parsed = try ParsedDescription.parse(chain)
        do { try Preflight.checkSRTURIs(parsed) } catch {
            #expect(error.kind == .usage)
            return error.message
        }
        return nil
    }

    @Test func readsGoodURIsAsGStreamerDoes() throws {
        let cases: [(String, SRTURI)] = [
            (
                "srt://127.0.0.1:8890?mode=listener",
                SRTURI(host: "127.0.0.1", port: 8890, mode: .listener, parameters: ["mode": "listener"])
            ),
            ("srt://:8890?mode=listener", SRTURI(host: "", port: 8890, mode: .listener, parameters: ["mode": "listener"])),
            ("srt://[::1]:8890?mode=listener", SRTURI(host: "::1", port: 8890, mode: .listener, parameters: ["mode": "listener"])),
            (
                "srt://example.org:8890?mode=caller&latency=125",
                SRTURI(host: "example.org", port: 8890, mode: .caller, parameters: ["mode": "caller", "latency": "125"])
            ),
            // No mode: a caller when a host is named, a listener on every interface when not (gstsrtobject.c).
            ("srt://127.0.0.1:8891", SRTURI(host: "127.0.0.1", port: 8891, mode: .caller)),
            ("srt://:7001", SRTURI(host: "", port: 7001, mode: .listener)),
            (
                "srt://10.0.0.5:9000?mode=rendezvous",
                SRTURI(host: "10.0.0.5", port: 9000, mode: .rendezvous, parameters: ["mode": "rendezvous"])
            ),
            // The query is percent-decoded, the last mode wins, a fragment is not part of it.
            ("srt://h:1?mode=listener&mode=%63aller#x", SRTURI(host: "h", port: 1, mode: .caller, parameters: ["mode": "caller"])),
        ]
        for (text, expected) in cases {
            #expect(try SRTURI(text) == expected, "\(text)")
        }
    }

    @Test func acceptsGoodURIsInPreflight() throws {
        for uri in [
            "srt://127.0.0.1:8890?mode=listener", "srt://:8890?mode=listener", "srt://[::1]:8890?mode=listener",
            "srt://example.org:8890?mode=caller&latency=125", "\"srt://127.0.0.1:8891\"",
        ] {
            #expect(try Self.refusal(uri) == nil, "\(uri)")
            #expect(try Self.refusal(uri, factory: "srtsrc") == nil, "\(uri)")
        }
        // No uri= written: the element's default is GStreamer's business.
        try Preflight.checkSRTURIs(try ParsedDescription.parse("videotestsrc ! x264enc ! mpegtsmux ! srtsink latency=125"))
    }

    @Test func refusesWhatGStreamerWouldGetWrong() throws {
        let shape = "expected srt://HOST:PORT?mode=caller, listener or rendezvous"
        let here =
            "expected a numeric address of this machine, e.g. srt://127.0.0.1:8890?mode=listener, or none for every interface (srt://:8890?mode=listener)"
        let cases: [(String, String)] = [
            (
                "'srt://127.0.0.1:8890?mode=listener'",
                "srtsink: uri ''srt://127.0.0.1:8890?mode=listener'' is in single quotes, which GStreamer keeps as part of the value "
                    + "(it refuses it and calls srt://127.0.0.1:7001 instead): expected the uri bare or in double quotes: "
                    + "uri=\"srt://127.0.0.1:8890?mode=listener\""
            ),
            ("http://127.0.0.1:8890", "srtsink: uri 'http://127.0.0.1:8890' has scheme 'http', not 'srt': \(shape)"),
            ("SRT://127.0.0.1:8890", "srtsink: uri 'SRT://127.0.0.1:8890' has scheme 'SRT', not 'srt': \(shape)"),
            ("127.0.0.1:8890", "srtsink: uri '127.0.0.1:8890' has no scheme: \(shape)"),
            (
                "srt:/127.0.0.1:8890",
                "srtsink: uri 'srt:/127.0.0.1:8890' has no '//' after 'srt:', so GStreamer finds no host or port in it: expected srt://127.0.0.1:8890"
            ),
            (
                "srt:127.0.0.1:8890?mode=listener",
                "srtsink: uri 'srt:127.0.0.1:8890?mode=listener' has no '//' after 'srt:', so GStreamer finds no host or port in it: "
                    + "expected srt://127.0.0.1:8890?mode=listener"
            ),
            ("srt://127.0.0.1", "srtsink: uri 'srt://127.0.0.1' has no port: expected srt://127.0.0.1:PORT with a port 1-65535"),
            (
                "srt://127.0.0.1:?mode=listener",
                "srtsink: uri 'srt://127.0.0.1:?mode=listener' has no port: expected srt://127.0.0.1:PORT with a port 1-65535"
            ),
            ("srt://[::1]", "srtsink: uri 'srt://[::1]' has no port: expected srt://[::1]:PORT with a port 1-65535"),
            ("srt://127.0.0.1:port", "srtsink: uri 'srt://127.0.0.1:port' has port 'port', not a number: expected a port 1-65535"),
            ("srt://127.0.0.1:99999", "srtsink: uri 'srt://127.0.0.1:99999' has port 99999, out of range: expected a port 1-65535"),
            (
                "srt://127.0.0.1:0?mode=listener",
                "srtsink: uri 'srt://127.0.0.1:0?mode=listener' has port 0, out of range: expected a port 1-65535"
            ),
            (
                "srt://127.0.0.1:8890?mode=listner",
                "srtsink: uri 'srt://127.0.0.1:8890?mode=listner' has mode 'listner', which GStreamer ignores (it would make a caller): "
                    + "expected mode=caller, mode=listener or mode=rendezvous (lower case)"
            ),
            (
                "srt://:8890?mode=Caller",
                "srtsink: uri 'srt://:8890?mode=Caller' has mode 'Caller', which GStreamer ignores (it would make a listener): "
                    + "expected mode=caller, mode=listener or mode=rendezvous (lower case)"
            ),
            (
                "srt://:8890?mode=caller",
                "srtsink: uri 'srt://:8890?mode=caller' calls out (mode=caller) but names no host: "
                    + "expected srt://HOST:8890?mode=caller, or srt://:8890?mode=listener to listen"
            ),
            (
                "srt://::1:8890",
                "srtsink: uri 'srt://::1:8890' has an IPv6 address without brackets: expected srt://[IPv6 ADDRESS]:PORT, e.g. srt://[::1]:8890"
            ),
            (
                "srt://[::1:8890",
                "srtsink: uri 'srt://[::1:8890' has '[' without ']': expected srt://[IPv6 ADDRESS]:PORT, e.g. srt://[::1]:8890"
            ),
            (
                "srt://localhost:8890?mode=listener",
                "srtsink: uri 'srt://localhost:8890?mode=listener' listens on 'localhost' (mode=listener), a host name: \(here)"
            ),
            (
                "srt://203.0.113.77:8890?mode=listener",
                "srtsink: uri 'srt://203.0.113.77:8890?mode=listener' listens on 203.0.113.77 (mode=listener), which is not an address "
                    + "of this machine (Cannot assign requested address): \(here)"
            ),
            (
                "srt://[2001:db8::77]:8890?mode=rendezvous",
                "srtsink: uri 'srt://[2001:db8::77]:8890?mode=rendezvous' binds 2001:db8::77 (mode=rendezvous), which is not an address "
                    + "of this machine (Cannot assign requested address): expected a numeric address of this machine, e.g. "
                    + "srt://127.0.0.1:8890?mode=rendezvous, or none for every interface (srt://:8890?mode=rendezvous)"
            ),
        ]
        for (uri, expected) in cases {
            #expect(try Self.refusal(uri) == expected)
        }
        // srtsrc the same, named.
        #expect(
            try Self.refusal("srt://127.0.0.1:8890?mode=listner", factory: "srtsrc")?.hasPrefix(
                "srtsrc: uri 'srt://127.0.0.1:8890?mode=listner' has mode") == true)
    }

    @Test func callersMayNameAnyHostListenersOnlyTheirOwn() throws {
        var asked: [String] = []
        let probe = { (host: String) -> String? in
            asked.append(host); return host == "192.0.2.9" ? "not here" : nil
        }
        #expect(try SRTURI("srt://camera.example:8900?mode=caller").bindProblem(probe: probe) == nil)
        #expect(try SRTURI("srt://198.51.100.1:8900").bindProblem(probe: probe) == nil)
        #expect(try SRTURI("srt://:8900?mode=listener").bindProblem(probe: probe) == nil)
        #expect(asked.isEmpty, "callers and every-interface listeners bind nothing named: \(asked)")
        #expect(try SRTURI("srt://192.0.2.8:8900?mode=listener").bindProblem(probe: probe) == nil)
        #expect(
            try SRTURI("srt://192.0.2.9:8900?mode=listener").bindProblem(probe: probe)?.what
                == "listens on 192.0.2.9 (mode=listener), which is not an address of this machine (not here)")
        #expect(
            try SRTURI("srt://cam.local:8900?mode=rendezvous").bindProblem(probe: probe)?.what
                == "binds 'cam.local' (mode=rendezvous), a host name")
        #expect(asked == ["192.0.2.8", "192.0.2.9"])
    }

    @Test func listensBeyondThisMachine() throws {
        #expect(try SRTURI("srt://:8890?mode=listener").listensBeyondThisMachine)
        #expect(try SRTURI("srt://0.0.0.0:8890?mode=listener").listensBeyondThisMachine)
        #expect(try SRTURI("srt://[::]:8890?mode=listener").listensBeyondThisMachine)
        #expect(try SRTURI("srt://192.0.2.2:8890?mode=listener").listensBeyondThisMachine)
        #expect(try !SRTURI("srt://127.0.0.1:8890?mode=listener").listensBeyondThisMachine)
        #expect(try !SRTURI("srt://[::1]:8890?mode=listener").listensBeyondThisMachine)
        #expect(try !SRTURI("srt://192.0.2.2:8890").listensBeyondThisMachine)
    }
}
