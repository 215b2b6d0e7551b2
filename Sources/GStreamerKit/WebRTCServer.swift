import CGStreamer
import CGstWebRTC
import Dispatch
import Synchronization

/// What a WebRTC peer says to its browser (the signalling channel carries it as JSON).
public enum WebRTCSignal: Sendable, Equatable {
    /// The server's SDP offer.
    case offer(sdp: String)
    /// One of the server's ICE candidates, for the m-line at `mline`.
    case candidate(String, mline: Int)
    /// Something went wrong for this peer.
    case error(String)
}

/// Serves a described pipeline's frames to browsers over WebRTC: raw frames from an appsink go, through a relay
/// that never waits, into a pipeline of the server's own that encodes ONCE
/// (`appsrc ! queue leaky=downstream ! videoconvert ! vp8enc (realtime) ! rtpvp8pay ! tee`, or x264enc and rtph264pay
/// with `.h264`); every browser peer
/// is one `queue leaky=downstream ! webrtcbin bundle-policy=max-bundle` branch on the tee, added when it
/// connects and removed when it leaves, so a peer that stops reading costs only its own packets. Frames enter
/// the encoder only while a peer is connected (no viewer, no encoding); a new peer's browser asks for a
/// keyframe (RTCP PLI), which webrtcbin turns into a force-key-unit for the encoder.
///
/// Threads and locks: the relay runs on the described pipeline's streaming thread and never blocks (C,
/// `VfWebRTCRelay`); webrtcbin's callbacks hand text to each peer's `send` closure (which must not block);
/// adding and removing peers and state changes run on the server's serial queue `vf-webrtc`, never on a video
/// thread nor on a caller's; the peer table is under one mutex. The server's bus is drained every 0.5 s on that
/// queue (errors go to `onError`).
public final class WebRTCServer: @unchecked Sendable {
    /// Peers at once at most (each one costs a DTLS/SRTP session and a branch).
    public static let peerLimit = 8
    /// Remote ICE candidates taken from one browser at most (past it each is answered with an error signal).
    public static let remoteCandidateLimit = Int(VF_WEBRTC_REMOTE_CANDIDATE_LIMIT)
    /// The codec the server encodes to (once, for every peer).
    public enum Codec: String, Sendable, CaseIterable {
        /// VP8 (vp8enc): every WebRTC browser decodes it; the default.
        case vp8
        /// H.264 constrained baseline (x264enc): Debian's Chromium 156 decodes it too (checked by WebRTCPageTests).
        case h264

        /// The RTP caps the encode branch produces and the transceivers are set to (codec preferences).
        var rtpCaps: String {
            switch self {
            case .vp8: "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000"
            case .h264: "application/x-rtp,media=video,encoding-name=H264,payload=96,clock-rate=90000,packetization-mode=(string)1"
            }
        }

        /// Encoder and payloader, from raw video to RTP.
        func encoder(keyframeInterval: Int) -> String {
            switch self {
            // Realtime (deadline=1), fastest speed (cpu-used=16), no look-ahead, ONE thread: with threads=2 libvpx's
            // workers spin-wait, and on this loaded 2-core machine 150 frames of 640x360 took 15.5 s instead of 0.7 s
            // (measured with gst-launch-1.0): the preview fell to a few frames a second.
            case .vp8:
                "vp8enc name=\(VF_WEBRTC_ENCODER_NAME) deadline=1 cpu-used=16 end-usage=cbr target-bitrate=1500000 lag-in-frames=0 "
                    + "error-resilient=default keyframe-max-dist=\(keyframeInterval) threads=1 "
                    + "! rtpvp8pay pt=96 mtu=1200 picture-id-mode=15-bit"
            case .h264:
                "x264enc name=\(VF_WEBRTC_ENCODER_NAME) tune=zerolatency speed-preset=ultrafast bitrate=1500 key-int-max=\(keyframeInterval) "
                    + "threads=1 ! video/x-h264,profile=constrained-baseline "
                    + "! rtph264pay pt=96 mtu=1200 config-interval=-1 aggregate-mode=zero-latency"
            }
        }
    }

    /// The encode pipeline's description; frames come in at the appsrc.
    static func encodeDescription(codec: Codec, keyframeInterval: Int) -> String {
        "appsrc name=\(VF_WEBRTC_SOURCE_NAME) is-live=true format=time do-timestamp=true block=false max-buffers=2 leaky-type=downstream "
            + "! queue leaky=downstream max-size-buffers=2 max-size-bytes=0 max-size-time=0 ! videoconvert "
            + "! \(codec.encoder(keyframeInterval: keyframeInterval)) ! \(codec.rtpCaps) ! tee name=\(VF_WEBRTC_TEE_NAME) allow-not-linked=true"
    }

