import Diagnostics
import Foundation
import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOPosix
import NIOWebSocket
import Synchronization
import WSCore

/// The limits of the control server. Every one holds before authentication (the token, Host and Origin checks
/// run on a complete request only).
public struct ControlLimits: Sendable {
    /// Bytes of the request line, and of each header field (larger: 431, connection closed).
    public var requestLine = 8 * 1024
    /// Bytes of all header fields of one request (larger: 431, connection closed).
    public var headers = 64 * 1024
    /// Bytes of a request body (larger: 413, connection closed: the rest is never read as a request).
    public var body = 64 * 1024
    /// Seconds a connection may take to send a complete request head: from its start, and from the end of the
    /// previous response on a kept-alive connection (a slowloris client or an idle one is closed then).
    public var headTimeout = 10.0
    /// Seconds the body may take once the head is read.
    public var bodyTimeout = 10.0
    /// Connections at once (at most half the process's descriptor limit); beyond, new ones wait in the listen
    /// backlog until one closes.
    public var connections = 512
    /// Seconds one write of a stream (events, preview) may wait for a client that does not read before the
    /// connection is closed (the client's slot is freed).
    public var streamStall = 10.0
    /// The socket send buffer of stream connections (bytes; the kernel doubles it): small, so a client that stops
    /// reading is noticed after this much, not after megabytes (32 KB at 50 ms round trip still carries 640 KB/s).
    public var streamSendBuffer = 16 * 1024
    /// Largest WebSocket message and frame from a client.
    public var webSocketMessage = 64 * 1024

    public init() {}
    /// The server's defaults.
    public static let standard = ControlLimits()
}

/// The HTTP/1.1 server under `ControlServer`: Hummingbird 2 (`HummingbirdCore`'s `Server`, the WebSocket upgrade of
/// `HummingbirdWebSocket`) on SwiftNIO, adapted here, in one place, to the Control module's own values
/// (`ControlRequest`, `ControlResponse`): routes and services never see the library.
///
/// Limits (`ControlLimits`): NIO's llhttp parser (linear in the input) with the request line and each header
/// field at most `requestLine` bytes and all headers `headers` bytes, answered 431 and closed by
/// `ConnectionGuard`; the head within `headTimeout` (slowloris, idle kept-alive connections), the body within
/// `bodyTimeout`, more than `body` bytes 413 and closed; at most `connections`, never the process's last
/// descriptors (`DescriptorReserve`: the listener stops accepting); stream writes that wait longer than
/// `streamStall` close the connection. Accept failures (EMFILE, ENFILE) are retried by NIO's
/// `AcceptBackoffHandler` (1 s) and said at most once a minute (`AcceptFailureReport`). WebSocket frames from the client
/// must be masked and carry no RSV bit (no extension is negotiated): else close 1002 (`WebSocketFrameCheck`).
final class ControlHTTPServer: Sendable {
    let limits: ControlLimits
    private let server: Server<GuardedChannel>

