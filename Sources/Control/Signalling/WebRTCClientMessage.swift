import Foundation

// Pure on purpose (Foundation only, no GStreamer, no server library): launch/fuzz compiles this file alone with
// `swiftc -sanitize=fuzzer` (Fuzz/SignallingFuzz.swift).

/// One message a browser sends on `/api/webrtc`, decoded into checked values: whatever reaches the WebRTC peer
/// (and so webrtcbin) is a bounded string without NUL characters and an m-line index that fits a `guint`.
public enum WebRTCClientMessage: Equatable, Sendable {
    /// `{"type":"answer","sdp":"v=0..."}`: the browser's SDP answer.
    case answer(sdp: String)
    /// `{"type":"ice","candidate":"candidate:...","sdpMLineIndex":N}`: one remote ICE candidate.
    case candidate(String, mline: UInt32)
    /// `{"type":"ice","candidate":null}` (or "", or no `candidate`): the browser has no more candidates.
    case endOfCandidates

    /// Largest message taken (an SDP answer is a few kB).
    public static let messageLimit = 64 * 1024
    /// Largest SDP answer (bytes of UTF-8).
    public static let sdpLimit = 32 * 1024
    /// Largest candidate line (a browser's are under 300 bytes).
    public static let candidateLimit = 1024

    /// Decodes one text or binary WebSocket message; the error names the field and what was expected.
    public static func decode(_ data: Data) throws(WebRTCMessageError) -> WebRTCClientMessage {
        guard data.count <= messageLimit else { throw .init("message larger than \(messageLimit) bytes (\(data.count))") }
        let fields: [String: JSONField]
        do { fields = try JSONDecoder().decode([String: JSONField].self, from: data) } catch {
            throw .init("not a JSON object: expected {\"type\":\"answer\",\"sdp\":...} or {\"type\":\"ice\",...}")
        }
        switch fields["type"] {
        case .string("answer"):
            guard let sdp = try text(fields["sdp"], "answer", "sdp", limit: sdpLimit, expected: "the SDP text") else {
                throw .init("answer without 'sdp': expected the SDP text")
            }
            return .answer(sdp: sdp)
        case .string("ice"):
            guard let candidate = try text(fields["candidate"], "ice", "candidate", limit: candidateLimit,
                                           expected: "a candidate:... line, or null at the end") else { return .endOfCandidates }
            return .candidate(candidate, mline: try mline(fields["sdpMLineIndex"]))
        case .string(let other):
            throw .init("unknown 'type' '\(clip(other))': expected answer or ice")
        case nil, .null:
            throw .init("unknown 'type' (none): expected answer or ice")
        case let other?:
            throw .init("'type' is \(other.kind): expected the string answer or ice")
        }
    }

    /// A string field: nil when absent, null or empty; checked for size and NUL characters.
    private static func text(_ field: JSONField?, _ type: String, _ name: String, limit: Int, expected: String) throws(WebRTCMessageError)
        -> String?
    {
        switch field {
        case nil, .null: return nil
        case .string(let s):
            if s.isEmpty { return nil }
            let bytes = s.utf8.count
            guard bytes <= limit else { throw .init("\(type) '\(name)' has \(bytes) bytes: expected at most \(limit)") }
            guard !s.utf8.contains(0) else { throw .init("\(type) '\(name)' contains a NUL character: expected \(expected)") }
            return s
        case let other?: throw .init("\(type) '\(name)' is \(other.kind): expected \(expected)")
        }
    }

    /// `sdpMLineIndex`: a JSON integer in 0...UInt32.max (the peer then checks it against its offer's m-lines).
    private static func mline(_ field: JSONField?) throws(WebRTCMessageError) -> UInt32 {
        let expected = "expected an integer in 0...\(UInt32.max)"
        switch field {
        case nil, .null: throw .init("ice without 'sdpMLineIndex': expected a non-negative integer")
        case .integer(let n):
            guard let m = UInt32(exactly: n) else { throw .init("ice 'sdpMLineIndex' \(n): \(expected)") }
            return m
        case .number(let x): throw .init("ice 'sdpMLineIndex' \(x): \(expected)")
        case let other?: throw .init("ice 'sdpMLineIndex' is \(other.kind): \(expected)")
        }
    }

    /// A value quoted back: its first 80 characters and its length.
    static func clip(_ s: String) -> String {
        s.count > 80 ? String(s.prefix(80)) + "… (\(s.count) characters)" : s
    }
}

/// What was wrong with a browser's message (sent back to it as `{"type":"error","error":message}`).
public struct WebRTCMessageError: Error, Equatable, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// One top-level field of a signalling message, by JSON kind; arrays and objects are not looked into. Decoding
/// never fails for a well-formed value: an integer beyond Int64 is a `.number`, one beyond Double `.hugeNumber`.
enum JSONField: Decodable, Equatable {
    case null, bool(Bool), integer(Int64), number(Double), hugeNumber, string(String), array, object

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let i = try? c.decode(Int64.self) { self = .integer(i); return }
        do {
            self = .number(try c.decode(Double.self))
        } catch DecodingError.typeMismatch {
            if let s = try? c.decode(String.self) { self = .string(s) }
            else if (try? decoder.unkeyedContainer()) != nil { self = .array }
            else { self = .object }
        } catch {
            // A number Double cannot hold (1e400): Foundation calls it "not representable".
            self = .hugeNumber
        }
    }

    /// "a number", "an array", ... for messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .hugeNumber: "a number too large to represent"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
