import Control
import Host
import Testing

/// `--http HOST:PORT` and `--token`: what is accepted, and errors naming the bad text.
struct ControlAddressTests {
    @Test func loopbackNeedsNoToken() throws {
        let a = try ControlAddress(parsing: "127.0.0.1:8080", token: nil)
        #expect(a.host == "127.0.0.1" && a.port == 8080 && a.token == nil)
    }

    @Test func otherAddressesNeedAToken() throws {
        #expect(throws: HostError.self) { try ControlAddress(parsing: "0.0.0.0:8080", token: nil) }
        let a = try ControlAddress(parsing: "0.0.0.0:8080", token: "abc")
        #expect(a.token == "abc")
    }

    @Test(arguments: ["localhost:8080", "8080"]) func localhostAndABarePortMeanLoopback(_ text: String) throws {
        let a = try ControlAddress(parsing: text, token: nil)
        #expect(a.host == "127.0.0.1" && a.port == 8080 && a.token == nil)
    }

    @Test(arguments: ["[::1]:8080", "::1:8080"]) func ipv6IsRefusedSayingSo(_ text: String) {
        #expect(throws: HostError.self) { try ControlAddress(parsing: text, token: "t") }
        do { _ = try ControlAddress(parsing: text, token: "t") } catch { #expect(error.message.contains("IPv6 is not supported")) }
    }

    @Test(arguments: ["", "example.com:80", "127.0.0.1:http", "127.0.0.1:70000", "1.2.3:4", "300.0.0.1:1", ":80"])
    func badTextIsNamed(_ text: String) {
        do {
            _ = try ControlAddress(parsing: text, token: "t")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message.contains("expected"), "\(error.message)")
        }
    }

    @Test func emptyTokenIsRefused() {
        #expect(throws: HostError.self) { try ControlAddress(parsing: "127.0.0.1:1", token: "") }
    }
}
