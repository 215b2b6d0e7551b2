#ifndef VIEWFINDER_CGSTRTSPSERVER_SHIM_H
#define VIEWFINDER_CGSTRTSPSERVER_SHIM_H
// gst-rtsp-server (Debian's libgstrtspserver-1.0-dev) for `rtspserve`: the relay that carries RTP packets
// from the described pipeline's appsink into the shared media's appsrc, and the server's main-loop thread.
// Written in C because g_signal_connect is a macro, signal and appsink callbacks are C function pointers
// that run on GStreamer's threads, and GThread takes a C function. Used only by GStreamerKit/RTSPServer.swift.
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/rtsp-server/rtsp-server.h>

// The appsrc inside each media is named "vf_rtsp_src"; what follows it (a depayloader and a payloader named pay0,
// chosen by RTSPServe from the RTP encoding) is given by the caller. gst-rtsp-server serves the element named pay0
// and needs a real payloader there: it reads its "pt" and its "stats" (seqnum, timestamp) for the RTP-Info header
// of PLAY; without stats a PLAY that comes while no packet is held answers 500 Internal Server Error.
#define VF_RTSP_SOURCE_NAME "vf_rtsp_src"

/// Shared between the appsink's streaming thread (new-sample) and the server's thread (media-configure,
/// unprepared); every field under `lock`, which is never held while pushing. Reference-counted: the owner,
/// the appsink callbacks and every signal connection hold one, so no callback outlives it.
typedef struct {
    gint refs;
    GMutex lock;
    GstAppSrc *src;     /* the current shared media's appsrc (a reference), or NULL when no media */
    GstCaps *caps;      /* the last RTP caps seen at the appsink (a reference), or NULL */
    guint64 received;   /* packets taken from the appsink */
    guint64 forwarded;  /* packets a media's appsrc accepted */
    guint64 medias;     /* medias configured (a shared media is made again after its last client left) */
    gboolean ended;     /* the stream ended: no new media gets fed */
    /* Timing of the current media (reset when a media is configured): a packet's running time in the described
     * pipeline plus `offset` is its running time in the media; `last` is the last such time given (ordering key). */
    gboolean timed;
    gint64 offset;
    gint64 last;
    guint64 retimed;    /* times the offset was measured again (a jump in the described pipeline's time) */
    gint clients;       /* client connections open now (atomic) */
    guint64 refused;    /* connections refused past VF_RTSP_CLIENT_LIMIT */
    guint64 idle;       /* connections shut for having no session VF_RTSP_SETUP_SECONDS after connecting */
} VfRtspRelay;

/// A relay with one reference (the caller's).
static inline VfRtspRelay *vf_rtsp_relay_new(void) {
    VfRtspRelay *r = g_new0(VfRtspRelay, 1);
    r->refs = 1;
    g_mutex_init(&r->lock);
    return r;
}

static inline VfRtspRelay *vf_rtsp_relay_ref(VfRtspRelay *r) { g_atomic_int_inc(&r->refs); return r; }

/// Drops one reference; the last frees the relay and what it holds.
static inline void vf_rtsp_relay_unref(gpointer data) {
    VfRtspRelay *r = (VfRtspRelay *)data;
    if (!g_atomic_int_dec_and_test(&r->refs)) return;
    if (r->src) gst_object_unref(r->src);
    if (r->caps) gst_caps_unref(r->caps);
    g_mutex_clear(&r->lock);
    g_free(r);
}
static void vf_rtsp_relay_unref_closure(gpointer data, GClosure *c) { (void)c; vf_rtsp_relay_unref(data); }

/// Drops the current media's appsrc (the server stops): nothing is pushed after this returns.
static inline void vf_rtsp_relay_detach_media(VfRtspRelay *r) {
    g_mutex_lock(&r->lock);
    if (r->src) { gst_object_unref(r->src); r->src = NULL; }
    g_mutex_unlock(&r->lock);
}

