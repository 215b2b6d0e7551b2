import Foundation
import GStreamerKit
import Stages
import Testing

@testable import Control

/// The events fan-out: JSON per message, only `viewfinder/*`, a bounded newest-only buffer per client.
struct EventHubTests {
    static func message(_ n: Int, name: String = "viewfinder/composition") -> BusMessage {
        BusMessage(
            source: "compose0",
            structure: MessageStructure(name, [("n", .int(Int32(n))), ("rule", .string("thirds")), ("score", .double(0.5))]))
    }

    @Test func eventIsOneDataLineOfJSON() throws {
        let text = String(decoding: EventHub.event(Self.message(7)), as: UTF8.self)
        #expect(text.hasPrefix("data: ") && text.hasSuffix("\n\n"))
        let o = try #require(try JSONSerialization.jsonObject(with: Data(text.dropFirst(6).utf8)) as? [String: Any])
        #expect(o["source"] as? String == "compose0" && o["name"] as? String == "viewfinder/composition")
        let f = try #require(o["fields"] as? [String: Any])
        #expect(f["n"] as? Int == 7 && f["rule"] as? String == "thirds" && f["score"] as? Double == 0.5)
    }

    @Test func aClientThatDoesNotReadKeepsOnlyTheNewest() async throws {
        let hub = EventHub()
        let client = try #require(hub.subscribe())
        hub.publish(Self.message(0, name: "facedetect"))  // not ours: ignored
        for i in 0..<1000 { hub.publish(Self.message(i)) }
        let first = try #require(await client.next())
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasPrefix(": dropped \(1000 - EventHub.perClientLimit)"), "\(text.prefix(40))")
        #expect(text.contains("\"n\":\(1000 - EventHub.perClientLimit)"))
        hub.close()
        var rest = 0
        while await client.next() != nil { rest += 1 }
        #expect(rest == EventHub.perClientLimit - 1)
        #expect(hub.count == 0)
    }

    @Test func clientsAreBounded() {
        let hub = EventHub()
        for _ in 0..<EventHub.clientLimit { #expect(hub.subscribe() != nil) }
        #expect(hub.subscribe() == nil)
    }
}