    private let pipeline: Pipeline
    private let relay: UnsafeMutablePointer<VfWebRTCRelay>
    private let sink: AppSink
    private let queue = DispatchQueue(label: "vf-webrtc")
    private let table = Mutex<(peers: [Int: WebRTCPeer], next: Int, started: Bool, stopped: Bool)>(([:], 0, false, false))
    /// A STUN server (`stun://host:port`) for the peers, nil for none (the default: loopback and LAN need none).
    public let stunServer: String?
    /// The local address ICE gathers host candidates on, the control server's (set before `start()`); nil for
    /// every interface (the control server on 0.0.0.0). A 127.x address also ignores remote candidates off
    /// loopback. UPnP is always off.
    public let iceAddress: Mutex<String?> = Mutex("127.0.0.1")
    /// Called with the server pipeline's errors (from its queue).
    public let onError: Mutex<(@Sendable (String) -> Void)?> = Mutex(nil)

    /// The codec every peer gets.
    public let codec: Codec

    /// Builds the encode pipeline and feeds it from `feed` (frames go in only while a peer is connected).
    public init(feed: AppSink, codec: Codec = .vp8, stunServer: String? = nil, keyframeInterval: Int = 30) throws(GStreamerError) {
        GStreamer.initialize()
        self.codec = codec
        pipeline = try Pipeline.parse(Self.encodeDescription(codec: codec, keyframeInterval: keyframeInterval))
        guard let src = pipeline.element(named: VF_WEBRTC_SOURCE_NAME), let enc = pipeline.element(named: VF_WEBRTC_ENCODER_NAME),
            let r = vf_webrtc_relay_new(src.raw)
        else { throw GStreamerError(.library, "webrtcserve: the encode pipeline has no appsrc or encoder") }
        relay = r
        sink = feed
        self.stunServer = stunServer
        vf_webrtc_relay_attach(r, feed.raw, enc.raw)
    }

    deinit {
        stop()
        vf_webrtc_relay_detach_sink(sink.raw)
        vf_webrtc_relay_unref(relay)
    }

    /// Plays the encode pipeline (idle until a peer comes) and starts draining its bus.
    public func start() {
        let go = table.withLock { t in
            guard !t.started, !t.stopped else { return false }
            t.started = true
            return true
        }
        guard go else { return }
        pipeline.setState(.playing)
        queue.asyncAfter(deadline: .now() + 0.5) { [weak self] in self?.drainBus() }
    }

    /// Pops the encode pipeline's bus (errors to `onError`), then again in 0.5 s until stopped; on the queue.
    private func drainBus() {
        while let m = pipeline.bus.pop() {
            if case .error(let text, let debug) = m.kind {
                let hook = onError.withLock { $0 }
                hook?("webrtcserve: \(text)\(debug.map { " (\($0))" } ?? "")")
            }
        }
        guard !table.withLock({ $0.stopped }) else { return }
        queue.asyncAfter(deadline: .now() + 0.5) { [weak self] in self?.drainBus() }
    }

    /// Removes every peer (their `onClose` runs) and stops the encode pipeline. Safe to call more than once.
    public func stop() {
        let peers: [WebRTCPeer] = table.withLock { t in
            if t.stopped { return [] }
            t.stopped = true
            defer { t.peers = [:] }
            return Array(t.peers.values)
        }
        vf_webrtc_relay_set_active(relay, 0)
        queue.sync {
            for p in peers { p.detach() }
            pipeline.setState(.null)
        }
    }

    /// Peers connected now.
    public var peerCount: Int { table.withLock { $0.peers.count } }

    /// Frames taken from the described pipeline, frames the encoder was given, buffers out of the encoder.
    public var counts: (received: UInt64, forwarded: UInt64, encoded: UInt64) {
        var r: guint64 = 0
        var f: guint64 = 0
        var e: guint64 = 0
        vf_webrtc_relay_counts(relay, &r, &f, &e)
        return (UInt64(r), UInt64(f), UInt64(e))
    }

    /// Why a peer was refused.
    public struct Refusal: Error, Sendable { public var message: String }

    /// Adds a browser peer: its branch is made on the server's queue and negotiation starts (the offer and
    /// candidates arrive through `send`, on webrtcbin's threads: it must not block). `onClose` runs once when the
    /// peer is removed by the server (its stop). Refused past `peerLimit` peers, or when the server is stopped.
    public func addPeer(send: @escaping @Sendable (WebRTCSignal) -> Void, onClose: @escaping @Sendable () -> Void = {}) throws(Refusal)
        -> WebRTCPeer
    {
        let address = iceAddress.withLock { $0 }
        let loopback = address?.hasPrefix("127.") ?? false
        let (peer, count): (WebRTCPeer?, Int) = table.withLock { t in
            guard t.started, !t.stopped else { return (nil, -1) }
            guard t.peers.count < Self.peerLimit else { return (nil, t.peers.count) }
            let p = WebRTCPeer(id: t.next, server: self, send: send, onClose: onClose)
            t.next += 1
            t.peers[p.id] = p
            return (p, t.peers.count)
        }
        guard let peer else {
            if count < 0 { throw Refusal(message: "webrtcserve: the stream is not running (not started yet, or ended)") }
            throw Refusal(
                message: "webrtcserve: at most \(Self.peerLimit) viewers at once (\(count) connected): close another viewer first")
        }
        vf_webrtc_relay_set_active(relay, Int32(clamping: count))
        let pipeline = self.pipeline
        let stun = stunServer
        let codec = self.codec
        let error: String? = queue.sync {
            // stop() may have taken the table meanwhile (it detaches on this queue): make no branch then.
            if table.withLock({ $0.stopped }) { return "the stream ended" }
            var problem: UnsafePointer<CChar>?
            let box = Unmanaged.passRetained(SignalBox(send)).toOpaque()
            let raw = vf_webrtc_peer_new(pipeline.raw, codec.rtpCaps, stun, address, loopback ? 1 : 0, 256, webRTCSend, webRTCRelease, box, &problem)
            guard let raw else {
                Unmanaged<SignalBox>.fromOpaque(box).release()
                return problem.map { String(cString: $0) } ?? "cannot add a peer"
            }
            peer.attach(raw)
            return problem.map { String(cString: $0) }
        }
        if let error {
            remove(peer)
            throw Refusal(message: "webrtcserve: \(error)")
        }
        return peer
    }