/// True while a media is fed (some client joined and it was not unprepared since).
static inline gboolean vf_rtsp_relay_has_media(VfRtspRelay *r) {
    g_mutex_lock(&r->lock);
    gboolean has = r->src != NULL;
    g_mutex_unlock(&r->lock);
    return has;
}

static inline void vf_rtsp_relay_counts(VfRtspRelay *r, guint64 *received, guint64 *forwarded, guint64 *medias, guint64 *retimed) {
    g_mutex_lock(&r->lock);
    *received = r->received;
    *forwarded = r->forwarded;
    *medias = r->medias;
    *retimed = r->retimed;
    g_mutex_unlock(&r->lock);
}

/// A media was unprepared (its last client left, or the server stops): stop feeding its appsrc.
static void vf_rtsp_media_unprepared(GstRTSPMedia *media, gpointer data) {
    VfRtspRelay *r = (VfRtspRelay *)data;
    GstElement *top = gst_rtsp_media_get_element(media);
    GstElement *src = top ? gst_bin_get_by_name(GST_BIN(top), VF_RTSP_SOURCE_NAME) : NULL;
    g_mutex_lock(&r->lock);
    if (src && r->src == (GstAppSrc *)src) { gst_object_unref(r->src); r->src = NULL; }
    g_mutex_unlock(&r->lock);
    if (src) gst_object_unref(src);
    if (top) gst_object_unref(top);
}

/// A new (shared) media was made for a client: feed its appsrc from now on, with the caps seen so far.
static void vf_rtsp_media_configure(GstRTSPMediaFactory *f, GstRTSPMedia *media, gpointer data) {
    (void)f;
    VfRtspRelay *r = (VfRtspRelay *)data;
    GstElement *top = gst_rtsp_media_get_element(media);
    if (!top) return;
    GstElement *src = gst_bin_get_by_name(GST_BIN(top), VF_RTSP_SOURCE_NAME);
    gst_object_unref(top);
    if (!src) return;
    g_mutex_lock(&r->lock);
    if (r->caps) gst_app_src_set_caps(GST_APP_SRC(src), r->caps);
    if (r->src) gst_object_unref(r->src);
    r->src = GST_APP_SRC(src);  /* takes the reference from gst_bin_get_by_name */
    r->medias++;
    r->timed = FALSE;
    if (r->ended) gst_app_src_end_of_stream(r->src);
    g_mutex_unlock(&r->lock);
    g_signal_connect_data(media, "unprepared", G_CALLBACK(vf_rtsp_media_unprepared), vf_rtsp_relay_ref(r),
        vf_rtsp_relay_unref_closure, (GConnectFlags)0);
}

/// The media's running time now, or GST_CLOCK_TIME_NONE while its appsrc is not PLAYING (a live media goes to
/// PLAYING as soon as it is prepared, its streams blocked until the first packet: until then it has no clock).
static GstClockTime vf_rtsp_media_now(GstElement *src) {
    GST_OBJECT_LOCK(src);
    gboolean playing = GST_STATE(src) == GST_STATE_PLAYING;
    GST_OBJECT_UNLOCK(src);
    if (!playing) return GST_CLOCK_TIME_NONE;
    GstClock *clock = gst_element_get_clock(src);
    if (!clock) return GST_CLOCK_TIME_NONE;
    GstClockTime now = gst_clock_get_time(clock);
    gst_object_unref(clock);
    GstClockTime base = gst_element_get_base_time(src);
    return now >= base ? now - base : 0;
}

/// How far a packet's mapped time may fall behind the media's now (a described pipeline that lags: placeholder
/// frames backfilling a silence) or run ahead of it (the media's sinks would hold it back until then) before the
/// offset is measured again, so the media's time goes on from now. Any step back does the same.
#define VF_RTSP_MAX_BEHIND (2 * GST_SECOND)
#define VF_RTSP_MAX_AHEAD (250 * GST_MSECOND)

