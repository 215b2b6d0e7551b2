import Foundation
import GStreamerKit
import Stages

/// `webrtcserve`: a WebRTC sink the host provides in descriptions (not a GStreamer element, not a stage), for the
/// control page's preview: `videotestsrc is-live=true ! compose ! webrtcserve` with `--http`.
///
/// It is rewritten, before the description is planned, into `appsink name=vf_webrtc0 ...` (raw video); the session
/// then runs one `WebRTCServer` fed by that appsink, which encodes once (VP8) for every browser peer; peers
/// connect through the control server's `GET /api/webrtc` WebSocket. Properties: `name` (the appsink's name), `codec`
/// (vp8, the default, or h264: both decode in Debian's Chromium) and `stun-server` (`stun://host:port`, off by
/// default: loopback and a LAN need none). One per description; the
/// command line must have `--http` (checked by the CLI: exit 2 otherwise).
///
/// Threads and locks: none; pure functions of the description, called on the building thread.
public struct WebRTCServe: Equatable, Sendable {
    /// The name used in descriptions.
    public static let factory = "webrtcserve"
    /// The appsink the frames leave the described pipeline by (`name=` as written, else `vf_webrtc0`).
    public var appSink: String
    /// `stun://host:port`, or nil.
    public var stunServer: String?
    /// `codec=`: vp8 (default) or h264.
    public var codec: WebRTCServer.Codec

    /// Creates a plan (the defaults are chosen by `extract`).
    public init(appSink: String, stunServer: String? = nil, codec: WebRTCServer.Codec = .vp8) {
        self.appSink = appSink
        self.stunServer = stunServer
        self.codec = codec
    }

    /// `webrtcserve` as a description element: its properties, parsed as a stage's are.
    public static let spec = ServiceElementSpec(
        factory: factory,
        properties: [
            PropertySpec("codec", "video codec sent to the browsers", .choice(WebRTCServer.Codec.allCases.map(\.rawValue)), default: "vp8"),
            PropertySpec("stun-server", "STUN server as stun://HOST:PORT (off when empty)", .string, default: ""),
        ],
        feed: "raw video, e.g. 'videotestsrc is-live=true ! compose ! webrtcserve'", maxBuffers: 2, sinkPrefix: "vf_webrtc")

    /// The plan of the claimed `webrtcserve` (nil without one): only one per description.
    static func plan(_ claims: [ClaimedElement]) throws(HostError) -> WebRTCServe? {
        guard let claim = claims.first else { return nil }
        if claims.count > 1 {
            throw HostError(.usage, "webrtcserve: only one per description (the page shows one preview): remove the second webrtcserve")
        }
        let v = claim.values
        var serve = WebRTCServe(appSink: claim.appSink, codec: WebRTCServer.Codec(rawValue: v.string("codec")) ?? .vp8)
        let stun = v.string("stun-server")
        if v.assigned.contains("stun-server") {
            let rest = stun.hasPrefix("stun://") ? String(stun.dropFirst("stun://".count)) : ""
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
                throw HostError(
                    .usage,
                    "webrtcserve: stun-server '\(Echo.value(stun))' is not stun://HOST:PORT: expected e.g. stun-server=stun://127.0.0.1:3478")
            }
            serve.stunServer = stun
        }
        return serve
    }

    /// Replaces the `webrtcserve` node of `parsed` by its appsink; returns the description and the server to run
    /// (nil without one), or a usage error naming the bad property and what was expected.
    public static func extract(from parsed: ParsedDescription) throws(HostError) -> (ParsedDescription, WebRTCServe?) {
        let (out, claims) = try ServiceClaims.extract(from: parsed, specs: [spec])
        return (out, try plan(claims))
    }

    /// The elements the server needs, with the Debian package that brings each.
    static func requiredElements(_ codec: WebRTCServer.Codec) -> [(factory: String, package: String)] {
        let encoder: [(String, String)] =
            switch codec {
            case .vp8: [("vp8enc", "gstreamer1.0-plugins-good"), ("rtpvp8pay", "gstreamer1.0-plugins-good")]
            case .h264: [("x264enc", "gstreamer1.0-plugins-ugly"), ("rtph264pay", "gstreamer1.0-plugins-good")]
            }
        return [("webrtcbin", "gstreamer1.0-plugins-bad"), ("nicesrc", "gstreamer1.0-nice")] + encoder
    }

    /// Checks that the elements exist and raw video reaches the appsink, then makes the server (its encode pipeline
    /// idle until a peer).
    func makeServer(in pipelines: [Pipeline]) throws(HostError) -> WebRTCServer {
        for (factory, package) in Self.requiredElements(codec) where !GStreamer.hasElementFactory(factory) {
            throw HostError(.usage, "webrtcserve (codec=\(codec.rawValue)) needs the GStreamer element \(factory): install \(package)")
        }
        guard let sink = pipelines.lazy.compactMap({ $0.appSink(named: self.appSink) }).first else {
            throw HostError(.usage, "internal: webrtcserve's appsink '\(appSink)' missing from the expanded segments")
        }
        if let caps = sink.peerCaps(pad: "sink"), !caps.isAny {
            let names = caps.structureNames
            if names.isEmpty || names.contains(where: { $0 != "video/x-raw" }) {
                let fed = caps.isEmpty ? "nothing (no caps)" : names.joined(separator: "; ")
                throw HostError(
                    .usage,
                    "webrtcserve is fed with \(fed), expected raw video (video/x-raw): it encodes itself (VP8), so put it after a stage "
                        + "or a decoder, e.g. '... ! compose ! webrtcserve'")
            }
        }
        do { return try WebRTCServer(feed: sink, codec: codec, stunServer: stunServer) } catch {
            throw HostError(
                .usage,
                "webrtcserve: cannot make the \(codec.rawValue) encode pipeline (\(error.message)): install gstreamer1.0-plugins-good "
                    + "(vp8enc, rtpvp8pay), -ugly (x264enc) and -bad")
        }
    }
}
