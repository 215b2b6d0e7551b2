import Foundation
import Synchronization

/// Hostile clients held on a control server for `bench control`'s last phase: idle connections (connected, nothing
/// sent), slowloris clients (a request head trickled one byte a second, never finished) and stream clients that
/// never read (`/api/events` and `/api/preview.mjpeg` alternately, with a 2 KB receive buffer). A client the
/// server closes is counted and replaced at once, so the numbers stay attached for the whole window.
final class ControlAttack: @unchecked Sendable {
    /// Kinds of attacker.
    enum Kind: Int, CaseIterable {
        case idle, slowloris, stream
    }

    /// What the server did to the attackers during the window.
    struct Figures: Sendable {
        /// Connections the server closed, per kind (each replaced by a new one).
        var evicted: [Int] = [0, 0, 0]
        /// Stream requests answered 503 (the hubs' client limits), a subset of the stream evictions.
        var refused = 0
        /// Connections that could not be opened (refused or timed out by the kernel).
        var failedConnects = 0
    }

    private let port: UInt16
    private let counts: [Int]
    private let figures = Mutex(Figures())
    private let running = Atomic<Bool>(true)
    private var thread: Thread?
    /// One attacker: its kind and socket (-1 when none), the slowloris bytes sent, a stream's path and answer.
    private struct Slot {
        var kind: Kind
        var fd: Int32 = -1
        var sentBytes = 0
        var streamPath = ""
        /// A stream's status code once its head came (200: streaming, 503: refused), 0 before.
        var status = 0
    }
    /// Every slot; touched only by the attack's thread (and `init`/`stop` around it).
    private var slots: [Slot] = []

    /// Attaches `idle`, `slowloris` and `streams` clients to 127.0.0.1:`port` and keeps them attached until `stop()`.
    init(port: UInt16, idle: Int, slowloris: Int, streams: Int) {
        self.port = port
        counts = [idle, slowloris, streams]
        for (kind, n) in zip(Kind.allCases, counts) {
            for i in 0..<n {
                slots.append(Slot(kind: kind, streamPath: i % 2 == 0 ? "/api/events" : "/api/preview.mjpeg"))
            }
        }
        for i in slots.indices { open(i) }
        let t = Thread { [self] in loop() }
        t.name = "vf-bench-attack"
        thread = t
        t.start()
    }

    /// Stream clients answered 200 and still attached, and those answered 503, now.
    var streams: (streaming: Int, refused: Int) {
        let s = slotStatus.withLock { $0 }
        return (s.filter { $0 == 200 }.count, s.filter { $0 == 503 }.count)
    }
    private let slotStatus = Mutex<[Int]>([])

    /// Starts counting afresh (the window begins).
    func resetFigures() { figures.withLock { $0 = Figures() } }

    /// The figures since `resetFigures()`.
    var current: Figures { figures.withLock { $0 } }

    /// Detaches every client.
    func stop() {
        running.store(false, ordering: .relaxed)
        while thread?.isFinished == false { usleep(10_000) }
        for s in slots where s.fd >= 0 { close(s.fd) }
    }

    /// Every 100 ms: the server's closes are counted and replaced; slowloris clients get their next byte once a second.
    private func loop() {
        var tick = 0
        while running.load(ordering: .relaxed) {
            usleep(100_000)
            tick += 1
            for i in slots.indices {
                if closedByServer(i) {
                    close(slots[i].fd)
                    slots[i].fd = -1
                    figures.withLock { $0.evicted[slots[i].kind.rawValue] += 1 }
                    open(i)
                    continue
                }
                if slots[i].kind == .slowloris && tick % 10 == i % 10 { trickle(i) }
                if slots[i].kind == .stream && slots[i].status == 0 { slots[i].status = status(i) }
            }
            let statuses = slots.filter { $0.kind == .stream }.map(\.status)
            slotStatus.withLock { $0 = statuses }
        }
    }

    private func open(_ i: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            figures.withLock { $0.failedConnects += 1 }
            return
        }
        if slots[i].kind == .stream {
            var small: Int32 = 2048
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else {
            close(fd)
            figures.withLock { $0.failedConnects += 1 }
            return
        }
        slots[i].fd = fd
        slots[i].sentBytes = 0
        slots[i].status = 0
        if slots[i].kind == .stream {
            send(fd, "GET \(slots[i].streamPath) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        }
    }

    /// The slowloris head, one byte more: a request line, then an endless header value.
    private func trickle(_ i: Int) {
        let head = Array("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ".utf8)
        let byte = slots[i].sentBytes < head.count ? head[slots[i].sentBytes] : UInt8(ascii: "a")
        send(slots[i].fd, [byte])
        slots[i].sentBytes += 1
    }

    /// Whether the server closed slot `i`.
    private func closedByServer(_ i: Int) -> Bool {
        let fd = slots[i].fd
        guard fd >= 0 else { return true }
        // POLLRDHUP (Linux, 0x2000; Glibc does not export it without _GNU_SOURCE): the peer closed, even with
        // unread bytes waiting.
        let readHangUp: Int16 = 0x2000
        var p = pollfd(fd: fd, events: readHangUp, revents: 0)
        return poll(&p, 1, 0) == 1 && p.revents & (readHangUp | Int16(POLLHUP | POLLERR)) != 0
    }

    /// A stream's answer status once its head is there (peeked: the stream client still reads nothing), else 0.
    private func status(_ i: Int) -> Int {
        var head = [UInt8](repeating: 0, count: 12)
        let n = recv(slots[i].fd, &head, head.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        guard n == 12 else { return 0 }
        let code = Int(String(decoding: head[9..<12], as: UTF8.self)) ?? -1
        if code == 503 { figures.withLock { $0.refused += 1 } }
        return code
    }

    private func send(_ fd: Int32, _ text: String) { send(fd, Array(text.utf8)) }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        guard fd >= 0 else { return }
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }
}