/// appsink new-sample, on the described pipeline's streaming thread: never waits on a client. The packet
/// goes to the current media's appsrc (non-blocking, leaky, bounded), or nowhere when no client watches.
/// Timing: the packet keeps the spacing the described pipeline gave it. Its running time there (PTS and DTS, as
/// the payloader set them from the encoder's) plus one offset per media is its running time in the media; the
/// offset is measured at the media's first packet (that packet is stamped "now") and again only when the
/// described time steps back or strays from the media's now (VF_RTSP_MAX_BEHIND, VF_RTSP_MAX_AHEAD). So the re-payloader (pay0) stamps RTP
/// timestamps exactly 90000/fps apart for a constant-rate source, and a live source keeps its capture timing;
/// arrival times (jittery: a frame's packets come in bursts) play no part. A packet that comes while the media
/// is not PLAYING yet is dropped (a live media plays as soon as it is prepared).
static GstFlowReturn vf_rtsp_new_sample(GstAppSink *sink, gpointer data) {
    VfRtspRelay *r = (VfRtspRelay *)data;
    GstSample *s = gst_app_sink_pull_sample(sink);
    if (!s) return GST_FLOW_OK;
    GstBuffer *b = gst_sample_get_buffer(s);
    GstCaps *caps = gst_sample_get_caps(s);
    const GstSegment *seg = gst_sample_get_segment(s);
    GstAppSrc *src = NULL;
    gboolean capsChanged = FALSE;
    g_mutex_lock(&r->lock);
    r->received++;
    if (caps && (!r->caps || !gst_caps_is_equal(caps, r->caps))) { gst_caps_replace(&r->caps, caps); capsChanged = TRUE; }
    if (r->src) src = GST_APP_SRC(gst_object_ref(r->src));
    g_mutex_unlock(&r->lock);
    GstClockTime now = src ? vf_rtsp_media_now(GST_ELEMENT(src)) : GST_CLOCK_TIME_NONE;
    if (src && b && now != GST_CLOCK_TIME_NONE) {
        GstClockTime pts = GST_CLOCK_TIME_NONE, dts = GST_CLOCK_TIME_NONE;
        if (seg && seg->format == GST_FORMAT_TIME) {
            if (GST_BUFFER_PTS_IS_VALID(b)) pts = gst_segment_to_running_time(seg, GST_FORMAT_TIME, GST_BUFFER_PTS(b));
            if (GST_BUFFER_DTS_IS_VALID(b)) dts = gst_segment_to_running_time(seg, GST_FORMAT_TIME, GST_BUFFER_DTS(b));
        }
        /* The ordering key: DTS (monotonic with B-frames), else PTS. */
        GstClockTime key = dts != GST_CLOCK_TIME_NONE ? dts : pts;
        GstBuffer *copy = gst_buffer_copy(b); /* metadata only: the memory is shared */
        g_mutex_lock(&r->lock);
        if (key == GST_CLOCK_TIME_NONE) {
            /* Untimed packet: stamped now, never before the last one. */
            gint64 t = MAX((gint64)now, r->timed ? r->last : 0);
            GST_BUFFER_PTS(copy) = (GstClockTime)t;
            GST_BUFFER_DTS(copy) = GST_CLOCK_TIME_NONE;
        } else {
            gint64 mapped = (gint64)key + r->offset;
            if (!r->timed || mapped < r->last || mapped > (gint64)now + VF_RTSP_MAX_AHEAD || mapped + VF_RTSP_MAX_BEHIND < (gint64)now) {
                if (r->timed) r->retimed++;
                gint64 target = r->timed ? MAX((gint64)now, r->last) : (gint64)now;
                r->offset = target - (gint64)key;
                r->timed = TRUE;
                mapped = target;
            }
            r->last = mapped;
            gint64 p = pts != GST_CLOCK_TIME_NONE ? (gint64)pts + r->offset : mapped;
            GST_BUFFER_PTS(copy) = (GstClockTime)MAX(p, 0);
            GST_BUFFER_DTS(copy) = dts != GST_CLOCK_TIME_NONE ? (GstClockTime)mapped : GST_CLOCK_TIME_NONE;
        }
        g_mutex_unlock(&r->lock);
        if (capsChanged && caps) gst_app_src_set_caps(src, caps);
        if (gst_app_src_push_buffer(src, copy) == GST_FLOW_OK) {
            g_mutex_lock(&r->lock);
            r->forwarded++;
            g_mutex_unlock(&r->lock);
        }
    } else if (src && capsChanged && caps) {
        gst_app_src_set_caps(src, caps);
    }
    if (src) gst_object_unref(src);
    gst_sample_unref(s);
    return GST_FLOW_OK;
}

