import Foundation
import GStreamerKit
import Stages

/// `rtspserve`: an RTSP server sink the host provides in descriptions (not a GStreamer element, not a stage).
///
/// `... ! x264enc ! rtph264pay ! rtspserve port=8554 path=/live bind=127.0.0.1` is rewritten, before the
/// description is planned, into `appsink name=vf_rtsp0 ...`; the session then runs one `RTSPServer` per
/// rtspserve, whose shared media is fed with that appsink's RTP packets (one encode for any number of
/// clients). Properties: `port` (1-65535, default 8554), `path` (starting with `/`, default `/live`), `bind`
/// (an IP address, default 127.0.0.1), `auth-file` (user:password lines: clients log in, `RTSPCredentials`), `auth`
/// (digest or basic), `anonymous` (a non-loopback bind without credentials is refused unless this is true) and `name`.
///
/// Run by `RTSPServeService` (made by `RTSPServeFactory`).
///
/// Threads and locks: none; pure functions of the description, called on the building thread.
public struct RTSPServe: Equatable, Sendable {
    /// The name used in descriptions.
    public static let factory = "rtspserve"
    /// The appsink the packets leave the described pipeline by (`name=` as written, else `vf_rtspN`).
    public var appSink: String
    /// The TCP port.
    public var port: Int
    /// The mount path, e.g. `/live`.
    public var path: String
    /// The address the server listens on.
    public var bind: String
    /// Who may watch (`auth-file=`), nil for anyone who reaches the port.
    public var credentials: RTSPCredentials?
    /// `anonymous=true`: serving beyond this machine without credentials was asked for.
    public var anonymous: Bool

    /// Creates a plan (the defaults are chosen by `extract`).
    public init(appSink: String, port: Int, path: String, bind: String, credentials: RTSPCredentials? = nil, anonymous: Bool = false) {
        self.appSink = appSink
        self.port = port
        self.path = path
        self.bind = bind
        self.credentials = credentials
        self.anonymous = anonymous
    }

    /// True when only this machine can connect (127.0.0.0/8 or ::1).
    public var isLoopback: Bool { IPAddress.isLoopback(bind) }

    /// The URL clients open.
    public var url: String { "rtsp://\(bind.contains(":") ? "[\(bind)]" : bind):\(port)\(path)" }

    /// `rtspserve` as a description element: its properties, parsed as a stage's are.
    public static let spec = ServiceElementSpec(
        factory: factory,
        properties: [
            PropertySpec("port", "TCP port the server listens on", .int(1...65535), default: "8554"),
            PropertySpec("path", "mount path clients open, starting with /", .string, default: "/live"),
            PropertySpec("bind", "IP address to listen on (anything but loopback needs auth-file= or anonymous=true)", .string, default: "127.0.0.1"),
            PropertySpec("auth-file", "file of user:password lines: clients must log in (401 otherwise)", .string, default: ""),
            PropertySpec("auth", "how clients log in with auth-file", .choice(RTSPCredentials.Method.allCases.map(\.rawValue)), default: "digest"),
            PropertySpec("anonymous", "serve a non-loopback bind= without credentials (anyone who reaches the port can watch)", .bool, default: "false"),
        ],
        feed: "RTP, e.g. '... ! x264enc ! rtph264pay ! rtspserve port=8554 path=/live'", maxBuffers: 64, sinkPrefix: "vf_rtsp")

    /// The plan of one claimed `rtspserve`, or a usage error naming the bad property and what was expected.
    init(claim: ClaimedElement) throws(HostError) {
        let v = claim.values
        let path = v.string("path"), bind = v.string("bind")
        guard path.hasPrefix("/") else {
            throw HostError(.usage, "rtspserve: path '\(Echo.value(path))' must start with '/': expected e.g. path=/\(Echo.value(path))")
        }
        guard path.allSatisfy({ !$0.isWhitespace && $0 != "?" && $0 != "#" }) else {
            throw HostError(.usage, "rtspserve: path '\(Echo.value(path))' has a space, '?' or '#': expected a plain path such as /live")
        }
        guard IPAddress.isNumeric(bind) else {
            throw HostError(
                .usage, "rtspserve: bind '\(Echo.value(bind))' is not an IP address: expected e.g. bind=127.0.0.1 (default), 0.0.0.0 or ::1")
        }
        let file = v.string("auth-file")
        let credentials = file.isEmpty ? nil : try RTSPCredentials.load(file: file, method: RTSPCredentials.Method(rawValue: v.string("auth")) ?? .digest)
        let anonymous = v.bool("anonymous")
        if credentials == nil && !anonymous && !IPAddress.isLoopback(bind) {
            throw HostError(
                .usage,
                "rtspserve: bind=\(Echo.value(bind)) serves beyond this machine without credentials: expected auth-file=FILE "
                    + "(user:password lines; clients log in), or anonymous=true to let anyone who reaches port \(v.int("port")) watch")
        }
        if credentials != nil && anonymous {
            throw HostError(.usage, "rtspserve: auth-file= and anonymous=true contradict each other: expected one of them")
        }
        self.init(appSink: claim.appSink, port: v.int("port"), path: path, bind: bind, credentials: credentials, anonymous: anonymous)
    }

