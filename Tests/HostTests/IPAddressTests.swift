import Testing

@testable import Host

/// `IPAddress`: numeric addresses only, loopback and every-interface told apart, and "is it this machine's"
/// answered by a real UDP bind.
@Suite struct IPAddressTests {
    @Test func numericAddressesOnly() {
        for a in ["127.0.0.1", "0.0.0.0", "192.0.2.2", "::1", "::", "fe80::1", "::ffff:127.0.0.1"] {
            #expect(IPAddress.isNumeric(a), "\(a)")
        }
        for a in ["localhost", "example.org", "127.1", "", "[::1]", "1.2.3.4.5"] { #expect(!IPAddress.isNumeric(a), "\(a)") }
    }

    @Test func loopbackAndEveryInterface() {
        for a in ["127.0.0.1", "127.8.9.10", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"] { #expect(IPAddress.isLoopback(a), "\(a)") }
        for a in ["", "0.0.0.0", "::", "192.0.2.2", "128.0.0.1", "::2", "localhost"] { #expect(!IPAddress.isLoopback(a), "\(a)") }
        for a in ["0.0.0.0", "::", "0:0::0"] { #expect(IPAddress.isWildcard(a), "\(a)") }
        for a in ["", "127.0.0.1", "::1", "localhost"] { #expect(!IPAddress.isWildcard(a), "\(a)") }
    }

    @Test func unavailableAsksTheSystem() {
        #expect(IPAddress.unavailable("127.0.0.1") == nil)
        #expect(IPAddress.unavailable("0.0.0.0") == nil)
        // Documentation ranges (RFC 5737, RFC 3849): no machine of ours has them.
        #expect(IPAddress.unavailable("203.0.113.77") == "Cannot assign requested address")
        #expect(IPAddress.unavailable("2001:db8::77") == "Cannot assign requested address")
        #expect(IPAddress.unavailable("not an address") == nil)
    }
}