/// Feeds the relay from an appsink (its new-sample callback; appsink's own signals stay off).
static inline void vf_rtsp_relay_attach(VfRtspRelay *r, GstElement *appsink) {
    GstAppSinkCallbacks cb = {0};
    cb.new_sample = vf_rtsp_new_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &cb, vf_rtsp_relay_ref(r), vf_rtsp_relay_unref);
}

/// Ends the stream for the current media and every later one (the clients get EOS / RTCP BYE).
static inline void vf_rtsp_relay_end(VfRtspRelay *r) {
    g_mutex_lock(&r->lock);
    r->ended = TRUE;
    if (r->src) gst_app_src_end_of_stream(r->src);
    g_mutex_unlock(&r->lock);
}

/// A shared factory whose media is `appsrc ! PAYLOAD` fed by the relay (PAYLOAD ends in an element named pay0).
static inline GstRTSPMediaFactory *vf_rtsp_factory_new(VfRtspRelay *r, guint maxPackets, const char *payload) {
    GstRTSPMediaFactory *f = gst_rtsp_media_factory_new();
    gchar *launch = g_strdup_printf(
        "( appsrc name=" VF_RTSP_SOURCE_NAME " is-live=true format=time do-timestamp=false block=false"
        " max-buffers=%u leaky-type=downstream ! %s )", maxPackets, payload);
    gst_rtsp_media_factory_set_launch(f, launch);
    g_free(launch);
    gst_rtsp_media_factory_set_shared(f, TRUE);
    g_signal_connect_data(f, "media-configure", G_CALLBACK(vf_rtsp_media_configure), vf_rtsp_relay_ref(r),
        vf_rtsp_relay_unref_closure, (GConnectFlags)0);
    return f;
}

/// The role every user of an auth-file gets: it may reach and construct the mount's media.
#define VF_RTSP_ROLE "viewer"

/// Makes `s` demand credentials (digest, else basic) and lets the viewer role use factory `f`; users are added with
/// vf_rtsp_auth_add_user. Without this, gst-rtsp-server lets anyone in (no GstRTSPAuth at all).
static inline void vf_rtsp_auth_require(GstRTSPServer *s, GstRTSPMediaFactory *f, gboolean digest) {
    GstRTSPAuth *auth = gst_rtsp_auth_new();
    gst_rtsp_auth_set_supported_methods(auth, digest ? GST_RTSP_AUTH_DIGEST : GST_RTSP_AUTH_BASIC);
    gst_rtsp_server_set_auth(s, auth);
    g_object_unref(auth);
    gst_rtsp_media_factory_add_role(f, VF_RTSP_ROLE, GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
        GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
}

/// One user of the server's auth (after vf_rtsp_auth_require), with the viewer role.
static inline void vf_rtsp_auth_add_user(GstRTSPServer *s, const char *user, const char *password, gboolean digest) {
    GstRTSPAuth *auth = gst_rtsp_server_get_auth(s);
    if (!auth) return;
    GstRTSPToken *token = gst_rtsp_token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, VF_RTSP_ROLE, NULL);
    if (digest) {
        gst_rtsp_auth_add_digest(auth, user, password, token);
    } else {
        gchar *basic = gst_rtsp_auth_make_basic(user, password);
        gst_rtsp_auth_add_basic(auth, basic, token);
        g_free(basic);
    }
    gst_rtsp_token_unref(token);
    g_object_unref(auth);
}

// ---- limits (issue 24 item 5)

