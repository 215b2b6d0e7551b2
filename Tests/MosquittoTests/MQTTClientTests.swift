import Foundation
import Mosquitto
import Synchronization
import TestSupport
import Testing
import Timing

/// The libmosquitto binding against Debian's real broker and its real clients (mosquitto_sub/_pub).
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct MQTTClientTests {
    /// What the handlers saw, in order.
    final class Seen: Sendable {
        let connects = Atomic<Int>(0)
        let disconnects = Mutex<[String]>([])
        let messages = Mutex<[MQTTMessage]>([])

        func handlers(onConnect extra: @escaping @Sendable () -> Void = {}) -> MQTTClient.Handlers {
            MQTTClient.Handlers(
                onConnect: {
                    self.connects.add(1, ordering: .relaxed); extra()
                },
                onDisconnect: { why in self.disconnects.withLock { $0.append(why) } },
                onMessage: { m in self.messages.withLock { $0.append(m) } })
        }

        func wait(_ seconds: Double, until done: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !done() && Date() < deadline { usleep(20_000) }
            return done()
        }
    }

    /// Moves `clock` to just before `client`'s next reconnect attempt, checks that none was made, then to the
    /// attempt, and waits (real time: the attempt is a real connect) until it was made. True when it went so.
    static func nextAttempt(_ client: MQTTClient, _ clock: ManualClock, after seconds: Double, _ seen: Seen) -> Bool {
        let before = client.reconnectAttempts
        guard clock.waitForSleepers(1, timeout: 5) else { return false }
        clock.advance(by: seconds - 0.05)
        usleep(50_000)
        guard client.reconnectAttempts == before else { return false }
        clock.advance(by: 0.05)
        return seen.wait(5) { client.reconnectAttempts == before + 1 }
    }

    @Test func publishesSubscribesAndReceives() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let seen = Seen()
        let box = Mutex<MQTTClient?>(nil)
        // Subscriptions are made in onConnect, as a reconnect needs them again.
        let client = try MQTTClient(
            clientID: "vf-test-\(getpid())",
            handlers: seen.handlers(onConnect: { box.withLock { c in _ = try? c?.subscribe("vf/in/#") } }))
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }
        let sub = try Broker.Subscriber(port: broker.port, topics: ["vf/out"])
        try client.connect(host: "127.0.0.1", port: Int(broker.port), will: nil)
        #expect(seen.wait(5) { client.isConnected && seen.connects.load(ordering: .relaxed) == 1 })
        usleep(300_000)  // mosquitto_sub has subscribed

        let mid = try client.publish("vf/out", Data("hello".utf8))
        #expect(mid > 0)
        #expect(client.publishAndWait("vf/out", Data("{\"n\":2}".utf8), retain: false, timeout: 2))
        #expect(sub.wait(timeout: 5) { $0.lines.count >= 2 }, "\(sub.lines)")
        #expect(sub.lines == ["vf/out hello", "vf/out {\"n\":2}"])

        try broker.publish("vf/in/capture", nil)
        try broker.publish("vf/in/set", "{\"a\":1}")
        #expect(seen.wait(5) { seen.messages.withLock { $0.count } >= 2 })
        let got = seen.messages.withLock { $0 }
        #expect(got.map(\.topic) == ["vf/in/capture", "vf/in/set"])
        #expect(got.map { String(decoding: $0.payload, as: UTF8.self) } == ["", "{\"a\":1}"])
        #expect(got.allSatisfy { !$0.retained })

        client.disconnect()
        client.close()
        #expect(!client.isConnected)
        #expect(throws: MQTTError.self) { try client.publish("vf/out", Data()) }
    }

    @Test func aRetainedMessageIsMarkedAsSuch() throws {
        let broker = try Broker()
        defer { broker.stop() }
        try broker.publish("vf/in/old", "x", retain: true)
        let seen = Seen()
        let box = Mutex<MQTTClient?>(nil)
        let client = try MQTTClient(
            clientID: "vf-test-r-\(getpid())",
            handlers: seen.handlers(onConnect: { box.withLock { c in _ = try? c?.subscribe("vf/in/#") } }))
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }
        try client.connect(host: "127.0.0.1", port: Int(broker.port), will: nil)
        #expect(seen.wait(5) { !seen.messages.withLock { $0.isEmpty } })
        #expect(seen.messages.withLock { $0.first } == MQTTMessage(topic: "vf/in/old", payload: Data("x".utf8), retained: true))
        client.close()
    }

    @Test func subscriptionOptionsHideOldRetainedMessagesAndKeepTheFlag() throws {
        let broker = try Broker()
        defer { broker.stop() }
        try broker.publish("vf/in/old", "x", retain: true)
        let seen = Seen()
        let box = Mutex<MQTTClient?>(nil)
        let client = try MQTTClient(
            clientID: "vf-test-o-\(getpid())",
            handlers: seen.handlers(onConnect: {
                box.withLock { c in _ = try? c?.subscribe("vf/in/#", options: [.retainAsPublished, .sendRetainedNever]) }
            }))
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }
        try client.connect(host: "127.0.0.1", port: Int(broker.port), will: nil)
        #expect(seen.wait(5) { client.isConnected })
        usleep(300_000)
        try broker.publish("vf/in/live", "y", retain: true)
        try broker.publish("vf/in/old", nil, retain: true)  // clears it: an empty retained message
        try broker.publish("vf/in/plain", "z")
        #expect(seen.wait(5) { seen.messages.withLock { $0.count } >= 3 })
        #expect(
            seen.messages.withLock { $0 } == [
                MQTTMessage(topic: "vf/in/live", payload: Data("y".utf8), retained: true),
                MQTTMessage(topic: "vf/in/old", payload: Data(), retained: true),
                MQTTMessage(topic: "vf/in/plain", payload: Data("z".utf8), retained: false),
            ])
        client.close()
    }

    /// The Will is for connections that die (MQTTBridgeTests kills the real binary for that); a clean
    /// DISCONNECT must not trigger it.
    @Test func aCleanDisconnectSendsNoWill() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let seen = Seen()
        let client = try MQTTClient(clientID: "vf-test-w-\(getpid())", handlers: seen.handlers())
        try client.connect(
            host: "127.0.0.1", port: Int(broker.port), will: .init(topic: "vf/status", payload: Data("offline".utf8), retain: true))
        #expect(seen.wait(5) { client.isConnected })
        #expect(client.publishAndWait("vf/status", Data("online".utf8), retain: true, timeout: 2))
        client.disconnect()
        client.close()
        // A clean DISCONNECT: the retained value stays "online", no Will.
        #expect(try broker.subscribeOnce("vf/status", count: 1, seconds: 3) == ["vf/status online"])
    }

    @Test func aRefusedFirstAttemptStartsNothingAndMayBeRepeated() throws {
        let port = Broker.freePort()
        let seen = Seen()
        let client = try MQTTClient(clientID: "vf-test-d-\(getpid())", handlers: seen.handlers())
        // Nothing listens: the attempt fails at once, saying why, and can be made again.
        do {
            try client.connect(host: "127.0.0.1", port: Int(port), will: nil)
            Issue.record("connect to a closed port did not report the failure")
        } catch {
            #expect(error.isRetryable && error.message.contains("refused"), "\(error.message)")
        }
        #expect(!client.isConnected)
        #expect(throws: MQTTError.self) { try client.publish("vf/x", Data("lost".utf8)) }
        let broker = try Broker(port: port)
        defer { broker.stop() }
        try client.connect(host: "127.0.0.1", port: Int(port), will: nil)
        #expect(seen.wait(5) { client.isConnected }, "not connected; disconnects: \(seen.disconnects.withLock { $0 })")
        #expect(seen.connects.load(ordering: .relaxed) == 1)
        #expect(throws: MQTTError.self) { try client.connect(host: "127.0.0.1", port: Int(port), will: nil) }
        client.disconnect()
        client.close()
        broker.stop()
    }

    @Test func reconnectsByItselfWhenTheBrokerComesBack() throws {
        let first = try Broker()
        defer { first.stop() }
        let seen = Seen()
        let clock = ManualClock()
        let client = try MQTTClient(clientID: "vf-test-b-\(getpid())", handlers: seen.handlers(), clock: clock)
        try client.connect(host: "127.0.0.1", port: Int(first.port), will: nil)
        #expect(seen.wait(5) { client.isConnected })
        first.stop()
        #expect(seen.wait(5) { !client.isConnected && !seen.disconnects.withLock { $0.isEmpty } })
        #expect(throws: MQTTError.self) { try client.publish("vf/x", Data()) }
        // Retries after 1 s, 2 s, then every 4 s (on the client's clock): the first two find nobody.
        #expect(Self.nextAttempt(client, clock, after: 1, seen))
        #expect(Self.nextAttempt(client, clock, after: 2, seen))
        #expect(!client.isConnected)
        // Back within 6 s of the broker's return (4 s: the next attempt).
        let second = try Broker(port: first.port)
        defer { second.stop() }
        let returned = clock.now
        #expect(Self.nextAttempt(client, clock, after: 4, seen))
        #expect(seen.wait(5) { client.isConnected }, "disconnects: \(seen.disconnects.withLock { $0 })")
        #expect(clock.now - returned <= 6)
        #expect(seen.connects.load(ordering: .relaxed) == 2)
        client.disconnect()
        client.close()
        second.stop()
    }

    /// The schedule itself: 1 s, 2 s, 4 s, 4 s... after a loss, and from 1 s again once a connection was accepted.
    @Test func reconnectAttemptsWaitOneTwoThenFourSecondsAndStartOverAfterAConnection() throws {
        let broker = try Broker()
        defer { broker.stop() }
        let port = broker.port
        let seen = Seen()
        let clock = ManualClock()
        let client = try MQTTClient(clientID: "vf-test-s-\(getpid())", handlers: seen.handlers(), clock: clock)
        try client.connect(host: "127.0.0.1", port: Int(port), will: nil)
        #expect(seen.wait(5) { client.isConnected })
        broker.stop()
        #expect(seen.wait(5) { !client.isConnected })
        let lost = clock.now
        for wait in [1.0, 2, 4, 4, 4] { #expect(Self.nextAttempt(client, clock, after: wait, seen), "after \(wait) s") }
        #expect(clock.now - lost == 15)
        #expect(client.reconnectAttempts == 5)
        // Back, then lost again: the schedule starts over at 1 s.
        let again = try Broker(port: port)
        defer { again.stop() }
        #expect(Self.nextAttempt(client, clock, after: 4, seen))
        #expect(seen.wait(5) { client.isConnected })
        again.stop()
        #expect(seen.wait(5) { !client.isConnected })
        #expect(Self.nextAttempt(client, clock, after: 1, seen))
        #expect(Self.nextAttempt(client, clock, after: 2, seen))
        #expect(client.reconnectAttempts == 8)
        #expect(seen.connects.load(ordering: .relaxed) == 2)
        // Closing ends a back-off wait at once (the clock is not moved).
        #expect(clock.waitForSleepers(1, timeout: 5))
        client.close()
        #expect(clock.sleepers == 0)
        #expect(client.reconnectAttempts == 8)
    }

    @Test func badArgumentsAreRefusedWithLibmosquittoText() throws {
        let client = try MQTTClient(clientID: "vf-test-e-\(getpid())", handlers: .init())
        do { try client.connect(host: "127.0.0.1", port: 70000, will: nil) } catch {
            #expect(!error.isRetryable && error.message == "Invalid function arguments provided.", "\(error.message)")
        }
        // A port C's int cannot hold is refused before libmosquitto sees it (no trap converting it).
        do {
            try client.connect(host: "127.0.0.1", port: Int.max, will: nil)
            Issue.record("connected to port Int.max")
        } catch {
            #expect(!error.isRetryable && error.message == "Invalid function arguments provided.", "\(error.message)")
        }
        do { try client.publish("vf/x", Data()) } catch {
            #expect(error.message == "The client is not currently connected.", "\(error.message)")
        }
        // A TLS file libmosquitto cannot open is refused by `configure`, naming the files.
        do {
            try client.configure(credentials: nil, tls: .init(caFile: "/nonexistent/ca.pem"))
            Issue.record("configured TLS with a missing CA file")
        } catch {
            #expect(!error.isRetryable && error.message == "TLS files refused (Invalid function arguments provided.): /nonexistent/ca.pem", "\(error.message)")
        }
        client.close()
    }
}
