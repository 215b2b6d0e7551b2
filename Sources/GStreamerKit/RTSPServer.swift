import CGStreamer
import CGstRtspServer
import Synchronization

/// An RTSP server (gst-rtsp-server) serving one path, fed with RTP packets from an appsink of a described
/// pipeline: one SHARED media per path, so N clients cost one encode (the encoder and payloader stay in the
/// described pipeline, once). Each media is `appsrc ! PAYLOAD`, PAYLOAD a depayloader and a payloader named
/// `pay0` (`rtph264depay ! rtph264pay name=pay0 pt=96 config-interval=-1`): gst-rtsp-server needs a real
/// payloader for the RTP-Info of PLAY, and re-payloading costs little (no decoding). A shared media is made
/// again when a client comes after the last one left, and the relay then feeds the new one.
///
/// Limits (before authentication): `clientLimit` connections at once, each handled on a thread of its own from the
/// server's thread pool (so one client's slow or huge request never holds another's), request bodies of
/// `bodyLimit` bytes at most (413 and closed); a request that does not parse is answered 400 and closed; a
/// connection with no session `setupSeconds` after it came is shut (so idle connections cannot hold every place).
///
/// Threads and locks: the server accepts on its own GMainContext on a thread `vf-rtsp` (started by `start()`);
/// packets are relayed on the appsink's streaming thread without waiting (the appsrc never blocks: at most
/// `maxPackets` queued, the oldest dropped); the relay's state is under one C mutex (`VfRtspRelay`), never
/// held while pushing. `start()`/`stop()` are called by one owner thread; `counts` from any.
public final class RTSPServer: @unchecked Sendable {
    /// Client connections at once at most (one thread each); past it a connection is shut at once.
    public static let clientLimit = Int(VF_RTSP_CLIENT_LIMIT)
    /// Largest request body taken (bytes).
    public static let bodyLimit = Int(VF_RTSP_BODY_LIMIT)
    /// Seconds a connection may stay without a session; then it is shut.
    public static let setupSeconds = Int(VF_RTSP_SETUP_SECONDS)
    /// The bind address as given, e.g. `127.0.0.1`.
    public let address: String
    /// The TCP port.
    public let port: Int
    /// The mount path, starting with `/`.
    public let path: String
    private let server: UnsafeMutablePointer<GstRTSPServer>
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private let relay: UnsafeMutablePointer<VfRtspRelay>
    private let sink: AppSink
    /// The listening source (owns the socket: released by `stop()`, which closes the port), the loop's thread.
    private let state: Mutex<(source: Listener?, thread: LoopThread?, stopped: Bool)>

    /// The GThread running the server's loop (only ever joined by the owner, in `stop()`).
    private struct LoopThread: @unchecked Sendable { let raw: OpaquePointer }
    /// The server's listening GSource (a reference).
    private struct Listener: @unchecked Sendable { let raw: UnsafeMutablePointer<GSource> }

    /// Creates the server and binds its socket now (`payload`: the media's elements after its appsrc, the last
    /// one named pay0) (so a port in use fails here, before anything runs);
    /// clients are served once `start()` attaches it. The appsink's packets go to the media from now on.
    /// `users`: the users and passwords clients must log in with (digest when `digest`, else basic), nil for none.
    public init(
        address: String, port: Int, path: String, payload: String, feed: AppSink, maxPackets: Int = 1000,
        users: (list: [(user: String, password: String)], digest: Bool)? = nil
    ) throws(GStreamerError) {
        GStreamer.initialize()
        self.address = address
        self.port = port
        self.path = path
        sink = feed
        guard let s = gst_rtsp_server_new() else { throw GStreamerError(.library, "rtspserve: gst_rtsp_server_new failed") }
        gst_rtsp_server_set_address(s, address)
        gst_rtsp_server_set_service(s, String(port))
        guard let r = vf_rtsp_relay_new() else {
            g_object_unref(UnsafeMutableRawPointer(s))
            throw GStreamerError(.library, "rtspserve: cannot allocate the relay")
        }
        vf_rtsp_server_limit(s, r)
        if let mounts = gst_rtsp_server_get_mount_points(s) {
            let factory = vf_rtsp_factory_new(r, guint(clamping: max(1, maxPackets)), payload)
            if let users {
                vf_rtsp_auth_require(s, factory, users.digest ? 1 : 0)
                for u in users.list { vf_rtsp_auth_add_user(s, u.user, u.password, users.digest ? 1 : 0) }
            }
            gst_rtsp_mount_points_add_factory(mounts, path, factory)  // takes the factory
            g_object_unref(UnsafeMutableRawPointer(mounts))
        }
        var error: UnsafeMutablePointer<GError>?
        guard let src = gst_rtsp_server_create_source(s, nil, &error) else {
            let text = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            vf_rtsp_relay_unref(r)
            g_object_unref(UnsafeMutableRawPointer(s))
            throw GStreamerError(.resource, text)
        }
        server = s
        state = Mutex((Listener(raw: src), nil, false))
        relay = r
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        vf_rtsp_relay_attach(r, feed.raw)
    }

