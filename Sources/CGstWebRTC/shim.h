#ifndef VIEWFINDER_CGSTWEBRTC_SHIM_H
#define VIEWFINDER_CGSTWEBRTC_SHIM_H
// webrtcbin (Debian's gstreamer1.0-plugins-bad + gstreamer1.0-nice; headers from libgstreamer-plugins-bad1.0-dev,
// libnice-dev) for `webrtcserve`: the relay carrying raw frames from the described pipeline's appsink into the
// server's encode pipeline, and one `queue ! webrtcbin` branch per browser peer with its signalling.
// Written in C because g_signal_connect and g_signal_emit_by_name are macros / variadic, webrtcbin's signals and
// promises call C function pointers on GStreamer's threads, and appsink callbacks are C. Used only by
// GStreamerKit/WebRTCServer.swift.
//
// Threads: the relay's new-sample runs on the described pipeline's streaming thread and never waits (the appsrc
// is leaky and non-blocking, and frames go in only while a peer is there); webrtcbin's callbacks (negotiation,
// offer promise, ICE candidates) run on webrtcbin's threads and only hand text to the peer's `send` function;
// adding and removing peers happens on the owner's (Swift) serial queue.
#define GST_USE_UNSTABLE_API 1
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>
#include <nice/agent.h>

#define VF_WEBRTC_SOURCE_NAME "vf_webrtc_src"
#define VF_WEBRTC_TEE_NAME "vf_webrtc_tee"
#define VF_WEBRTC_ENCODER_NAME "vf_webrtc_enc"

/// Shared between the appsink's streaming thread and the owner; counters atomic, `src` under `lock`.
typedef struct {
    gint refs;
    GMutex lock;
    GstAppSrc *src;           /* the encode pipeline's appsrc (a reference) */
    GstCaps *caps;            /* the last caps given to the appsrc (a reference), or NULL */
    gint active;              /* peers connected: frames go in only while > 0 (atomic) */
    guint64 received;         /* frames taken from the appsink (atomic via lock) */
    guint64 forwarded;        /* frames the appsrc accepted */
    guint64 encoded;          /* buffers out of the encoder (pad probe, atomic via lock) */
} VfWebRTCRelay;

static inline VfWebRTCRelay *vf_webrtc_relay_new(GstElement *appsrc) {
    VfWebRTCRelay *r = g_new0(VfWebRTCRelay, 1);
    r->refs = 1;
    g_mutex_init(&r->lock);
    r->src = GST_APP_SRC(gst_object_ref(appsrc));
    return r;
}
static inline VfWebRTCRelay *vf_webrtc_relay_ref(VfWebRTCRelay *r) { g_atomic_int_inc(&r->refs); return r; }
static inline void vf_webrtc_relay_unref(gpointer data) {
    VfWebRTCRelay *r = (VfWebRTCRelay *)data;
    if (!g_atomic_int_dec_and_test(&r->refs)) return;
    if (r->src) gst_object_unref(r->src);
    if (r->caps) gst_caps_unref(r->caps);
    g_mutex_clear(&r->lock);
    g_free(r);
}

/// Peers connected (frames flow into the encoder only while there is one).
static inline void vf_webrtc_relay_set_active(VfWebRTCRelay *r, gint peers) { g_atomic_int_set(&r->active, peers); }

static inline void vf_webrtc_relay_counts(VfWebRTCRelay *r, guint64 *received, guint64 *forwarded, guint64 *encoded) {
    g_mutex_lock(&r->lock);
    *received = r->received;
    *forwarded = r->forwarded;
    *encoded = r->encoded;
    g_mutex_unlock(&r->lock);
}

