#ifndef VIEWFINDER_CGSTREAMER_DETACH_H
#define VIEWFINDER_CGSTREAMER_DETACH_H
// Detached outputs: a network output (a sink and the muxer feeding it) moved out of its pipeline into one of its own,
// fed through appsink -> appsrc relays, so that the output can fail and be started again while the rest runs.
#include "shim.h"

// One relay: the appsink's callbacks push each sample into `src` while the gate is open.
// gate: 0 closed (samples dropped), 1 opening (video: dropped until a keyframe; anything else opens at once), 2 open.
typedef struct {
    GstAppSrc *src;
    GstPad *sinkpad;
    gint gate;
} VfRelay;

static inline void vf_relay_free(gpointer data) {
    VfRelay *r = (VfRelay *)data;
    gst_object_unref(r->src);
    gst_object_unref(r->sinkpad);
    g_free(r);
}

static inline GstFlowReturn vf_relay_new_sample(GstAppSink *sink, gpointer data) {
    VfRelay *r = (VfRelay *)data;
    GstSample *s = gst_app_sink_pull_sample(sink);
    if (!s) return GST_FLOW_OK;
    gint g = g_atomic_int_get(&r->gate);
    if (g == 1) {
        GstBuffer *b = gst_sample_get_buffer(s);
        GstCaps *caps = gst_sample_get_caps(s);
        const gchar *name = (caps && gst_caps_get_size(caps) > 0) ? gst_structure_get_name(gst_caps_get_structure(caps, 0)) : "";
        gboolean video = g_str_has_prefix(name, "video/");
        if (!video || (b && !GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DELTA_UNIT))) {
            g_atomic_int_compare_and_exchange(&r->gate, 1, 2);
            g = 2;
        }
    }
    if (g == 2) gst_app_src_push_sample(r->src, s);
    gst_sample_unref(s);
    return GST_FLOW_OK;
}

static inline void vf_relay_eos(GstAppSink *sink, gpointer data) {
    (void)sink;
    VfRelay *r = (VfRelay *)data;
    if (g_atomic_int_get(&r->gate) != 0) gst_app_src_end_of_stream(r->src);
}

/// Opens the gate (from the next keyframe for video) and asks upstream for a keyframe now.
static inline void vf_relay_open(VfRelay *r) {
    g_atomic_int_set(&r->gate, 1);
    gst_pad_push_event(r->sinkpad, gst_video_event_new_upstream_force_key_unit(GST_CLOCK_TIME_NONE, TRUE, 0));
}
static inline void vf_relay_close(VfRelay *r) { g_atomic_int_set(&r->gate, 0); }
static inline gboolean vf_relay_is_open(VfRelay *r) { return g_atomic_int_get(&r->gate) == 2; }

static inline gboolean vf_element_is_muxer(GstElement *e) {
    const gchar *klass = gst_element_get_metadata(e, GST_ELEMENT_METADATA_KLASS);
    return klass && strstr(klass, "Muxer") != NULL;
}

/// The peer element of `e`'s only sink pad (a new reference), NULL when it has none or several.
static inline GstElement *vf_only_upstream(GstElement *e) {
    if (e->numsinkpads != 1) return NULL;
    GstPad *pad = GST_PAD(e->sinkpads->data);
    GstPad *peer = gst_pad_get_peer(pad);
    if (!peer) return NULL;
    GstElement *up = gst_pad_get_parent_element(peer);
    gst_object_unref(peer);
    return up;
}