/// Client connections at once at most; each one has a thread of its own (the server's thread pool), so a client
/// whose request takes long to read (GstRTSPConnection reads a request's header one byte per read call, about
/// 1.1 s for 1 MB) holds only its own thread. Past the limit a connection is shut at once.
#define VF_RTSP_CLIENT_LIMIT 64
/// Largest request body (Content-Length) taken: larger is answered 413 and the connection closed. A viewer's
/// requests have no body (GET_PARAMETER keep-alives at most a few bytes).
#define VF_RTSP_BODY_LIMIT 16384

/// Seconds a connection may stay without a session (a player sets one up within a second: OPTIONS, DESCRIBE,
/// SETUP); then its socket is shut, so 64 connections that never ask for anything cannot keep players out.
#define VF_RTSP_SETUP_SECONDS 10

/// Shuts a client connection's socket down (both ways): its own thread reads the end and the server drops it.
/// Safe from any thread (unlike gst_rtsp_client_close while the client's thread may be reading).
static inline void vf_rtsp_client_shut(GstRTSPClient *c) {
    GstRTSPConnection *conn = gst_rtsp_client_get_connection(c);
    GSocket *socket = conn ? gst_rtsp_connection_get_read_socket(conn) : NULL;
    if (socket) g_socket_shutdown(socket, TRUE, TRUE, NULL);
}

typedef struct {
    GWeakRef client;
    VfRtspRelay *relay; /* a reference */
} VfRtspSetupCheck;

static void vf_rtsp_setup_check_free(gpointer data) {
    VfRtspSetupCheck *check = (VfRtspSetupCheck *)data;
    g_weak_ref_clear(&check->client);
    vf_rtsp_relay_unref(check->relay);
    g_free(check);
}

/// VF_RTSP_SETUP_SECONDS after a connection came (the server's thread): shut it if it has no session.
static gboolean vf_rtsp_setup_check(gpointer data) {
    VfRtspSetupCheck *check = (VfRtspSetupCheck *)data;
    GstRTSPClient *c = (GstRTSPClient *)g_weak_ref_get(&check->client);
    if (c) {
        GList *sessions = gst_rtsp_client_session_filter(c, NULL, NULL);
        if (!sessions) {
            vf_rtsp_client_shut(c);
            g_mutex_lock(&check->relay->lock);
            check->relay->idle++;
            g_mutex_unlock(&check->relay->lock);
        }
        g_list_free_full(sessions, g_object_unref);
        g_object_unref(c);
    }
    return G_SOURCE_REMOVE;
}

static void vf_rtsp_client_closed(GstRTSPClient *c, gpointer data) {
    (void)c;
    g_atomic_int_add(&((VfRtspRelay *)data)->clients, -1);
}

/// client-connected (the server's thread, before the client is attached): counts it, and past the limit shuts its
/// socket down so its watch sees the end at once and the server drops it without reading anything; else checks
/// VF_RTSP_SETUP_SECONDS later (a timer on the server's context) that it has set up a session.
static void vf_rtsp_client_connected(GstRTSPServer *s, GstRTSPClient *c, gpointer data) {
    (void)s;
    VfRtspRelay *r = (VfRtspRelay *)data;
    gint open = g_atomic_int_add(&r->clients, 1) + 1;
    g_signal_connect_data(c, "closed", G_CALLBACK(vf_rtsp_client_closed), vf_rtsp_relay_ref(r), vf_rtsp_relay_unref_closure,
                          (GConnectFlags)0);
    if (open <= VF_RTSP_CLIENT_LIMIT) {
        VfRtspSetupCheck *check = g_new0(VfRtspSetupCheck, 1);
        g_weak_ref_init(&check->client, c);
        check->relay = vf_rtsp_relay_ref(r);
        GSource *timer = g_timeout_source_new_seconds(VF_RTSP_SETUP_SECONDS);
        g_source_set_callback(timer, vf_rtsp_setup_check, check, vf_rtsp_setup_check_free);
        g_source_attach(timer, g_main_context_get_thread_default());
        g_source_unref(timer);
        return;
    }
    vf_rtsp_client_shut(c);
    g_mutex_lock(&r->lock);
    r->refused++;
    g_mutex_unlock(&r->lock);
}

