import NIOCore
import NIOWebSocket

/// RFC 6455 5.1 and 5.2 for the frames a client sends: every frame masked, no RSV bit set (this server negotiates no
/// extension). Any other frame gets a close frame with 1002 (protocol error) and the connection ends.
final class WebSocketFrameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var failed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = unwrapInboundIn(data)
        let problem: String? =
            frame.maskKey == nil ? "unmasked client frame" : (frame.rsv1 || frame.rsv2 || frame.rsv3) ? "reserved bits set without an extension" : nil
        guard let problem else {
            context.fireChannelRead(data)
            return
        }
        failed = true
        var payload = context.channel.allocator.buffer(capacity: 2 + problem.utf8.count)
        payload.write(webSocketErrorCode: .protocolError)
        payload.writeString(problem)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: nil)
        context.close(promise: nil)
    }
}