    /// A server on `host:port` (0: any free port) answering with `handle` (the router); `onListening` gets the
    /// bound port.
    init(
        host: String, port: Int, handle: @escaping @Sendable (ControlRequest) async -> ControlResponse, limits: ControlLimits,
        onListening: @escaping @Sendable (Int) -> Void
    ) {
        self.limits = limits
        let responder = Responder(handle: handle, limits: limits)
        let http1 = HTTP1Channel.Configuration(
            idleTimeout: nil,
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.requestLine, maxHeaderListSize: limits.headers, maxHeaderFieldCount: 100))
        let ws = WebSocketServerConfiguration(
            maxFrameSize: limits.webSocketMessage, extensions: [], autoPing: .enabled(timePeriod: .seconds(30)), closeTimeout: .seconds(5),
            validateUTF8: true)
        let upgrade = HTTP1WebSocketUpgradeChannel(
            responder: { request, writer, channel in try await responder.respond(request, writer, channel) },
            configuration: .init(http1: http1, ws: ws),
            shouldUpgrade: { head, channel, _ in await responder.shouldUpgrade(head, channel) })
        // Hummingbird's own log lines (a refused upgrade, a closed connection) are not the user's business: only
        // `AcceptFailureReport` speaks, through the control logger.
        var quiet = Logger(label: Log.Label.control)
        quiet.logLevel = .critical
        server = Server(
            childChannelSetup: GuardedChannel(inner: upgrade, limits: limits),
            configuration: ServerConfiguration(
                address: .hostname(host, port: port), backlog: 256, reuseAddress: true,
                availableConnectionsDelegate: DescriptorReserve(maxConnections: Self.connectionCap(limits.connections))),
            onServerRunning: { channel in
                // Before the backoff handler, so it sees the accept errors first.
                try? await channel.pipeline.addHandler(AcceptFailureReport(), position: .first)
                DescriptorReserve.nudge(channel)
                let port = channel.localAddress?.port ?? port
                onListening(port)
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: quiet)
    }

    /// `connections`, or half the process's descriptor limit when that is lower (at least 8): the control port alone
    /// cannot use up the descriptors the rest of the process needs (out of descriptors, libdispatch traps when it
    /// makes a timer: measured with `prlimit --nofile=128`).
    static func connectionCap(_ connections: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, let soft = Int(exactly: limit.rlim_cur) else {
            return connections
        }
        return Swift.min(connections, Swift.max(8, soft / 2))
    }

    /// A bind error as a user reads it (`Address already in use`, not NIO's call description).
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }

    /// Serves until `stop()` (or the task is cancelled); throws when the address cannot be bound.
    func run() async throws { try await server.run() }

    /// Stops accepting, closes idle connections and waits for the others (streams end first: the caller closes
    /// their sources).
    func stop() async { try? await server.shutdownGracefully() }
}

/// Turns Hummingbird's requests into `ControlRequest`s for the router and its `ControlResponse`s into bytes.
struct Responder: Sendable {
    let handle: @Sendable (ControlRequest) async -> ControlResponse
    let limits: ControlLimits

    /// Thrown after a response that ends the connection (Hummingbird closes the channel on a responder's error).
    struct CloseConnection: Error {}

    /// The Control module's view of a request head.
    static func request(_ head: HTTPRequest, body: Data = Data()) -> ControlRequest {
        var headers = ControlHeaders()
        // HTTPTypes keeps the Host header as the request's authority.
        if let authority = head.authority { headers.append("Host", authority) }
        for field in head.headerFields { headers.append(field.name.rawName, field.value) }
        return ControlRequest(method: ControlMethod(rawValue: head.method.rawValue), target: head.path ?? "/", headers: headers, body: body)
    }

    func respond(_ request: Request, _ writer: consuming ResponseWriter, _ channel: any Channel) async throws {
        let tooLarge = ControlRouter.error(.payloadTooLarge, "request body larger than \(limits.body) bytes")
        var iterator = request.body.makeAsyncIterator()
        var body = Data()
        var over = request.headers[.contentLength].flatMap { Int($0) }.map { $0 > limits.body } ?? false
        while !over, let buffer = try await iterator.next() {
            body.append(contentsOf: buffer.readableBytesView)
            over = body.count > limits.body
        }
        if over {
            // Answered with `Connection: close`; what the client still sends is read (for a second at most, so the
            // answer is not lost to a reset) and dropped: it is never parsed as a request.
            var r = tooLarge
            r.headers["Connection"] = "close"
            try await writeWhole(r, writer)
            try? await channel.close(mode: .output)
            let deadline = ContinuousClock.now + .seconds(1)
            let closer = Task {
                try await Task.sleep(until: deadline)
                try await channel.close()
            }
            while ContinuousClock.now < deadline, (try? await iterator.next()) != nil {}
            closer.cancel()
            throw CloseConnection()
        }
        let control = Self.request(request.head, body: body)
        let response = await handle(control)
        switch response.body {
        case .bytes(let data):
            var head = Self.head(response)
            // A HEAD answer may say the length its GET would send (`RangeFile`); every other answer's is its body's.
            if request.method != .head || head.headerFields[.contentLength] == nil { head.headerFields[.contentLength] = String(data.count) }
            var out = try await writer.writeHead(head)
            if request.method != .head, !data.isEmpty { try await out.write(ByteBuffer(bytes: data)) }
            try await out.finish(nil)
        case .stream(let source):
            defer { source.leave() }
            try await stream(source, head: Self.head(response), writer, channel)
        case .webSocket:
            try await writeWhole(
                ControlRouter.error(.badRequest, "\(control.path) is a WebSocket: expected a GET with 'Upgrade: websocket'"), writer)
        }
    }