/// Gives `s` its limits: one thread per client connection (up to VF_RTSP_CLIENT_LIMIT, the connections past it
/// refused), request bodies of VF_RTSP_BODY_LIMIT bytes at most. gst-rtsp-server's default pool has ONE client
/// thread that every connection shares: one client's huge request stalled every other client. The listen backlog
/// is the limit too (gst-rtsp-server's default is 5): with 5, a burst of connections (players reconnecting after a
/// network blip) overflowed the accept queue, the kernel ignored the overflowing handshakes' last ACK and queued
/// them later, out of order, so the connection the limit refused was not the last one that came (seen in CI:
/// 64 quick connections, then a 65th that was served while a late earlier one took its place).
static inline void vf_rtsp_server_limit(GstRTSPServer *s, VfRtspRelay *r) {
    gst_rtsp_server_set_backlog(s, VF_RTSP_CLIENT_LIMIT);
    GstRTSPThreadPool *pool = gst_rtsp_server_get_thread_pool(s);
    if (pool) {
        gst_rtsp_thread_pool_set_max_threads(pool, VF_RTSP_CLIENT_LIMIT);
        g_object_unref(pool);
    }
    gst_rtsp_server_set_content_length_limit(s, VF_RTSP_BODY_LIMIT);
    g_signal_connect_data(s, "client-connected", G_CALLBACK(vf_rtsp_client_connected), vf_rtsp_relay_ref(r),
                          vf_rtsp_relay_unref_closure, (GConnectFlags)0);
}

static inline void vf_rtsp_relay_refused(VfRtspRelay *r, guint64 *refused, guint64 *idle) {
    g_mutex_lock(&r->lock);
    *refused = r->refused;
    *idle = r->idle;
    g_mutex_unlock(&r->lock);
}

static GstRTSPFilterResult vf_rtsp_remove_client(GstRTSPServer *s, GstRTSPClient *c, gpointer d) {
    (void)s; (void)c; (void)d;
    return GST_RTSP_FILTER_REMOVE;
}
/// Stops the appsink feeding the relay (drops the callbacks' reference once no callback runs).
static inline void vf_rtsp_relay_detach_sink(GstElement *appsink) {
    GstAppSinkCallbacks cb = {0};
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &cb, NULL, NULL);
}

/// Closes every client connection.
static inline void vf_rtsp_server_close_clients(GstRTSPServer *s) {
    GList *l = gst_rtsp_server_client_filter(s, vf_rtsp_remove_client, NULL);
    g_list_free_full(l, g_object_unref);
}

static GstRTSPFilterResult vf_rtsp_count_client(GstRTSPServer *s, GstRTSPClient *c, gpointer d) {
    (void)s; (void)c;
    *(guint *)d += 1;
    return GST_RTSP_FILTER_KEEP;
}
/// Client connections still open. A client that heard the end (RTCP BYE) sends PAUSE and TEARDOWN and closes its
/// own connection once answered; the server drops it from this list then.
static inline guint vf_rtsp_server_client_count(GstRTSPServer *s) {
    guint n = 0;
    GList *l = gst_rtsp_server_client_filter(s, vf_rtsp_count_client, &n);
    g_list_free(l);
    return n;
}

static gpointer vf_rtsp_loop_thread(gpointer loop) {
    GMainContext *ctx = g_main_loop_get_context((GMainLoop *)loop);
    g_main_context_push_thread_default(ctx);
    g_main_loop_run((GMainLoop *)loop);
    g_main_context_pop_thread_default(ctx);
    return NULL;
}
/// Runs `loop` on a new thread named vf-rtsp.
static inline GThread *vf_rtsp_loop_start(GMainLoop *loop) { return g_thread_new("vf-rtsp", vf_rtsp_loop_thread, loop); }
#endif