/// appsink new-sample on the described pipeline's streaming thread: never waits. The frame goes to the encode
/// pipeline's appsrc (block=false, leaky, at most a few frames) while a peer is connected, else nowhere. The
/// appsrc stamps frames with its own running time (do-timestamp): the described pipeline's times mean nothing there.
static GstFlowReturn vf_webrtc_new_sample(GstAppSink *sink, gpointer data) {
    VfWebRTCRelay *r = (VfWebRTCRelay *)data;
    GstSample *s = gst_app_sink_pull_sample(sink);
    if (!s) return GST_FLOW_OK;
    GstBuffer *b = gst_sample_get_buffer(s);
    GstCaps *caps = gst_sample_get_caps(s);
    gboolean feed = g_atomic_int_get(&r->active) > 0;
    GstAppSrc *src = NULL;
    gboolean capsChanged = FALSE;
    g_mutex_lock(&r->lock);
    r->received++;
    if (feed && caps && (!r->caps || !gst_caps_is_equal(caps, r->caps))) { gst_caps_replace(&r->caps, caps); capsChanged = TRUE; }
    if (feed && r->src) src = GST_APP_SRC(gst_object_ref(r->src));
    g_mutex_unlock(&r->lock);
    if (src && b) {
        GstBuffer *copy = gst_buffer_copy(b); /* metadata only: the memory is shared */
        GST_BUFFER_PTS(copy) = GST_CLOCK_TIME_NONE;
        GST_BUFFER_DTS(copy) = GST_CLOCK_TIME_NONE;
        GST_BUFFER_DURATION(copy) = GST_CLOCK_TIME_NONE;
        if (capsChanged) gst_app_src_set_caps(src, caps);
        if (gst_app_src_push_buffer(src, copy) == GST_FLOW_OK) {
            g_mutex_lock(&r->lock);
            r->forwarded++;
            g_mutex_unlock(&r->lock);
        }
    }
    if (src) gst_object_unref(src);
    gst_sample_unref(s);
    return GST_FLOW_OK;
}

/// Counts buffers leaving the encoder (the proof that one encode serves every peer).
static GstPadProbeReturn vf_webrtc_count_encoded(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad; (void)info;
    VfWebRTCRelay *r = (VfWebRTCRelay *)data;
    g_mutex_lock(&r->lock);
    r->encoded++;
    g_mutex_unlock(&r->lock);
    return GST_PAD_PROBE_OK;
}

/// Feeds the relay from `appsink` and counts `encoder`'s output.
static inline void vf_webrtc_relay_attach(VfWebRTCRelay *r, GstElement *appsink, GstElement *encoder) {
    GstAppSinkCallbacks cb = {0};
    cb.new_sample = vf_webrtc_new_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &cb, vf_webrtc_relay_ref(r), vf_webrtc_relay_unref);
    GstPad *pad = gst_element_get_static_pad(encoder, "src");
    if (pad) {
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, vf_webrtc_count_encoded, vf_webrtc_relay_ref(r), vf_webrtc_relay_unref);
        gst_object_unref(pad);
    }
}
static inline void vf_webrtc_relay_detach_sink(GstElement *appsink) {
    GstAppSinkCallbacks cb = {0};
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &cb, NULL, NULL);
}

// ---- peers

/// What a peer hands to its signalling: kind 0 offer (text: SDP), 1 ICE candidate (text, mline), 2 error (text).
typedef void (*VfWebRTCSend)(void *ctx, int kind, const char *text, int mline);
/// Called once when the peer is freed (no `send` after it): the owner drops `ctx`.
typedef void (*VfWebRTCRelease)(void *ctx);

/// One browser: `queue leaky=downstream ! webrtcbin` on a tee src pad. Reference-counted: the owner, every
/// signal connection and every promise in flight hold one, so no callback outlives it.
typedef struct {
    gint refs;
    GstElement *pipeline; /* a reference */
    GstElement *tee;      /* a reference */
    GstElement *queue;    /* a reference */
    GstElement *webrtc;   /* a reference */
    GstPad *teepad;       /* the tee's request pad (a reference), NULL once released */
    gboolean loopbackOnly;
    VfWebRTCSend send;
    VfWebRTCRelease release;
    void *ctx;
    gint closed;          /* atomic: no `send` once set */
    gint mlines;          /* atomic: m-lines of the offer made (0 until then) */
    guint remote;         /* remote candidates handed to webrtcbin (only on the owner's queue) */
} VfWebRTCPeer;

/// Remote ICE candidates taken from one browser at most (a browser sends a handful; each one is a pair libnice
/// checks, with STUN packets, for as long as the peer lives).
#define VF_WEBRTC_REMOTE_CANDIDATE_LIMIT 64