    func writeWhole(_ response: ControlResponse, _ writer: consuming ResponseWriter) async throws {
        guard case .bytes(let data) = response.body else { return }
        var head = Self.head(response)
        head.headerFields[.contentLength] = String(data.count)
        var out = try await writer.writeHead(head)
        try await out.write(ByteBuffer(bytes: data))
        try await out.finish(nil)
    }

    /// A stream's chunks as they come. A write that waits longer than `streamStall` (the client stopped reading
    /// and the socket's buffers are full) closes the connection.
    func stream(_ source: ControlStream, head: HTTPResponse, _ writer: consuming ResponseWriter, _ channel: any Channel) async throws {
        if source.live {
            try? await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(limits.streamSendBuffer))
            try? await channel.setOption(
                ChannelOptions.writeBufferWaterMark, value: .init(low: limits.streamSendBuffer / 4, high: limits.streamSendBuffer / 2))
        }
        // (NIO's own buffer: the writer waits once 8 KB are queued above the socket's.)
        let writing = Mutex<ContinuousClock.Instant?>(nil)
        let stall = Duration.seconds(limits.streamStall)
        let watchdog = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: min(stall / 4, .seconds(1)))
                if let since = writing.withLock({ $0 }), ContinuousClock.now - since > stall {
                    try await channel.close()
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        var out = try await writer.writeHead(head)
        while let chunk = await source.next() {
            writing.withLock { $0 = .now }
            try await out.write(ByteBuffer(bytes: chunk))
            writing.withLock { $0 = nil }
        }
        try await out.finish(nil)
    }

    /// A WebSocket upgrade request: routed like any request (token, Host, Origin, then the route); a route that
    /// answers with a WebSocket is upgraded to, any other answer is written as it is and the connection closed.
    func shouldUpgrade(_ head: HTTPRequest, _ channel: any Channel) async -> ShouldUpgradeResult<
        WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > {
        let response = await handle(Self.request(head))
        if case .webSocket(let socket) = response.body {
            let limit = limits.webSocketMessage
            return .upgrade([:], { inbound, outbound, _ in try await Self.bridge(socket.handler, inbound, outbound, limit: limit) })
        }
        // NIO's upgrader would answer a refusal with an empty 400: write the route's answer first, then close. A
        // stream (an upgrade asked of /api/events) is left at once and refused.
        var answer = response
        if case .stream(let source) = response.body {
            source.leave()
            answer = ControlRouter.error(.badRequest, "not a WebSocket: expected a GET without 'Upgrade: websocket'")
        }
        guard case .bytes(let data) = answer.body else { return .dontUpgrade }
        var headers = HTTPHeaders()
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        headers.replaceOrAdd(name: "Content-Length", value: String(data.count))
        headers.replaceOrAdd(name: "Connection", value: "close")
        let status = HTTPResponseStatus(statusCode: answer.statusCode.code, reasonPhrase: answer.statusCode.reason)
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: data))), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
        return .dontUpgrade
    }

    /// Runs a `WSMessageHandler` on a WebSocket: the client's messages in, the handler's out, until either side ends.
    static func bridge(_ handler: any WSMessageHandler, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, limit: Int)
        async throws
    {
        let (client, sink) = AsyncStream.makeStream(of: WSMessage.self)
        defer { sink.finish() }
        let messages = try await handler.makeMessages(for: client)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in messages {
                    switch message {
                    case .text(let text): try await outbound.write(.text(text))
                    case .data(let data): try await outbound.write(.binary(ByteBuffer(bytes: data)))
                    case .close(let code):
                        try await outbound.close(WebSocketErrorCode(codeNumber: Int(code.code)), reason: nil)
                        return
                    }
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: limit) {
                    switch message {
                    case .text(let text): sink.yield(.text(text))
                    case .binary(let buffer): sink.yield(.data(Data(buffer.readableBytesView)))
                    }
                }
                sink.yield(.close(.normalClosure))
                sink.finish()
            }
            // The client's side ending lets the handler finish its stream; the handler's ending ends the connection.
            _ = try await group.next()
            sink.finish()
            if case nil = try? await group.next() {}
            group.cancelAll()
        }
    }

    static func head(_ response: ControlResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let n = HTTPField.Name(name) { fields.append(HTTPField(name: n, value: value)) }
        }
        return HTTPResponse(status: .init(code: response.statusCode.code, reasonPhrase: response.statusCode.reason), headerFields: fields)
    }
}

