import Foundation
import Stages

/// Home Assistant's MQTT discovery documents for one camera (`--discovery homeassistant`): one device, its entities
/// made from what the session runs, each a retained JSON object on `PREFIX/COMPONENT/NODE/OBJECT/config`.
///
/// Entities (every one with the device, a `unique_id`, and availability from `TOPIC/state`, which the bridge keeps
/// retained and whose Last Will says `offline`):
/// - `binary_sensor` **running** (device class `running`): `TOPIC/state`'s `state` is `running`;
/// - `button` **shutter** (a `capture` or `snapshot` stage): `{}` on `TOPIC/cmd/capture`;
/// - per `compose` stage, `sensor` **score** and **advice** from `TOPIC/events/composition` (that stage's messages only);
/// - `image` **photo** (a `capture` stage and `--http`): its URL from `TOPIC/photo` (retained: the latest photo saved);
/// - per property that may change while playing: `switch` (Boolean), `number` (Integer, Double: its range), `select`
///   (Enum: its choices), each sending `TOPIC/cmd/set` `{"stage": S, "set": {P: value}}` (optimistic: no state topic).
public enum HomeAssistantConfigs {
    /// The discovery prefix Home Assistant listens on by default.
    public static let defaultPrefix = "homeassistant"

    /// The keys Home Assistant requires of each component's config (its MQTT integration's documentation: `image` needs
    /// `url_topic` or `image_topic`; `select` its `options`).
    public static let requiredKeys: [String: [String]] = [
        "binary_sensor": ["state_topic"], "button": ["command_topic"], "sensor": ["state_topic"], "number": ["command_topic"],
        "select": ["command_topic", "options"], "switch": ["command_topic"], "image": ["url_topic"],
    ]

    /// One config: its topic and its JSON object.
    public struct Config: Sendable {
        public var topic: String
        public var payload: Data
    }

    /// A topic level (or id) Home Assistant accepts: letters, digits, `_` and `-`; anything else becomes `_`.
    public static func nodeID(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }

    /// The configs of the camera on MQTT topic `topic` (the bridge's: `viewfinder`, or `viewfinder/NAME` under serve)
    /// running `stages` (instance name, kind); `photos`: whether `TOPIC/photo` is published (`--http` and a capture stage).
    public static func make(prefix: String, topic: String, name: String, stages: [(name: String, kind: String)], photos: Bool) -> [Config] {
        let node = nodeID(topic)
        let device: [String: Any] = ["identifiers": [node], "name": name, "manufacturer": "Viewfinder", "model": "viewfinder"]
        let availability: [[String: Any]] = [
            ["topic": topic + "/state", "value_template": "{{ 'online' if value_json.state == 'running' else 'offline' }}"]
        ]
        var out: [Config] = []
        func add(_ component: String, _ object: String, _ fields: [String: Any]) {
            let id = nodeID(object)
            var o = fields
            o["unique_id"] = "\(node)_\(id)"
            o["device"] = device
            o["availability"] = availability
            o["origin"] = ["name": "Viewfinder"]
            let data = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            out.append(Config(topic: "\(prefix)/\(component)/\(node)/\(id)/config", payload: data))
        }
        add(
            "binary_sensor", "running",
            [
                "name": "Running", "state_topic": topic + "/state", "device_class": "running",
                "value_template": "{{ 'ON' if value_json.state == 'running' else 'OFF' }}",
            ])
        let kinds = Set(stages.map(\.kind))
        if kinds.contains("capture") || kinds.contains("snapshot") {
            add("button", "shutter", ["name": "Shutter", "command_topic": topic + "/cmd/capture", "payload_press": "{}", "icon": "mdi:camera-iris"])
        }
        if photos && kinds.contains("capture") {
            add("image", "photo", ["name": "Latest photo", "url_topic": topic + "/photo", "content_type": "image/jpeg"])
        }
        for (stage, kind) in stages {
            if kind == "compose" {
                let mine = "value_json.fields.stage == '\(stage)'"
                add(
                    "sensor", "\(stage)_score",
                    [
                        "name": "\(stage) score", "state_topic": topic + "/events/composition", "state_class": "measurement",
                        "value_template": "{{ (value_json.fields.score | float) | round(3) if \(mine) else this.state }}",
                    ])
                add(
                    "sensor", "\(stage)_advice",
                    [
                        "name": "\(stage) advice", "state_topic": topic + "/events/composition",
                        "value_template": "{{ value_json.fields.advice if \(mine) else this.state }}",
                    ])
            }
            for p in StageRegistry.type(of: kind)?.descriptor.properties ?? [] where p.mutability == .playing {
                let object = "\(stage)_\(p.name)", title = "\(stage) \(p.name)"
                let set = topic + "/cmd/set"
                func payload(_ value: String) -> String { "{\"stage\": \"\(stage)\", \"set\": {\"\(p.name)\": \(value)}}" }
                switch p.type {
                case .bool:
                    add("switch", object, ["name": title, "command_topic": set, "payload_on": payload("true"), "payload_off": payload("false"), "optimistic": true])
                case .int(let r):
                    add(
                        "number", object,
                        [
                            "name": title, "command_topic": set, "command_template": payload("{{ value | int }}"), "min": r.lowerBound,
                            "max": r.upperBound, "step": 1, "mode": Self.wide(r) ? "box" : "slider", "optimistic": true,
                        ])
                case .double(let r):
                    let step = Self.step(r)
                    add(
                        "number", object,
                        [
                            "name": title, "command_topic": set, "command_template": payload("{{ value | float }}"), "min": r.lowerBound,
                            "max": r.upperBound, "step": step, "mode": (r.upperBound - r.lowerBound) / step > 1000 ? "box" : "slider",
                            "optimistic": true,
                        ])
                case .choice(let choices):
                    add(
                        "select", object,
                        ["name": title, "command_topic": set, "command_template": payload("\"{{ value }}\""), "options": choices, "optimistic": true])
                case .string, .set, .color, .intList:
                    continue
                }
            }
        }
        return out
    }

    /// Whether an Integer range has more than 1000 steps (a box to type in, not a slider); no overflow on 0...Int.max.
    static func wide(_ r: ClosedRange<Int>) -> Bool {
        let span = r.upperBound.subtractingReportingOverflow(r.lowerBound)
        return span.overflow || span.partialValue > 1000
    }

    /// A slider step for a Double range: a power of ten near a hundredth of it (0.01 for 0...1).
    static func step(_ r: ClosedRange<Double>) -> Double {
        let span = r.upperBound - r.lowerBound
        guard span.isFinite, span > 0 else { return 1 }
        return pow(10, (log10(span / 100)).rounded(.down))
    }
}
