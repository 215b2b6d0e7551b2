import Diagnostics
import Foundation
import GStreamerKit
import Stages
import Synchronization
import Timing

/// Tells when a network output loses its peer and when it sends again, while the rest of the run goes on.
///
/// GStreamer 1.22's srtsink in caller mode reconnects by itself when its listener goes away (its own pace: one
/// connect attempt after another, each bounded by SRT's connect timeout) and warns at every attempt ("Error on SRT
/// socket: ... Trying to reconnect"); the queue before it drops meanwhile (`StopDeadlineFactory`), so recordings and
/// other outputs keep every frame. This service turns the first such warning into `viewfinder/output, state=lost` and
/// one stderr line (the repeats are counted, not printed), and the return into `state=restored` once the sink's
/// `stats` show bytes sent again (read every quarter second while lost).
///
/// Threads and locks: `busMessage`/`poll` on the bus loop's thread; the state under one mutex.
final class NetworkOutputService: SessionService, @unchecked Sendable {
    let name = "network-outputs"
    private let sinks: [String: Element]
    private let clock: any HostClock
    private struct Watch {
        var lostAt: Double
        var attempts: Int
        /// Bytes sent at the last look (nil before the first look after the loss).
        var sent: Int64?
    }
    private let state = Mutex<(watches: [String: Watch], lastLook: Double)>(([:], 0))

    init(sinks: [Element], clock: any HostClock) {
        self.sinks = Dictionary(sinks.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.clock = clock
    }

    func busMessage(_ m: ServiceBusMessage, _ out: inout ServicePoll) -> BusVerdict {
        guard !m.stopping, case .warning(let text, _) = m.message.kind, let sink = sinks[m.message.source],
            text.lowercased().contains("reconnect")
        else { return .pass }
        let now = clock.now
        let first = state.withLock { s -> Bool in
            if var w = s.watches[sink.name] {
                w.attempts += 1
                s.watches[sink.name] = w
                return false
            }
            s.watches[sink.name] = Watch(lostAt: now, attempts: 1, sent: nil)
            return true
        }
        if first {
            let message = NetworkOutputMessage(element: sink.name, state: .lost, text: text)
            out.record.append((BusMessage(source: sink.name, structure: message.structure), toStages: false))
            Log.host.say(
                .warning, "viewfinder: output \(sink.name) (\(sink.factoryName)) lost its peer (\(text)); it keeps trying, the rest goes on")
        }
        return .handled
    }

    func poll(_ out: inout ServicePoll) {
        let now = clock.now
        let lost: [String: Watch]? = state.withLock { s in
            guard !s.watches.isEmpty, now - s.lastLook >= 0.25 else { return nil }
            s.lastLook = now
            return s.watches
        }
        guard let lost else { return }
        for (name, w) in lost {
            guard let sink = sinks[name], let sent = sink.structure("stats")?.integer("bytes-sent") else { continue }
            // Sending again: more bytes than at the previous look (a new connection counts from 0).
            if let before = w.sent, sent > before {
                state.withLock { _ = $0.watches.removeValue(forKey: name) }
                let outage = now - w.lostAt
                let message = NetworkOutputMessage(element: name, state: .restored, outage: outage, attempts: w.attempts)
                out.record.append((BusMessage(source: name, structure: message.structure), toStages: false))
                Log.host.say(
                    .notice,
                    String(format: "viewfinder: output \(name) (\(sink.factoryName)) sends again after %.1f s (%d attempt%@)", outage, w.attempts,
                        w.attempts == 1 ? "" : "s"))
            } else {
                state.withLock { $0.watches[name]?.sent = sent }
            }
        }
    }
}
