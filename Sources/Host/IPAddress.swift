import Foundation

/// Numeric IP addresses as the host's network elements take them: `rtspserve bind=`, the host of an SRT listener.
///
/// Threads and locks: none. `unavailable` opens and closes one socket on the caller's thread.
enum IPAddress {
    /// True for a numeric IPv4 or IPv6 address (no host names: what is written is what gets bound).
    static func isNumeric(_ text: String) -> Bool { v4(text) != nil || v6(text) != nil }

    /// True when only this machine can connect: 127.0.0.0/8 or ::1 (an empty host, every interface, is not).
    static func isLoopback(_ text: String) -> Bool {
        if let a = v4(text) { return UInt32(bigEndian: a.s_addr) >> 24 == 127 }
        guard let a = v6(text) else { return false }
        let b = withUnsafeBytes(of: a) { Array($0) }
        // ::1, or an IPv4-mapped 127.x (::ffff:127.0.0.1).
        return b == withUnsafeBytes(of: in6addr_loopback) { Array($0) }
            || (b[..<10].allSatisfy { $0 == 0 } && b[10] == 0xff && b[11] == 0xff && b[12] == 127)
    }

    /// True for the unspecified address, every interface: 0.0.0.0 or ::.
    static func isWildcard(_ text: String) -> Bool {
        if let a = v4(text) { return a.s_addr == 0 }
        guard let a = v6(text) else { return false }
        return withUnsafeBytes(of: a) { $0.allSatisfy { $0 == 0 } }
    }

    /// Why `address` (numeric) is not an address of this machine: the system's text for EADDRNOTAVAIL when a UDP
    /// socket cannot bind it on port 0; nil when it can, and for any other failure (the element reports those).
    static func unavailable(_ address: String) -> String? {
        var failure: Int32 = 0
        if let a = v4(address) {
            var s = sockaddr_in()
            s.sin_family = sa_family_t(AF_INET)
            s.sin_addr = a
            failure = bindError(&s, family: AF_INET)
        } else if let a = v6(address) {
            var s = sockaddr_in6()
            s.sin6_family = sa_family_t(AF_INET6)
            s.sin6_addr = a
            failure = bindError(&s, family: AF_INET6)
        }
        return failure == EADDRNOTAVAIL ? String(cString: strerror(failure)) : nil
    }

    /// The errno of binding a fresh UDP socket of `family` to `address` (0 when it bound; the socket is closed).
    private static func bindError<A>(_ address: inout A, family: Int32) -> Int32 {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { Glibc.close(fd) }
        let size = socklen_t(MemoryLayout<A>.size)
        return withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 ? 0 : errno }
        }
    }

    /// `text` as an IPv4 address (inet_pton: dotted quad only), or nil.
    private static func v4(_ text: String) -> in_addr? {
        var a = in_addr()
        return inet_pton(AF_INET, text, &a) == 1 ? a : nil
    }

    /// `text` as an IPv6 address, or nil.
    private static func v6(_ text: String) -> in6_addr? {
        var a = in6_addr()
        return inet_pton(AF_INET6, text, &a) == 1 ? a : nil
    }
}
