import Foundation
import TestSupport

/// A small RFC 6455 WebSocket client for tests (text frames, masked as clients must; no extensions), over a
/// blocking TCP socket to 127.0.0.1 with a receive timeout: the signalling tests speak to `/api/webrtc` as a
/// browser would, without a browser.
final class WebSocketClient {
    /// The handshake's answer when it was not 101.
    struct Refused: Error, CustomStringConvertible {
        var head: String
        var description: String { "handshake refused: \(head)" }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The handshake answer's status line and headers.
    private(set) var head = ""

    /// Connects to `127.0.0.1:port`, sends the upgrade request for `path` with `headers`, reads the answer;
    /// throws `Refused` (with the answer) unless it is 101.
    init(port: UInt16, path: String, headers: [String] = ["Origin: http://127.0.0.1:PORT"], timeout: Double = 10) throws {
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        fd = sock
        guard sock >= 0 else { throw Refused(head: "socket: \(String(cString: strerror(errno)))") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        // On a throw below, deinit closes the socket (every stored property is set by then).
        guard Tools.connectLoopback(sock, port: port) else {
            throw Refused(head: "connect: \(String(cString: strerror(errno)))")
        }
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for h in headers { request += h.replacingOccurrences(of: "PORT", with: String(port)) + "\r\n" }
        request += "\r\n"
        var head = ""
        do {
            try Self.write(sock, Array(request.utf8))
            while true {
                if let end = Self.find([13, 10, 13, 10], in: buffer) {
                    head = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeFirst(end + 4)
                    break
                }
                try fill()
            }
        }
        self.head = head
        guard head.hasPrefix("HTTP/1.1 101") else {
            // The refusal's body (JSON) follows the head: read it up to its Content-Length (no waiting past it).
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < length, (try? fillOrEnd()) == true {}
            throw Refused(head: head + "\n" + String(decoding: buffer, as: UTF8.self))
        }
    }

    deinit { close(fd) }

    /// Sends one text frame.
    func send(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for i in (0..<8).reversed() { frame.append(UInt8((payload.count >> (8 * i)) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try Self.write(fd, frame)
    }

    /// Sends bytes as they are (a frame made by the test, broken on purpose).
    func send(raw: [UInt8]) throws { try Self.write(fd, raw) }

    /// A text frame: FIN, `rsv` in bits 4-6 of the first byte, masked when `masked`, any length.
    static func textFrame(_ text: String, masked: Bool = true, rsv: UInt8 = 0, opcode: UInt8 = 0x1) -> [UInt8] {
        let payload = Array(text.utf8)
        let bit: UInt8 = masked ? 0x80 : 0
        var frame: [UInt8] = [0x80 | (rsv << 4) | opcode]
        if payload.count < 126 {
            frame.append(bit | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [bit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(bit | 127)
            for i in (0..<8).reversed() { frame.append(UInt8((payload.count >> (8 * i)) & 0xFF)) }
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return frame + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// Reads frames until the server's close frame: its status code and reason; nil when the connection ended
    /// without one.
    func closeFrame() throws -> (code: Int, reason: String)? {
        while let (opcode, payload) = try frame() {
            guard opcode == 0x8 else { continue }
            guard payload.count >= 2 else { return (1005, "") }
            return (Int(payload[0]) << 8 | Int(payload[1]), String(decoding: payload.dropFirst(2), as: UTF8.self))
        }
        return nil
    }

    /// Sends a JSON object as a text frame.
    func send(json: [String: Any]) throws {
        try send(String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self))
    }

    /// The next text message, or nil when the server closed (a close frame or the end of the connection).
    func receive() throws -> String? {
        while true {
            guard let (opcode, payload) = try frame() else { return nil }
            switch opcode {
            case 0x1: return String(decoding: payload, as: UTF8.self)
            case 0x8: return nil
            default: continue  // ping/pong/binary: not used by the signalling
            }
        }
    }

    /// The next message as a JSON object (nil when closed).
    func receiveJSON() throws -> [String: Any]? {
        guard let text = try receive() else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// One frame (unmasked, from the server).
    private func frame() throws -> (UInt8, [UInt8])? {
        func need(_ n: Int) throws -> Bool {
            while buffer.count < n { if try !fillOrEnd() { return false } }
            return true
        }
        guard try need(2) else { return nil }
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard try need(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard try need(10) else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        guard try need(offset + length) else { return nil }
        let payload = Array(buffer[offset..<offset + length])
        buffer.removeFirst(offset + length)
        return (opcode, payload)
    }

    /// Reads more; false at the end of the connection. A timeout throws.
    private func fillOrEnd() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = read(fd, &chunk, chunk.count)
        if n < 0 { throw Refused(head: "read: \(String(cString: strerror(errno)))") }
        if n == 0 { return false }
        buffer += chunk[0..<n]
        return true
    }

    private func fill() throws { if try !fillOrEnd() { throw Refused(head: "connection closed") } }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { throw Refused(head: "write: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where Array(hay[i..<i + needle.count]) == needle { return i }
        return nil
    }
}