    /// The plans of the claimed `rtspserve` elements; two on one port are refused.
    static func plans(_ claims: [ClaimedElement]) throws(HostError) -> [RTSPServe] {
        var serves: [RTSPServe] = []
        for c in claims {
            let serve = try RTSPServe(claim: c)
            if let other = serves.first(where: { $0.port == serve.port }) {
                throw HostError(
                    .usage,
                    "rtspserve: port \(serve.port) is used by two rtspserve elements (\(other.path) and \(serve.path)); give each its own port=")
            }
            serves.append(serve)
        }
        return serves
    }

    /// Replaces every `rtspserve` node of `parsed` by its appsink; returns the description and the servers
    /// to run, or a usage error naming the bad property and what was expected.
    public static func extract(from parsed: ParsedDescription) throws(HostError) -> (ParsedDescription, [RTSPServe]) {
        let (out, claims) = try ServiceClaims.extract(from: parsed, specs: [spec])
        return (out, try plans(claims))
    }

    /// The media re-payloads what the described pipeline payloaded (RTP encoding name -> depayloader, payloader and
    /// its options): gst-rtsp-server needs a real payloader as `pay0`. No decoding happens. For H.264/H.265 the
    /// parser's `config-interval=-1` puts the parameter sets before every keyframe INSIDE its access unit, so late
    /// joiners decode at the first one; the payloader's own `config-interval=-1` sends them as packets of their own
    /// that strict clients (ffmpeg) count as one more frame with the keyframe's timestamp: a duplicate DTS at every
    /// keyframe (measured: "Non-monotonous DTS" once a second with key-int-max=30).
    static let repayloaders: [String: (depay: String, pay: String, options: String)] = [
        "H264": ("rtph264depay ! h264parse config-interval=-1", "rtph264pay", ""),
        "H265": ("rtph265depay ! h265parse config-interval=-1", "rtph265pay", ""),
        "VP8": ("rtpvp8depay", "rtpvp8pay", ""),
        "VP9": ("rtpvp9depay", "rtpvp9pay", ""),
        "JPEG": ("rtpjpegdepay", "rtpjpegpay", ""),
        "MP4V-ES": ("rtpmp4vdepay", "rtpmp4vpay", " config-interval=-1"),
        "OPUS": ("rtpopusdepay", "rtpopuspay", ""),
    ]

    /// Checks that RTP reaches the appsink in `pipeline` (a caps query of what is linked before it), then
    /// makes the server, bound now so a port in use fails before anything runs.
    func makeServer(in pipelines: [Pipeline]) throws(HostError) -> RTSPServer {
        guard let sink = pipelines.lazy.compactMap({ $0.appSink(named: self.appSink) }).first else {
            throw HostError(.usage, "internal: rtspserve's appsink '\(appSink)' missing from the expanded segments")
        }
        let caps = sink.peerCaps(pad: "sink")
        let names = caps?.structureNames ?? []
        if names.isEmpty || names.contains(where: { $0 != "application/x-rtp" }) {
            let fed = caps.map { c in c.isAny ? "anything (ANY caps)" : (c.isEmpty ? "nothing (no caps)" : names.joined(separator: "; ")) }
                ?? "nothing"
            throw HostError(
                .usage,
                "rtspserve (\(url)) is fed with \(fed), expected RTP (application/x-rtp): put a payloader such as rtph264pay before "
                    + "rtspserve, e.g. '... ! x264enc ! rtph264pay ! rtspserve'"
            )
        }
        let encoding = (caps?.fixatedField("encoding-name") ?? "").uppercased()
        guard let pair = Self.repayloaders[encoding] else {
            throw HostError(
                .usage,
                "rtspserve (\(url)) is fed with RTP encoding '\(Echo.value(encoding))': expected one of "
                    + "\(Self.repayloaders.keys.sorted().joined(separator: ", ")) (rtph264pay, rtph265pay, rtpvp8pay, ...)"
            )
        }
        let pt = caps?.fixatedField("payload").flatMap { Int($0) }.flatMap { (96...127).contains($0) ? $0 : nil } ?? 96
        let payload = "\(pair.depay) ! \(pair.pay) name=pay0 pt=\(pt)\(pair.options)"
        let users = credentials.map { c in (list: c.users, digest: c.method == .digest) }
        do { return try RTSPServer(address: bind, port: port, path: path, payload: payload, feed: sink, users: users) } catch {
            throw HostError(
                .usage, "rtspserve: cannot listen on \(bind):\(port) (\(error.message)): choose another port= or stop what uses it")
        }
    }
}