/// Hummingbird's HTTP/1.1 + WebSocket channel with `ConnectionGuard` in its pipeline from the first byte.
struct GuardedChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    let limits: ControlLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // After the HTTP decoder, encoder and upgrade handler; before what is added once the first head is read.
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

/// One connection's deadlines and parse errors, on NIO's HTTP/1 parts:
/// - the request head must be complete within `headTimeout` of the connection's start or of the end of the last
///   response, the body within `bodyTimeout` of the head; else the connection is closed;
/// - a head over the size limits (llhttp's header overflow) is answered 431, any other parse error 400, and closed;
/// - on a WebSocket upgrade it puts `WebSocketFrameCheck` behind the frame decoder and leaves.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let limits: ControlLimits
    private var deadline: Scheduled<Void>?
    private var reading = false
    private var unanswered = 0

    init(limits: ControlLimits) { self.limits = limits }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, seconds: limits.headTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, seconds: limits.headTimeout)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            reading = true
            unanswered += 1
            arm(context, seconds: limits.bodyTimeout)
        case .body: break
        case .end:
            reading = false
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            if unanswered == 0 && !reading { arm(context, seconds: limits.headTimeout) }
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        disarm()
        // Mid-response nothing can be said; else the answer, then the end.
        if unanswered == 0 {
            let tooLarge = parse == .headerOverflow
            let answer =
                tooLarge
                ? ControlRouter.error(
                    .headerFieldsTooLarge,
                    "request line or header field longer than \(limits.requestLine) bytes, or headers longer than \(limits.headers) bytes")
                : ControlRouter.error(.badRequest, "malformed HTTP request: \(parse)")
            guard case .bytes(let data) = answer.body else { return }
            var headers = HTTPHeaders()
            for (name, value) in answer.headers { headers.add(name: name, value: value) }
            headers.add(name: "Content-Length", value: String(data.count))
            headers.add(name: "Connection", value: "close")
            let status = HTTPResponseStatus(statusCode: answer.statusCode.code, reasonPhrase: answer.statusCode.reason)
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: data)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case HTTPServerUpgradeEvents.upgradeComplete = event {
            // The frame decoder is in place and no frame has been decoded yet (NIO unbuffers after this event).
            do {
                let decoder = try context.pipeline.syncOperations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try context.pipeline.syncOperations.addHandler(WebSocketFrameCheck(), position: .after(decoder))
            } catch {
                context.close(promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func arm(_ context: ChannelHandlerContext, seconds: Double) {
        disarm()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
