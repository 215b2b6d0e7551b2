import Foundation
import Testing

@testable import Control

/// `HomeAssistantConfigs` alone: what each discovery document says, checked against Home Assistant's required keys per
/// component, and its commands decoded as the bridge decodes them.
@Suite struct HomeAssistantConfigsTests {
    static func decode(_ c: HomeAssistantConfigs.Config) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: c.payload) as? [String: Any])
    }

    @Test func everyDocumentHasItsComponentsRequiredKeysAndOneDevice() throws {
        let configs = HomeAssistantConfigs.make(
            prefix: "homeassistant", topic: "site/door", name: "site/door", stages: [("compose0", "compose"), ("cap", "capture")], photos: true)
        var ids = Set<String>()
        for c in configs {
            let parts = c.topic.split(separator: "/")
            #expect(parts.count == 5 && parts[0] == "homeassistant" && parts[2] == "site_door" && parts[4] == "config", "\(c.topic)")
            let component = String(parts[1])
            let o = try Self.decode(c)
            let required = try #require(HomeAssistantConfigs.requiredKeys[component], "\(component)")
            for key in required { #expect(o[key] != nil, "\(c.topic): no \(key)") }
            let unique = try #require(o["unique_id"] as? String)
            #expect(ids.insert(unique).inserted, "\(unique) twice")
            #expect((o["device"] as? [String: Any])?["identifiers"] as? [String] == ["site_door"])
            #expect((o["availability"] as? [[String: Any]])?.first?["topic"] as? String == "site/door/state")
        }
        let byObject = Dictionary(uniqueKeysWithValues: try configs.map { (String($0.topic.split(separator: "/")[3]), try Self.decode($0)) })
        #expect(byObject["shutter"]?["command_topic"] as? String == "site/door/cmd/capture")
        #expect(byObject["photo"]?["url_topic"] as? String == "site/door/photo")
        #expect(byObject["running"]?["state_topic"] as? String == "site/door/state")
        #expect(byObject["compose0_score"]?["state_topic"] as? String == "site/door/events/composition")
        // compose's rule (an Enum that may change while playing) is a select with its choices; its analysis width (before
        // start only) has no entity.
        let rule = try #require(byObject["compose0_rule"])
        #expect((rule["options"] as? [String])?.contains("thirds") == true)
        #expect(byObject["compose0_analysis-width"] == nil)
        #expect(byObject["compose0_overlay"]?["payload_on"] as? String == #"{"stage": "compose0", "set": {"overlay": true}}"#)
    }

    @Test func commandsAreWhatTheBridgeTakes() throws {
        let configs = HomeAssistantConfigs.make(prefix: "ha", topic: "cam", name: "cam", stages: [("compose0", "compose")], photos: false)
        var checked = 0
        for c in configs {
            let o = try Self.decode(c)
            guard o["command_topic"] as? String == "cam/cmd/set" else { continue }
            // Home Assistant renders `{{ value }}` (and `| int`, `| float`) into the template: a value from the range.
            var payloads = [o["payload_on"], o["payload_off"]].compactMap { $0 as? String }
            if let t = o["command_template"] as? String {
                let value = (o["options"] as? [String])?.first ?? "\(o["min"] ?? 0)"
                payloads.append(t.replacingOccurrences(of: #"{{ value | int }}"#, with: value).replacingOccurrences(of: #"{{ value | float }}"#, with: value)
                    .replacingOccurrences(of: "{{ value }}", with: value))
            }
            for p in payloads {
                let command = try MQTTCommand.decode("set", payload: Data(p.utf8), services: [], prefix: "cam/cmd/")
                guard case .set(let stage, let fields) = command else { Issue.record("\(p) is not a set"); continue }
                #expect(stage == "compose0" && fields.count == 1, "\(p)")
                checked += 1
            }
        }
        #expect(checked >= 5)
        #expect(!configs.contains { $0.topic.contains("/image/") }, "no image entity without photos")
    }

    @Test func idsAndStepsStayInRange() {
        #expect(HomeAssistantConfigs.nodeID("site/door cam.1") == "site_door_cam_1")
        #expect(HomeAssistantConfigs.step(0...1) == 0.01 && HomeAssistantConfigs.step(0...100) == 1)
        #expect(HomeAssistantConfigs.wide(0...Int.max) && !HomeAssistantConfigs.wide(0...100))
    }
}
