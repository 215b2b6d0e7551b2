import Control
import Host
import Testing

/// `--mqtt HOST:PORT` and `--topic`: what is accepted, and usage errors naming the bad text.
struct MQTTAddressTests {
    @Test func hostsPortsAndTheDefaultTopic() throws {
        let a = try MQTTAddress(parsing: "127.0.0.1:1883", topic: MQTTAddress.defaultTopic)
        #expect(a.host == "127.0.0.1" && a.port == 1883 && a.topic == "viewfinder" && a.text == "127.0.0.1:1883")
        let n = try MQTTAddress(parsing: "broker.local:8883", topic: "cams/door")
        #expect(n.host == "broker.local" && n.port == 8883 && n.topic == "cams/door")
        let v6 = try MQTTAddress(parsing: "[::1]:1883", topic: "t")
        #expect(v6.host == "::1" && v6.port == 1883 && v6.text == "[::1]:1883")
    }

    @Test(arguments: [
        ("1883", "'1883' for --mqtt: expected HOST:PORT"),
        ("127.0.0.1:0", "bad port '0'"),
        ("127.0.0.1:70000", "bad port '70000'"),
        ("127.0.0.1:mqtt", "bad port 'mqtt'"),
        (":1883", "bad host ''"),
        ("bro ker:1883", "bad host 'bro ker'"),
        ("-x:1883", "bad host '-x'"),
        ("[zz]:1883", "bad host '[zz]'"),
    ])
    func badAddressesAreNamed(_ text: String, _ named: String) {
        do {
            _ = try MQTTAddress(parsing: text, topic: "t")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.kind == .usage && error.message.contains(named) && error.message.contains("expected"), "\(error.message)")
        }
    }

    @Test(arguments: [
        ("", "(empty)"),
        ("cams/#", "wildcards"),
        ("cams/+/door", "wildcards"),
        ("$SYS/x", "the broker's"),
        (String(repeating: "a", count: 201), "201 characters, at most 200"),
    ])
    func badTopicsAreNamed(_ topic: String, _ why: String) {
        do {
            _ = try MQTTAddress(parsing: "127.0.0.1:1883", topic: topic)
            Issue.record("accepted topic \(topic)")
        } catch {
            #expect(error.kind == .usage && error.message.contains("for --topic") && error.message.contains(why), "\(error.message)")
            #expect(error.message.contains("'\(topic.prefix(60))"), "\(error.message)")
        }
    }

    @Test func aTopicOf200CharactersIsAccepted() throws {
        let t = String(repeating: "a", count: 200)
        #expect(try MQTTAddress(parsing: "127.0.0.1:1883", topic: t).topic == t)
    }
}
