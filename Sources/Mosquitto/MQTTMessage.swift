import CMosquitto
import Foundation

/// MQTT 5 subscription options.
public struct MQTTSubscribeOptions: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// Messages keep the retain flag they were published with (else a live retained publication, also
    /// the empty one that clears a retained message, arrives as an ordinary message).
    public static let retainAsPublished = MQTTSubscribeOptions(rawValue: Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue))
    /// Retained messages are not sent on subscribing.
    public static let sendRetainedNever = MQTTSubscribeOptions(rawValue: Int32(MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue))
}

/// One message received on a subscribed topic.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: Data
    /// True for a retained message sent on subscribing, or (with `.retainAsPublished`) one published
    /// with the retain flag.
    public var retained: Bool

    public init(topic: String, payload: Data, retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}