    /// Takes `peer` out (its branch removed on the server's queue); nothing is sent to it afterwards.
    func remove(_ peer: WebRTCPeer) {
        let left: Int? = table.withLock { t in t.peers.removeValue(forKey: peer.id) == nil ? nil : t.peers.count }
        guard let left else { return }
        vf_webrtc_relay_set_active(relay, Int32(clamping: left))
        queue.async { peer.detach() }
    }

    /// Runs `work` on the server's queue (peer operations that call into webrtcbin).
    func perform(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
}

/// One browser connected to a `WebRTCServer`: answer and candidates in, `close()` when its signalling ends.
///
/// Threads: its methods may be called from any thread; they run on the server's queue.
public final class WebRTCPeer: @unchecked Sendable {
    let id: Int
    private weak var server: WebRTCServer?
    private let send: @Sendable (WebRTCSignal) -> Void
    private let onClose: @Sendable () -> Void
    /// The C branch (touched only on the server's queue).
    private var raw: UnsafeMutablePointer<VfWebRTCPeer>?

    init(id: Int, server: WebRTCServer, send: @escaping @Sendable (WebRTCSignal) -> Void, onClose: @escaping @Sendable () -> Void) {
        self.id = id
        self.server = server
        self.send = send
        self.onClose = onClose
    }

    /// Set once on the server's queue.
    func attach(_ raw: UnsafeMutablePointer<VfWebRTCPeer>) { self.raw = raw }

    /// Removes the branch (on the server's queue) and tells the owner.
    func detach() {
        guard let r = raw else { return }
        raw = nil
        vf_webrtc_peer_remove(r)
        onClose()
    }

    /// The browser's SDP answer. An SDP that does not parse is answered with an error signal.
    public func answer(sdp: String) {
        server?.perform { [self] in
            guard let r = raw else { return }
            if vf_webrtc_peer_set_answer(r, sdp) == 0 {
                send(.error("answer: the SDP does not parse (or has no m= line): expected the browser's createAnswer() SDP"))
            }
        }
    }

    /// A browser ICE candidate (`candidate:...` line) for m-line `mline`; off-loopback candidates are ignored in
    /// loopback-only mode, an empty one (end of candidates) too. An m-line the offer does not have (or a candidate
    /// before the offer), and candidates past `WebRTCServer.remoteCandidateLimit`, are answered with an error signal
    /// and go no further.
    public func addCandidate(_ candidate: String, mline: UInt32) {
        server?.perform { [self] in
            guard let r = raw else { return }
            var mlines: guint = 0
            switch vf_webrtc_peer_add_candidate(r, guint(mline), candidate, &mlines) {
            case -1:
                send(.error(mlines == 0
                    ? "ice: a candidate before the offer: expected candidates for the offer's m-lines after it"
                    : "ice 'sdpMLineIndex' \(mline): expected 0...\(mlines - 1) (the offer's m-lines)"))
            case -2:
                send(.error("ice: more than \(WebRTCServer.remoteCandidateLimit) candidates from this browser: expected a handful"))
            default:
                break
            }
        }
    }

    /// The browser left: the branch is removed.
    public func close() { server?.remove(self) }
}

/// The Swift closure a C peer calls (kept alive by the C peer's reference until its release callback).
private final class SignalBox: @unchecked Sendable {
    let send: @Sendable (WebRTCSignal) -> Void
    init(_ send: @escaping @Sendable (WebRTCSignal) -> Void) { self.send = send }
}

/// C -> Swift: a peer's signal (on a webrtcbin thread).
private let webRTCSend: VfWebRTCSend = { ctx, kind, text, mline in
    guard let ctx, let text else { return }
    let box = Unmanaged<SignalBox>.fromOpaque(ctx).takeUnretainedValue()
    let s = String(cString: text)
    switch kind {
    case 0: box.send(.offer(sdp: s))
    case 1: box.send(.candidate(s, mline: Int(mline)))
    default: box.send(.error(s))
    }
}

/// C -> Swift: the C peer is freed; its closure goes.
private let webRTCRelease: VfWebRTCRelease = { ctx in
    guard let ctx else { return }
    Unmanaged<SignalBox>.fromOpaque(ctx).release()
}