static inline VfWebRTCPeer *vf_webrtc_peer_ref(VfWebRTCPeer *p) { g_atomic_int_inc(&p->refs); return p; }
static inline void vf_webrtc_peer_unref(gpointer data) {
    VfWebRTCPeer *p = (VfWebRTCPeer *)data;
    if (!g_atomic_int_dec_and_test(&p->refs)) return;
    if (p->release) p->release(p->ctx);
    if (p->teepad) gst_object_unref(p->teepad);
    gst_object_unref(p->webrtc);
    gst_object_unref(p->queue);
    gst_object_unref(p->tee);
    gst_object_unref(p->pipeline);
    g_free(p);
}
static void vf_webrtc_peer_unref_closure(gpointer data, GClosure *c) { (void)c; vf_webrtc_peer_unref(data); }

static inline void vf_webrtc_peer_say(VfWebRTCPeer *p, int kind, const char *text, int mline) {
    if (!g_atomic_int_get(&p->closed) && p->send) p->send(p->ctx, kind, text, mline);
}

/// The offer was made (a webrtcbin thread): set it as the local description, send its SDP.
static void vf_webrtc_offer_created(GstPromise *promise, gpointer data) {
    VfWebRTCPeer *p = (VfWebRTCPeer *)data;
    GstWebRTCSessionDescription *offer = NULL;
    if (gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED) {
        const GstStructure *reply = gst_promise_get_reply(promise);
        if (reply) gst_structure_get(reply, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &offer, NULL);
    }
    gst_promise_unref(promise);
    if (!offer) {
        vf_webrtc_peer_say(p, 2, "webrtcserve: webrtcbin made no offer", -1);
        vf_webrtc_peer_unref(p);
        return;
    }
    g_signal_emit_by_name(p->webrtc, "set-local-description", offer, NULL);
    g_atomic_int_set(&p->mlines, (gint)MIN(gst_sdp_message_medias_len(offer->sdp), (guint)G_MAXINT));
    gchar *text = gst_sdp_message_as_text(offer->sdp);
    vf_webrtc_peer_say(p, 0, text, -1);
    g_free(text);
    gst_webrtc_session_description_free(offer);
    vf_webrtc_peer_unref(p);
}

/// on-negotiation-needed (a webrtcbin thread): ask for an offer.
static void vf_webrtc_negotiation_needed(GstElement *webrtc, gpointer data) {
    VfWebRTCPeer *p = (VfWebRTCPeer *)data;
    GstPromise *promise = gst_promise_new_with_change_func(vf_webrtc_offer_created, vf_webrtc_peer_ref(p), NULL);
    g_signal_emit_by_name(webrtc, "create-offer", NULL, promise);
}

/// on-ice-candidate (a webrtcbin thread): hand the candidate to the browser.
static void vf_webrtc_ice_candidate(GstElement *webrtc, guint mline, gchar *candidate, gpointer data) {
    (void)webrtc;
    vf_webrtc_peer_say((VfWebRTCPeer *)data, 1, candidate, (int)MIN(mline, (guint)G_MAXINT));
}

/// True when an ICE candidate line's connection address is a loopback one (127.0.0.0/8 or ::1).
static inline gboolean vf_webrtc_candidate_is_loopback(const char *candidate) {
    /* candidate:FOUNDATION COMPONENT TRANSPORT PRIORITY ADDRESS PORT typ ... */
    gchar **f = g_strsplit(candidate, " ", 7);
    gboolean loop = FALSE;
    if (g_strv_length(f) >= 6) loop = g_str_has_prefix(f[4], "127.") || strcmp(f[4], "::1") == 0;
    g_strfreev(f);
    return loop;
}

