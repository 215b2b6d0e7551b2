import Foundation
import GStreamerKit
import Stages
import Testing
import Timing

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

    /// The heartbeat (`: ping`, every 2 s in the server) follows the clock it is given: nothing before the
    /// interval, one ping at it, the next one interval later; none after the task is cancelled.
    @Test func theHeartbeatPingsEveryIntervalOfItsClock() async throws {
        let hub = EventHub()
        let client = try #require(hub.subscribe())
        let clock = ManualClock()
        let beat = hub.heartbeat(every: 2, clock: clock)
        #expect(await clock.sleepersArrive(1))
        clock.advance(by: 1.9)
        try await Task.sleep(nanoseconds: 100_000_000)
        // An event published now comes first: no ping was queued before it.
        hub.publish(Self.message(1))
        #expect(await client.next() == EventHub.event(Self.message(1)))
        clock.advance(by: 0.1)
        #expect(await client.next() == Data(": ping\n\n".utf8))
        #expect(await clock.sleepersArrive(1))
        clock.advance(by: 2)
        #expect(await client.next() == Data(": ping\n\n".utf8))
        #expect(await clock.sleepersArrive(1))
        beat.cancel()
        await beat.value
        #expect(clock.sleepers == 0)
        clock.advance(by: 10)
        hub.publish(Self.message(2))
        #expect(await client.next() == EventHub.event(Self.message(2)))
        hub.close()
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