    deinit {
        stop()
        vf_rtsp_relay_detach_sink(sink.raw)
        g_object_unref(UnsafeMutableRawPointer(server))
        g_main_loop_unref(loop)
        g_main_context_unref(context)
        vf_rtsp_relay_unref(relay)
    }

    /// The URL clients open, e.g. `rtsp://127.0.0.1:8554/live` (an IPv6 address in brackets).
    public var url: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "rtsp://\(host):\(port)\(path)"
    }

    /// Starts serving clients on the server's thread. Once only; a stopped server stays stopped.
    public func start() {
        state.withLock { s in
            guard s.thread == nil, !s.stopped, let source = s.source else { return }
            g_source_attach(source.raw, context)
            if let t = vf_rtsp_loop_start(loop) { s.thread = LoopThread(raw: OpaquePointer(t)) }
        }
    }

    /// Ends the stream for the clients (EOS, then their connections closed), stops the server's thread and
    /// joins it; the listening socket is closed. Safe to call more than once, and without `start()`.
    public func stop() {
        let (source, thread): (Listener?, LoopThread?) = state.withLock { s in
            if s.stopped { return (nil, nil) }
            s.stopped = true
            defer { s.source = nil }
            return (s.source, s.thread)
        }
        guard let thread else {
            // Never started (or already stopped): only the socket to close.
            if let source { Self.close(source) }
            return
        }
        if vf_rtsp_relay_has_media(relay) != 0 {
            vf_rtsp_relay_end(relay)
            // Let the media send its EOS (RTCP BYE, which rtpsession schedules up to about 3 s out) before the
            // connections close, and the clients that got it send their PAUSE and TEARDOWN, hear the answers and
            // hang up (closed under them, rtspsrc reports "Could not send message" and exits with an error): up
            // to 5 s, less once every client hung up. This is the owner's thread at the end of a run, not a
            // video thread.
            var waited = 0
            while vf_rtsp_server_client_count(server) > 0 && waited < 100 {
                g_usleep(50_000)
                waited += 1
            }
        } else {
            vf_rtsp_relay_end(relay)
        }
        vf_rtsp_server_close_clients(server)
        if let source { Self.close(source) }
        g_main_loop_quit(loop)
        _ = g_thread_join(UnsafeMutablePointer(thread.raw))
        vf_rtsp_relay_detach_media(relay)
    }

    /// Detaches the listening source and drops it with its socket (the port is free again).
    private static func close(_ source: Listener) {
        g_source_destroy(source.raw)
        g_source_unref(source.raw)
    }

    /// Client connections open now (the server's list, under its lock: any thread).
    public var clientCount: Int { Int(vf_rtsp_server_client_count(server)) }

    /// Connections refused past `clientLimit` so far, and connections shut for having no session `setupSeconds`
    /// after they came.
    public var refusedClients: (overLimit: UInt64, idle: UInt64) {
        var refused: guint64 = 0
        var idle: guint64 = 0
        vf_rtsp_relay_refused(relay, &refused, &idle)
        return (UInt64(refused), UInt64(idle))
    }

    /// Packets taken from the appsink, packets a media accepted, medias made so far, and how often the relay's
    /// timing had to start again from "now" (the described pipeline's time stepped back or jumped by over 2 s).
    public var counts: (received: UInt64, forwarded: UInt64, medias: UInt64, retimed: UInt64) {
        var r: guint64 = 0
        var f: guint64 = 0
        var m: guint64 = 0
        var t: guint64 = 0
        vf_rtsp_relay_counts(relay, &r, &f, &m, &t)
        return (UInt64(r), UInt64(f), UInt64(m), UInt64(t))
    }
}
