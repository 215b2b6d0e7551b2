import Foundation
import GStreamerKit
import Stages

/// The WebSocket behind `GET /api/webrtc`: one browser peer of the session's `webrtcserve` per connection.
///
/// Messages are JSON text frames. The server sends `{"type":"offer","sdp":...}` (webrtcbin's offer, made when the
/// peer's branch starts), `{"type":"ice","candidate":...,"sdpMLineIndex":N}` and `{"type":"error","error":...}`; the
/// browser sends `{"type":"answer","sdp":...}` and its own `ice` messages. A malformed message is answered with an
/// error naming the field and what was expected (`WebRTCClientMessage`); the connection stays. Past `WebRTCServer.peerLimit` peers the
/// connection gets one error and is closed. When the socket closes the peer's branch is removed.
///
/// Threads: runs on the server's tasks; webrtcbin's threads only yield into the outgoing stream (never block: the
/// stream keeps the newest `outgoingLimit` messages), and the peer's methods hand their work to the WebRTC server's
/// own queue.
struct WebRTCSignalling: WSMessageHandler {
    /// Messages waiting for a slow browser at most (an offer and a handful of candidates is what is ever sent).
    static let outgoingLimit = 256

    let server: WebRTCServer

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (out, sink) = AsyncStream.makeStream(of: WSMessage.self, bufferingPolicy: .bufferingNewest(Self.outgoingLimit))
        let peer: WebRTCPeer
        do {
            peer = try server.addPeer(send: { sink.yield(.text(Self.text($0))) }, onClose: { sink.finish() })
        } catch {
            sink.yield(.text(Self.text(.error(error.message))))
            sink.yield(.close(.policyViolation))
            sink.finish()
            return out
        }
        Task {
            for await message in client {
                switch message {
                case .text(let text):
                    if let problem = Self.handle(Data(text.utf8), peer: peer) { sink.yield(.text(Self.text(.error(problem)))) }
                case .data(let data):
                    if let problem = Self.handle(data, peer: peer) { sink.yield(.text(Self.text(.error(problem)))) }
                case .close:
                    break
                }
            }
            peer.close()
            sink.finish()
        }
        return out
    }

    /// Applies one browser message (decoded by `WebRTCClientMessage`, every value checked); returns what was wrong
    /// with it, or nil. Problems the peer finds later (an SDP that does not parse, an m-line the offer does not
    /// have) come back through its `send`.
    static func handle(_ data: Data, peer: WebRTCPeer) -> String? {
        do {
            switch try WebRTCClientMessage.decode(data) {
            case .answer(let sdp): peer.answer(sdp: sdp)
            case .candidate(let candidate, let mline): peer.addCandidate(candidate, mline: mline)
            case .endOfCandidates: break
            }
            return nil
        } catch {
            return error.message
        }
    }

    /// A signal as the JSON text the page reads.
    static func text(_ signal: WebRTCSignal) -> String {
        let object: [String: Any]
        switch signal {
        case .offer(let sdp): object = ["type": "offer", "sdp": sdp]
        case .candidate(let c, let mline): object = ["type": "ice", "candidate": c, "sdpMLineIndex": mline]
        case .error(let e): object = ["type": "error", "error": e]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
