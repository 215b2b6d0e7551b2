import Foundation
import Host
import Synchronization
import Timing

/// Fans the session's preview JPEGs (`PreviewTap`) out to `/api/preview.mjpeg` viewers as
/// multipart/x-mixed-replace parts, and keeps the newest for `/api/preview.jpg`.
///
/// Each viewer holds at most one waiting part (newest only): a slow viewer skips frames, never delays
/// the tap's reader thread or another viewer. Connecting the first viewer starts the tap; while no
/// viewer is connected (and no single picture was asked for lately) the video threads do nothing for it.
///
/// Threads and locks: `publish` runs on the tap's reader thread; subscribe/leave on server tasks. The
/// table's mutex is taken alone and briefly; a client's mutex is never taken while holding it.
final class PreviewHub: Sendable {
    /// Viewers at once; more get 503.
    static let clientLimit = 8
    /// The multipart boundary.
    static let boundary = "vfpreviewframe"

    let tap: PreviewTap
    /// Times the JPEGs' age and the wait for a fresh one.
    private let clock: any HostClock
    private let clients = Mutex<(next: Int, all: [Int: EventClient])>((0, [:]))
    /// The newest JPEG, when it came (`clock`'s seconds), and its number.
    private let latest = Mutex<(jpeg: Data, at: Double, number: Int)?>(nil)

    init(tap: PreviewTap, clock: any HostClock = SystemClock.shared) {
        self.tap = tap
        self.clock = clock
    }

    /// Viewers connected now.
    var count: Int { clients.withLock { $0.all.count } }

    /// A new JPEG from the tap: kept as the newest, sent to every viewer as one part.
    func publish(_ jpeg: Data) {
        let now = clock.now
        latest.withLock { l in l = (jpeg, now, (l?.number ?? 0) + 1) }
        let targets = clients.withLock { Array($0.all.values) }
        guard !targets.isEmpty else { return }
        let part = Self.part(jpeg)
        for c in targets { c.push(part) }
    }

    /// One multipart part: boundary, headers, the JPEG.
    static func part(_ jpeg: Data) -> Data {
        Data("--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg + Data("\r\n".utf8)
    }

    /// A new viewer (the tap counts it), or nil when `clientLimit` are connected.
    func subscribe() -> EventClient? {
        let client: EventClient? = clients.withLock { c in
            guard c.all.count < Self.clientLimit else { return nil }
            let tap = self.tap
            let client = EventClient(id: c.next, limit: 1, notesDrops: false) { [weak self] id in
                if self?.clients.withLock({ $0.all.removeValue(forKey: id) }) != nil { tap.removeViewer() }
            }
            c.all[c.next] = client
            c.next += 1
            return client
        }
        if let client {
            tap.addViewer()
            if let l = latest.withLock({ $0 }) { client.push(Self.part(l.jpeg)) }
        }
        return client
    }

    /// A JPEG newer than `maxAge` seconds: the newest when fresh, else the next one made (the tap is kept
    /// on for a few seconds), waiting at most `timeout` seconds of `clock`. Nil when none came.
    func picture(maxAge: Double = 0.5, timeout: Double = 3) async -> Data? {
        tap.want(seconds: timeout + 2)
        let start = clock.now
        let deadline = start + timeout, oldest = start - maxAge
        while clock.now < deadline {
            if let l = latest.withLock({ $0 }), l.at >= oldest { return l.jpeg }
            // A poll step, not an interval: the JPEG comes from the tap's thread in real time.
            try? await Task.sleep(nanoseconds: 20_000_000)
            if Task.isCancelled { return nil }
        }
        return nil
    }

    /// Ends every viewer's stream (end of run).
    func close() {
        let targets = clients.withLock { c in
            defer { c.all.removeAll() }
            return Array(c.all.values)
        }
        for c in targets {
            c.close()
            tap.removeViewer()
        }
    }
}