/// Makes a peer branch on `tee` in `pipeline`: `queue leaky=downstream ! webrtcbin bundle-policy=max-bundle`,
/// one send-only VP8 transceiver (codec preferences `rtpcaps`, so the offer does not wait for data);
/// `localAddress` (NULL: every interface): ICE gathers host candidates on that address only; UPnP is off;
/// `loopbackOnly`: remote candidates off loopback are ignored. `stun` may be NULL. A failure to restrict the
/// agent is a failure (NULL), never a peer gathering on every interface. Negotiation starts once the branch plays: the
/// offer and the candidates come through `send`. Returns NULL (with `error` set to a static text) on failure.
static inline VfWebRTCPeer *vf_webrtc_peer_new(GstElement *pipeline, const char *rtpcaps, const char *stun, const char *localAddress,
                                               gboolean loopbackOnly,
                                               guint maxPackets, VfWebRTCSend send, VfWebRTCRelease release, void *ctx,
                                               const char **error) {
    GstElement *tee = gst_bin_get_by_name(GST_BIN(pipeline), VF_WEBRTC_TEE_NAME);
    GstElement *queue = gst_element_factory_make("queue", NULL);
    GstElement *webrtc = gst_element_factory_make("webrtcbin", NULL);
    if (!tee || !queue || !webrtc) {
        *error = !webrtc ? "no webrtcbin element: install gstreamer1.0-plugins-bad and gstreamer1.0-nice" : "cannot make the peer's queue";
        if (tee) gst_object_unref(tee);
        if (queue) gst_object_unref(gst_object_ref_sink(queue));
        if (webrtc) gst_object_unref(gst_object_ref_sink(webrtc));
        return NULL;
    }
    g_object_set(queue, "leaky", 2 /* downstream */, "max-size-buffers", maxPackets, "max-size-bytes", 0, "max-size-time",
                 (guint64)0, NULL);
    gst_util_set_object_arg(G_OBJECT(webrtc), "bundle-policy", "max-bundle");
    if (stun && *stun) g_object_set(webrtc, "stun-server", stun, NULL);
    /* The ICE agent (libnice): UPnP off always (with it on, libnice's gupnp-igd opened SSDP sockets on port 1900 and
       a socket on every interface's address, and would ask the router to open a port); host candidates only from
       `localAddress` when given (libnice otherwise takes every interface and skips loopback ones). */
    GstWebRTCICE *ice = NULL;
    g_object_get(webrtc, "ice-agent", &ice, NULL);
    gboolean restricted = FALSE;
    if (ice) {
        NiceAgent *agent = NULL;
        if (g_object_class_find_property(G_OBJECT_GET_CLASS(ice), "agent")) g_object_get(ice, "agent", &agent, NULL);
        if (agent) {
            if (g_object_class_find_property(G_OBJECT_GET_CLASS(agent), "upnp")) g_object_set(agent, "upnp", FALSE, NULL);
            if (localAddress && *localAddress) {
                NiceAddress a;
                nice_address_init(&a);
                restricted = nice_address_set_from_string(&a, localAddress) && nice_agent_add_local_address(agent, &a);
            }
            g_object_unref(agent);
        }
        gst_object_unref(ice);
    }
    if (localAddress && *localAddress && !restricted) {
        *error = "cannot restrict the ICE agent to the control server's address";
        gst_object_unref(tee);
        gst_object_unref(gst_object_ref_sink(queue));
        gst_object_unref(gst_object_ref_sink(webrtc));
        return NULL;
    }
    VfWebRTCPeer *p = g_new0(VfWebRTCPeer, 1);
    p->refs = 1;
    p->pipeline = GST_ELEMENT(gst_object_ref(pipeline));
    p->tee = tee;
    p->queue = GST_ELEMENT(gst_object_ref(queue));
    p->webrtc = GST_ELEMENT(gst_object_ref(webrtc));
    p->loopbackOnly = loopbackOnly;
    p->send = send;
    p->release = release;
    p->ctx = ctx;
    g_signal_connect_data(webrtc, "on-negotiation-needed", G_CALLBACK(vf_webrtc_negotiation_needed), vf_webrtc_peer_ref(p),
                          vf_webrtc_peer_unref_closure, (GConnectFlags)0);
    g_signal_connect_data(webrtc, "on-ice-candidate", G_CALLBACK(vf_webrtc_ice_candidate), vf_webrtc_peer_ref(p),
                          vf_webrtc_peer_unref_closure, (GConnectFlags)0);
    gst_bin_add_many(GST_BIN(pipeline), queue, webrtc, NULL);
    GstPad *qsrc = gst_element_get_static_pad(queue, "src");
    GstPad *wsink = gst_element_request_pad_simple(webrtc, "sink_%u");
    gboolean linked = qsrc && wsink && gst_pad_link(qsrc, wsink) == GST_PAD_LINK_OK;
    if (wsink) {
        GstWebRTCRTPTransceiver *t = NULL;
        g_object_get(wsink, "transceiver", &t, NULL);
        if (t) {
            GstCaps *caps = gst_caps_from_string(rtpcaps);
            g_object_set(t, "direction", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, "codec-preferences", caps, NULL);
            if (caps) gst_caps_unref(caps);
            gst_object_unref(t);
        }
        gst_object_unref(wsink);
    }
    if (qsrc) gst_object_unref(qsrc);
    gst_element_sync_state_with_parent(webrtc);
    gst_element_sync_state_with_parent(queue);
    GstPad *tsrc = gst_element_request_pad_simple(tee, "src_%u");
    GstPad *qsink = gst_element_get_static_pad(queue, "sink");
    linked = linked && tsrc && qsink && gst_pad_link(tsrc, qsink) == GST_PAD_LINK_OK;
    if (qsink) gst_object_unref(qsink);
    p->teepad = tsrc;
    if (!linked) {
        *error = "cannot link a peer branch (tee ! queue ! webrtcbin)";
        /* the caller removes it (vf_webrtc_peer_remove) */
    } else {
        *error = NULL;
    }
    return p;
}

