import Foundation

/// The control server's own request and response values: what `ControlRouter` and every service's `ControlRoutes`
/// see. The server library (Hummingbird, SwiftNIO) is adapted to them in one place, `ControlHTTPServer`, so no
/// service imports it.

/// An HTTP method.
public struct ControlMethod: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static let GET = ControlMethod(rawValue: "GET")
    public static let HEAD = ControlMethod(rawValue: "HEAD")
    public static let POST = ControlMethod(rawValue: "POST")
    public static let PUT = ControlMethod(rawValue: "PUT")
    public static let PATCH = ControlMethod(rawValue: "PATCH")
    public static let DELETE = ControlMethod(rawValue: "DELETE")
    public static let OPTIONS = ControlMethod(rawValue: "OPTIONS")
}

/// A response status: its code and reason phrase.
public struct ControlStatus: Hashable, Sendable {
    public var code: Int
    public var reason: String
    public init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }
    public static let ok = ControlStatus(200, "OK")
    public static let created = ControlStatus(201, "Created")
    public static let accepted = ControlStatus(202, "Accepted")
    public static let badRequest = ControlStatus(400, "Bad Request")
    public static let unauthorized = ControlStatus(401, "Unauthorized")
    public static let forbidden = ControlStatus(403, "Forbidden")
    public static let notFound = ControlStatus(404, "Not Found")
    public static let methodNotAllowed = ControlStatus(405, "Method Not Allowed")
    public static let requestTimeout = ControlStatus(408, "Request Timeout")
    public static let conflict = ControlStatus(409, "Conflict")
    public static let payloadTooLarge = ControlStatus(413, "Payload Too Large")
    public static let headerFieldsTooLarge = ControlStatus(431, "Request Header Fields Too Large")
    public static let internalServerError = ControlStatus(500, "Internal Server Error")
    public static let serviceUnavailable = ControlStatus(503, "Service Unavailable")
}

/// Header fields in order; names compare case-insensitively.
public struct ControlHeaders: Sendable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    public init(dictionaryLiteral elements: (String, String)...) {
        for (n, v) in elements { self[n] = v }
    }

    /// The first value of `name`; setting replaces every value of `name` (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            let i = fields.firstIndex { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if let newValue { fields.insert((name, newValue), at: Swift.min(i ?? fields.count, fields.count)) }
        }
    }

    /// Adds a field, keeping those of the same name.
    public mutating func append(_ name: String, _ value: String) { fields.append((name, value)) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

/// A request as the routes see it: the whole body is already read (at most the server's body limit).
public struct ControlRequest: Sendable {
    public var method: ControlMethod
    /// The request target's path as sent (still percent-encoded), without the query.
    public var rawPath: String
    /// `rawPath` percent-decoded (no dot-segment removal: routes that serve files read `rawPath`).
    public var path: String
    /// The query's parameters, percent-decoded (the first of a repeated name).
    public var query: [String: String]
    public var headers: ControlHeaders
    public var body: Data
    /// The prefix the request came in under, taken off `path` and `rawPath` before its route saw them
    /// (`/api/pipelines/NAME` in `serve`, empty in `launch`): answers that name URLs put it back in front.
    public var mount = ""

    public init(method: ControlMethod, target: String, headers: ControlHeaders = [:], body: Data = Data()) {
        self.method = method
        let q = target.firstIndex(of: "?")
        rawPath = String(target[..<(q ?? target.endIndex)])
        path = rawPath.removingPercentEncoding ?? rawPath
        var query: [String: String] = [:]
        if let q {
            for pair in target[target.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (s: Substring) in String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
                let name = decode(kv[0])
                if query[name] == nil { query[name] = kv.count > 1 ? decode(kv[1]) : "" }
            }
        }
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// A response: status, headers and one of three bodies.
public struct ControlResponse: Sendable {
    /// What follows the head.
    public enum Body: Sendable {
        /// Bytes of a known length.
        case bytes(Data)
        /// A stream without end (server-sent events, the MJPEG preview): chunks until the source ends or the
        /// client goes; a client that stops reading is evicted (`ControlLimits.streamStall`).
        case stream(ControlStream)
        /// A WebSocket connection (after a `GET` with `Upgrade: websocket`).
        case webSocket(ControlWebSocket)
    }
    public var statusCode: ControlStatus
    public var headers: ControlHeaders
    public var body: Body

    public init(statusCode: ControlStatus, headers: ControlHeaders = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = .bytes(body)
    }

    public init(statusCode: ControlStatus, headers: ControlHeaders = [:], body: Body) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}

/// The source of a streamed body: `next()` gives the next chunk (waiting for it), nil at the end; `leave()` is
/// called once when the connection ends, however it ends.
public struct ControlStream: Sendable {
    let next: @Sendable () async -> Data?
    let leave: @Sendable () -> Void
    /// A live stream (events, preview) is written through small socket buffers, so a client that stops reading is
    /// noticed within `ControlLimits.streamStall`; a file is written through the usual ones (at loopback speed).
    let live: Bool

    init(client: EventClient) {
        next = { await client.next() }
        leave = { client.leave() }
        live = true
    }

    /// A file's chunks from `next` until it gives nil (`RangeFile`), written as fast as the client reads.
    init(file next: @escaping @Sendable () async -> Data?, leave: @escaping @Sendable () -> Void) {
        self.next = next
        self.leave = leave
        live = false
    }
}

/// A WebSocket endpoint: the messages it sends for the messages it receives.
public struct ControlWebSocket: Sendable {
    let handler: any WSMessageHandler
    init(_ handler: any WSMessageHandler) { self.handler = handler }
}

/// A WebSocket message as a route sees it (text, binary, or the close it asks for).
enum WSMessage: Sendable, Equatable {
    case text(String)
    case data(Data)
    case close(WSCloseCode)
}

/// A WebSocket close code (RFC 6455 7.4.1).
struct WSCloseCode: Hashable, Sendable {
    var code: UInt16
    static let normalClosure = WSCloseCode(code: 1000)
    static let goingAway = WSCloseCode(code: 1001)
    static let protocolError = WSCloseCode(code: 1002)
    static let policyViolation = WSCloseCode(code: 1008)
    static let messageTooBig = WSCloseCode(code: 1009)
}

/// One WebSocket connection's logic: given the client's messages, the messages to send (ending the returned
/// stream closes the connection).
protocol WSMessageHandler: Sendable {
    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage>
}