/// Moves `sink` and what feeds it up to and including the nearest muxer (klass "Muxer") out of `from` (where all of
/// them must be direct children) into `to`; each linked input of the muxer is cut: its upstream pad now feeds a new
/// appsink `prefix_N` in `from`, and a new appsrc `prefix_src_N` in `to` feeds the muxer's pad. Returns the relays
/// (`*count` of them; free the array with g_free; each relay belongs to its appsink), or NULL when there is no muxer
/// within 16 steps along single-input elements, a tee or a source comes first, or an element is inside a bin
/// (nothing is changed then).
static inline VfRelay **vf_detach_output(GstBin *from, GstElement *sink, GstBin *to, const char *prefix, guint *count) {
    *count = 0;
    GPtrArray *moved = g_ptr_array_new_with_free_func(gst_object_unref);
    g_ptr_array_add(moved, gst_object_ref(sink));
    GstElement *cur = sink, *muxer = NULL;
    for (int steps = 0; steps < 16 && !muxer; steps++) {
        if (GST_OBJECT_PARENT(cur) != GST_OBJECT(from)) break;
        if (vf_element_is_muxer(cur)) { muxer = cur; break; }
        GstElement *up = vf_only_upstream(cur);
        if (!up) break;
        if (up->numsrcpads != 1 || up->numsinkpads == 0) { gst_object_unref(up); break; }
        g_ptr_array_add(moved, up);
        cur = up;
    }
    if (!muxer || muxer->numsinkpads == 0) { g_ptr_array_unref(moved); return NULL; }
    // The cuts: (upstream src pad, muxer sink pad), both referenced.
    GPtrArray *ups = g_ptr_array_new_with_free_func(gst_object_unref), *downs = g_ptr_array_new_with_free_func(gst_object_unref);
    GST_OBJECT_LOCK(muxer);
    for (GList *l = muxer->sinkpads; l; l = l->next) {
        GstPad *p = GST_PAD(l->data);
        GstPad *peer = gst_pad_get_peer(p);
        if (peer) { g_ptr_array_add(ups, peer); g_ptr_array_add(downs, gst_object_ref(p)); }
    }
    GST_OBJECT_UNLOCK(muxer);
    // The links between moved elements, to make again in `to` (removing an element from a bin unlinks it).
    GPtrArray *links = g_ptr_array_new_with_free_func(gst_object_unref);
    for (guint i = 0; i < moved->len; i++) {
        GstElement *e = (GstElement *)g_ptr_array_index(moved, i);
        GST_OBJECT_LOCK(e);
        for (GList *l = e->srcpads; l; l = l->next) {
            GstPad *p = GST_PAD(l->data);
            GstPad *peer = gst_pad_get_peer(p);
            if (peer) { g_ptr_array_add(links, gst_object_ref(p)); g_ptr_array_add(links, peer); }
        }
        GST_OBJECT_UNLOCK(e);
    }
    if (ups->len == 0) { g_ptr_array_unref(moved); g_ptr_array_unref(ups); g_ptr_array_unref(downs); g_ptr_array_unref(links); return NULL; }
    for (guint i = 0; i < ups->len; i++) gst_pad_unlink(g_ptr_array_index(ups, i), g_ptr_array_index(downs, i));
    for (guint i = 0; i < moved->len; i++) {
        GstElement *e = (GstElement *)g_ptr_array_index(moved, i);
        gst_object_ref(e);
        gst_bin_remove(from, e);
        gst_bin_add(to, e);
        gst_object_unref(e);
    }
    for (guint i = 0; i + 1 < links->len; i += 2) gst_pad_link(g_ptr_array_index(links, i), g_ptr_array_index(links, i + 1));
    VfRelay **relays = g_new0(VfRelay *, ups->len);
    for (guint i = 0; i < ups->len; i++) {
        gchar *sname = g_strdup_printf("%s_%u", prefix, i), *aname = g_strdup_printf("%s_src_%u", prefix, i);
        GstElement *as = gst_element_factory_make("appsink", sname);
        GstElement *src = gst_element_factory_make("appsrc", aname);
        g_free(sname); g_free(aname);
        if (!as || !src) {  // gst-plugins-base's app plugin is missing: nothing sensible is left to do
            if (as) gst_object_unref(as);
            if (src) gst_object_unref(src);
            continue;
        }
        g_object_set(as, "sync", FALSE, "async", FALSE, "enable-last-sample", FALSE, "drop", TRUE, "max-buffers", 64,
                     "emit-signals", FALSE, NULL);
        g_object_set(src, "format", GST_FORMAT_TIME, "is-live", TRUE, "do-timestamp", FALSE, "block", FALSE,
                     "handle-segment-change", TRUE, "max-bytes", (guint64)(16 << 20), NULL);
        gst_util_set_object_arg(G_OBJECT(src), "leaky-type", "downstream");
        gst_bin_add(from, as);
        gst_bin_add(to, src);
        GstPad *asink = gst_element_get_static_pad(as, "sink"), *asrc = gst_element_get_static_pad(src, "src");
        gst_pad_link(g_ptr_array_index(ups, i), asink);
        gst_pad_link(asrc, g_ptr_array_index(downs, i));
        gst_object_unref(asrc);
        VfRelay *r = g_new0(VfRelay, 1);
        r->src = GST_APP_SRC(gst_object_ref(src));
        r->sinkpad = asink;
        GstAppSinkCallbacks cb = {0};
        cb.eos = vf_relay_eos;
        cb.new_sample = vf_relay_new_sample;
        gst_app_sink_set_callbacks(GST_APP_SINK(as), &cb, r, vf_relay_free);
        relays[(*count)++] = r;
    }
    g_ptr_array_unref(moved); g_ptr_array_unref(ups); g_ptr_array_unref(downs); g_ptr_array_unref(links);
    return relays;
}
#endif