/// The browser's answer: set as the remote description. FALSE when the SDP does not parse.
static inline gboolean vf_webrtc_peer_set_answer(VfWebRTCPeer *p, const char *sdp) {
    GstSDPMessage *msg = NULL;
    if (gst_sdp_message_new_from_text(sdp, &msg) != GST_SDP_OK || !msg) return FALSE;
    if (gst_sdp_message_medias_len(msg) == 0) { gst_sdp_message_free(msg); return FALSE; }
    GstWebRTCSessionDescription *answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, msg);
    g_signal_emit_by_name(p->webrtc, "set-remote-description", answer, NULL);
    gst_webrtc_session_description_free(answer);
    return TRUE;
}

/// A remote ICE candidate; 1 added, 0 ignored (off loopback in loopback-only mode, or empty: end of candidates),
/// -1 refused: `mline` is not one of the offer's m-lines (or no offer yet), `*mlines` is then the offer's count;
/// -2 refused: VF_WEBRTC_REMOTE_CANDIDATE_LIMIT candidates were taken already. On the owner's queue.
static inline int vf_webrtc_peer_add_candidate(VfWebRTCPeer *p, guint mline, const char *candidate, guint *mlines) {
    if (!candidate || !*candidate) return 0;
    gint known = g_atomic_int_get(&p->mlines);
    *mlines = known > 0 ? (guint)known : 0;
    if (known <= 0 || mline >= (guint)known) return -1;
    if (p->loopbackOnly && !vf_webrtc_candidate_is_loopback(candidate)) return 0;
    if (p->remote >= VF_WEBRTC_REMOTE_CANDIDATE_LIMIT) return -2;
    p->remote++;
    g_signal_emit_by_name(p->webrtc, "add-ice-candidate", mline, candidate);
    return 1;
}

/// Takes the branch out of the pipeline: no `send` after this, the tee pad released, queue and webrtcbin
/// stopped and removed; drops the owner's reference. Called once, on the owner's queue (never a video thread).
static inline void vf_webrtc_peer_remove(VfWebRTCPeer *p) {
    g_atomic_int_set(&p->closed, 1);
    g_signal_handlers_disconnect_matched(p->webrtc, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, p);
    if (p->teepad) {
        GstPad *qsink = gst_element_get_static_pad(p->queue, "sink");
        if (qsink) { gst_pad_unlink(p->teepad, qsink); gst_object_unref(qsink); }
        gst_element_release_request_pad(p->tee, p->teepad);
    }
    /* Until negotiated, webrtcbin holds data back with a blocking probe deep inside (after an internal queue):
       its threads and ours (the peer's queue) wait there holding their stream locks, and a state change to NULL
       that stops them waits for ever (a peer that took its offer and never answered hung the shutdown). A
       flush-start sent in first wakes every such wait; then webrtcbin stops, then the queue. */
    GstPad *qsrc = gst_element_get_static_pad(p->queue, "src");
    GstPad *wsink = qsrc ? gst_pad_get_peer(qsrc) : NULL;
    if (wsink) { gst_pad_send_event(wsink, gst_event_new_flush_start()); gst_object_unref(wsink); }
    if (qsrc) gst_object_unref(qsrc);
    gst_element_set_state(p->webrtc, GST_STATE_NULL);
    gst_element_set_state(p->queue, GST_STATE_NULL);
    gst_bin_remove_many(GST_BIN(p->pipeline), p->queue, p->webrtc, NULL);
    vf_webrtc_peer_unref(p);
}
#endif
