#ifndef VIEWFINDER_CGSTREAMER_SHIM_H
#define VIEWFINDER_CGSTREAMER_SHIM_H
// GStreamer core, app (appsink/appsrc) and video (VideoInfo, VideoFrame, overlay composition).
// Swift cannot import function-like macros, variadic functions or fixed-size C arrays conveniently;
// each wrapper below exists for exactly one of those reasons.
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/video/video-overlay-composition.h>
#include <gst/tag/tag.h>
#include <gst/base/gstbasesrc.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// malloc.h is not in Swift's Glibc module, and mallopt's M_ARENA_MAX is a macro (GStreamerKit's `MallocArenas`).
static inline int vf_malloc_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

// GST_CLOCK_TIME_NONE is a macro.
static inline guint64 vf_clock_time_none(void) { return GST_CLOCK_TIME_NONE; }

// G_OBJECT / GST_OBJECT / GST_ELEMENT casts are macros.
static inline GObject *vf_gobject(gpointer p) { return G_OBJECT(p); }
static inline GstObject *vf_gstobject(gpointer p) { return GST_OBJECT(p); }
static inline GstBin *vf_bin(gpointer p) { return GST_BIN(p); }
static inline GstPipeline *vf_pipeline(gpointer p) { return GST_PIPELINE(p); }
static inline GstAppSink *vf_appsink(gpointer p) { return GST_APP_SINK(p); }
static inline GstAppSrc *vf_appsrc(gpointer p) { return GST_APP_SRC(p); }

// GST_OBJECT_NAME is a macro reading a locked field; gst_object_get_name allocates, this does not.
static inline const gchar *vf_object_name(gpointer p) { return GST_OBJECT_NAME(p); }

// GST_MESSAGE_TYPE / GST_MESSAGE_SRC are macros.
static inline GstMessageType vf_message_type(GstMessage *m) { return GST_MESSAGE_TYPE(m); }
static inline GstObject *vf_message_src(GstMessage *m) { return GST_MESSAGE_SRC(m); }

// GST_BUFFER_PTS/DTS/DURATION/OFFSET are macros (field access on a struct Swift sees as opaque-ish).
static inline guint64 vf_buffer_pts(GstBuffer *b) { return GST_BUFFER_PTS(b); }
static inline guint64 vf_buffer_dts(GstBuffer *b) { return GST_BUFFER_DTS(b); }
static inline guint64 vf_buffer_duration(GstBuffer *b) { return GST_BUFFER_DURATION(b); }
static inline void vf_buffer_set_pts(GstBuffer *b, guint64 t) { GST_BUFFER_PTS(b) = t; }
static inline void vf_buffer_set_dts(GstBuffer *b, guint64 t) { GST_BUFFER_DTS(b) = t; }
static inline void vf_buffer_set_duration(GstBuffer *b, guint64 t) { GST_BUFFER_DURATION(b) = t; }
// gst_buffer_make_writable / gst_buffer_is_writable are macros over the mini-object.
static inline GstBuffer *vf_buffer_make_writable(GstBuffer *b) { return gst_buffer_make_writable(b); }
static inline gboolean vf_buffer_is_writable(GstBuffer *b) { return gst_buffer_is_writable(b); }

// GstVideoInfo accessors are macros; finfo is a pointer to a const table.
static inline gsize vf_video_info_size(const GstVideoInfo *i) { return GST_VIDEO_INFO_SIZE(i); }
static inline gsize vf_video_info_offset(const GstVideoInfo *i, guint p) { return GST_VIDEO_INFO_PLANE_OFFSET(i, p); }

// GstVideoFrame.data / .info.stride are fixed-size C arrays (imported as tuples).
static inline guint8 *vf_video_frame_plane(GstVideoFrame *f, guint p) { return (guint8 *)GST_VIDEO_FRAME_PLANE_DATA(f, p); }
static inline gint vf_video_frame_stride(GstVideoFrame *f, guint p) { return GST_VIDEO_FRAME_PLANE_STRIDE(f, p); }
static inline gint vf_video_frame_comp_height(GstVideoFrame *f, guint c) { return GST_VIDEO_FRAME_COMP_HEIGHT(f, c); }
static inline gint vf_video_frame_comp_width(GstVideoFrame *f, guint c) { return GST_VIDEO_FRAME_COMP_WIDTH(f, c); }
static inline gint vf_video_frame_comp_pstride(GstVideoFrame *f, guint c) { return GST_VIDEO_FRAME_COMP_PSTRIDE(f, c); }

// gst_structure_set is variadic and the resampler enums need their GTypes: a converter config for
// analysis copies (linear resampling, no dithering) instead of the default high-quality cubic.
static inline GstStructure *vf_video_converter_fast_config(gboolean nearest) {
    return gst_structure_new("GstVideoConverter",
        GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
            nearest ? GST_VIDEO_RESAMPLER_METHOD_NEAREST : GST_VIDEO_RESAMPLER_METHOD_LINEAR,
        GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
        GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
        GST_VIDEO_RESAMPLER_OPT_MAX_TAPS, G_TYPE_INT, 4,
        NULL);
}

// A converter from the source rectangle (x, y, w, h) to the whole destination (same format): reframe's crop and scale
// in one pass, bilinear (cubic costs ~2x at 1080x1920 and is not visibly better at <= 2x), no dithering; a destination of
// the rectangle's own size is a plain copy (FrameCopy's crop).
static inline GstStructure *vf_video_converter_reframe_config(gint x, gint y, gint w, gint h) {
    return gst_structure_new("GstVideoConverter",
        GST_VIDEO_CONVERTER_OPT_SRC_X, G_TYPE_INT, x,
        GST_VIDEO_CONVERTER_OPT_SRC_Y, G_TYPE_INT, y,
        GST_VIDEO_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT, w,
        GST_VIDEO_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, h,
        GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
        GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
        GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
        GST_VIDEO_RESAMPLER_OPT_MAX_TAPS, G_TYPE_INT, 4,
        NULL);
}

// The same into the destination rectangle (dx, dy, dw, dh) of the output, the rest filled black (opaque): reframe's
// window reaching past the frame (letterbox or pillarbox bars). The converter turns the ARGB border into the format's
// own black (Y 16 on limited-range YUV).
static inline GstStructure *vf_video_converter_reframe_into_config(
    gint x, gint y, gint w, gint h, gint dx, gint dy, gint dw, gint dh) {
    GstStructure *s = vf_video_converter_reframe_config(x, y, w, h);
    gst_structure_set(s,
        GST_VIDEO_CONVERTER_OPT_DEST_X, G_TYPE_INT, dx,
        GST_VIDEO_CONVERTER_OPT_DEST_Y, G_TYPE_INT, dy,
        GST_VIDEO_CONVERTER_OPT_DEST_WIDTH, G_TYPE_INT, dw,
        GST_VIDEO_CONVERTER_OPT_DEST_HEIGHT, G_TYPE_INT, dh,
        GST_VIDEO_CONVERTER_OPT_FILL_BORDER, G_TYPE_BOOLEAN, TRUE,
        GST_VIDEO_CONVERTER_OPT_BORDER_ARGB, G_TYPE_UINT, 0xff000000u,
        NULL);
    return s;
}

// appsrc's queue level (a property before 1.24's getter).
static inline guint64 vf_appsrc_current_level_buffers(GstAppSrc *src) {
    guint64 n = 0;
    g_object_get(src, "current-level-buffers", &n, NULL);
    return n;
}

// GValue type checks are macros.
static inline int vf_value_kind(const GValue *v) {
    if (G_VALUE_HOLDS_STRING(v)) return 1;
    if (G_VALUE_HOLDS_INT(v)) return 2;
    if (G_VALUE_HOLDS_UINT(v)) return 3;
    if (G_VALUE_HOLDS_UINT64(v)) return 4;
    if (G_VALUE_HOLDS_INT64(v)) return 5;
    if (G_VALUE_HOLDS_DOUBLE(v)) return 6;
    if (G_VALUE_HOLDS_BOOLEAN(v)) return 7;
    return 0;
}
static inline gboolean vf_event_is_custom(GstEvent *e) {
    GstEventType t = GST_EVENT_TYPE(e);
    return t == GST_EVENT_CUSTOM_DOWNSTREAM || t == GST_EVENT_CUSTOM_DOWNSTREAM_OOB || t == GST_EVENT_CUSTOM_UPSTREAM || t == GST_EVENT_CUSTOM_BOTH;
}

// GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB is a macro picking BGRA or ARGB by endianness.
static inline GstVideoFormat vf_overlay_rgb_format(void) { return GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB; }

// gst_structure_set is variadic; these set one typed field each.
static inline void vf_structure_set_int(GstStructure *s, const char *k, gint v) { gst_structure_set(s, k, G_TYPE_INT, v, NULL); }
static inline void vf_structure_set_uint64(GstStructure *s, const char *k, guint64 v) { gst_structure_set(s, k, G_TYPE_UINT64, v, NULL); }
static inline void vf_structure_set_double(GstStructure *s, const char *k, gdouble v) { gst_structure_set(s, k, G_TYPE_DOUBLE, v, NULL); }
static inline void vf_structure_set_boolean(GstStructure *s, const char *k, gboolean v) { gst_structure_set(s, k, G_TYPE_BOOLEAN, v, NULL); }
static inline void vf_structure_set_string(GstStructure *s, const char *k, const char *v) { gst_structure_set(s, k, G_TYPE_STRING, v, NULL); }

// gst_tag_list_add is variadic; these add one typed tag each (replacing an earlier value).
static inline void vf_tag_list_add_string(GstTagList *l, const char *tag, const char *v) { gst_tag_list_add(l, GST_TAG_MERGE_REPLACE, tag, v, NULL); }
static inline void vf_tag_list_add_uint(GstTagList *l, const char *tag, guint v) { gst_tag_list_add(l, GST_TAG_MERGE_REPLACE, tag, v, NULL); }
static inline void vf_tag_list_add_double(GstTagList *l, const char *tag, gdouble v) { gst_tag_list_add(l, GST_TAG_MERGE_REPLACE, tag, v, NULL); }
static inline void vf_tag_list_add_datetime_unix_usecs(GstTagList *l, const char *tag, gint64 usecs) {
    GstDateTime *dt = gst_date_time_new_from_unix_epoch_local_time_usecs(usecs);
    gst_tag_list_add(l, GST_TAG_MERGE_REPLACE, tag, dt, NULL);
    gst_date_time_unref(dt);
}

// g_object_get is variadic; these read one property of a known type.
static inline guint64 vf_object_get_uint64(gpointer o, const char *k) { guint64 v = 0; g_object_get(o, k, &v, NULL); return v; }
static inline guint vf_object_get_uint(gpointer o, const char *k) { guint v = 0; g_object_get(o, k, &v, NULL); return v; }
static inline void vf_object_set_uint(gpointer o, const char *k, guint v) { g_object_set(o, k, v, NULL); }
static inline gint64 vf_object_get_int64(gpointer o, const char *k) { gint64 v = 0; g_object_get(o, k, &v, NULL); return v; }
static inline gboolean vf_object_get_boolean(gpointer o, const char *k) { gboolean v = 0; g_object_get(o, k, &v, NULL); return v; }
static inline gchar *vf_object_get_string(gpointer o, const char *k) { gchar *v = NULL; g_object_get(o, k, &v, NULL); return v; }
/// A GstStructure property (srtsink's "stats") as text, or NULL when unset; free with g_free.
static inline gchar *vf_object_get_structure_text(gpointer o, const char *k) {
    GstStructure *s = NULL; g_object_get(o, k, &s, NULL);
    if (!s) return NULL;
    gchar *t = gst_structure_to_string(s); gst_structure_free(s); return t;
}
static inline void vf_object_set_uint64(gpointer o, const char *k, guint64 v) { g_object_set(o, k, v, NULL); }
static inline void vf_object_set_int64(gpointer o, const char *k, gint64 v) { g_object_set(o, k, v, NULL); }
static inline void vf_object_set_boolean(gpointer o, const char *k, gboolean v) { g_object_set(o, k, v, NULL); }

// GstIterator yields GValues; collecting into a NULL-terminated array keeps GValue handling in C.
// Each returned object holds a reference; free with vf_object_array_free.
static inline gpointer *vf_iterator_collect(GstIterator *it) {
    size_t n = 0, cap = 8;
    gpointer *out = (gpointer *)malloc(sizeof(gpointer) * (cap + 1));
    GValue item = G_VALUE_INIT;
    gboolean done = FALSE;
    while (!done) {
        switch (gst_iterator_next(it, &item)) {
        case GST_ITERATOR_OK:
            if (n == cap) { cap *= 2; out = (gpointer *)realloc(out, sizeof(gpointer) * (cap + 1)); }
            out[n++] = g_value_dup_object(&item);
            g_value_reset(&item);
            break;
        case GST_ITERATOR_RESYNC:
            for (size_t i = 0; i < n; i++) gst_object_unref(out[i]);
            n = 0;
            gst_iterator_resync(it);
            break;
        default:
            done = TRUE;
        }
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    out[n] = NULL;
    return out;
}
static inline void vf_object_array_free(gpointer *a) {
    for (size_t i = 0; a[i]; i++) gst_object_unref(a[i]);
    free(a);
}

// GST_PAD_PROBE_INFO_BUFFER is a macro.
static inline GstBuffer *vf_probe_info_buffer(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER(info); }
static inline GstPadProbeType vf_probe_info_type(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_TYPE(info); }
static inline GstEvent *vf_probe_info_event(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_EVENT(info); }
static inline GstEventType vf_event_type(GstEvent *e) { return GST_EVENT_TYPE(e); }
static inline GstBufferList *vf_probe_info_buffer_list(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER_LIST(info); }
// GST_PAD_IS_FLUSHING is a macro (read under the pad's object lock).
static inline gboolean vf_pad_is_flushing(GstPad *p) {
    GST_OBJECT_LOCK(p);
    gboolean f = GST_PAD_IS_FLUSHING(p);
    GST_OBJECT_UNLOCK(p);
    return f;
}

// GstPadTemplate presence/direction are macros.
static inline GstPadPresence vf_pad_presence(GstPad *p) {
    GstPadTemplate *t = GST_PAD_PAD_TEMPLATE(p);
    return t ? GST_PAD_TEMPLATE_PRESENCE(t) : GST_PAD_ALWAYS;
}
static inline GstPadDirection vf_pad_direction(GstPad *p) { return GST_PAD_DIRECTION(p); }

// GST_ELEMENT_GET_CLASS is a macro; true when the element can add output pads later
// (decodebin, demuxers): gst_parse_launch then links what follows it with a delayed link.
static inline gboolean vf_element_has_sometimes_src(GstElement *e) {
    GList *l = gst_element_class_get_pad_template_list(GST_ELEMENT_GET_CLASS(e));
    for (; l; l = l->next) {
        GstPadTemplate *t = (GstPadTemplate *)l->data;
        if (GST_PAD_TEMPLATE_DIRECTION(t) == GST_PAD_SRC && GST_PAD_TEMPLATE_PRESENCE(t) == GST_PAD_SOMETIMES) return TRUE;
    }
    return FALSE;
}

// GST_IS_TAG_SETTER / GST_TAG_SETTER are macros. A tag setter (jifmux, mp4mux...) keeps the FIRST
// value of each tag by default; REPLACE makes every new TAG event win (one photo, one set of tags).
static inline gboolean vf_tag_setter_replace(GstElement *e) {
    if (!GST_IS_TAG_SETTER(e)) return FALSE;
    gst_tag_setter_set_tag_merge_mode(GST_TAG_SETTER(e), GST_TAG_MERGE_REPLACE);
    return TRUE;
}

// GST_ELEMENT_FLAG_SOURCE/SINK test is a macro.
static inline gboolean vf_element_is_source(GstElement *e) { return GST_OBJECT_FLAG_IS_SET(e, GST_ELEMENT_FLAG_SOURCE); }
static inline gboolean vf_element_is_sink(GstElement *e) { return GST_OBJECT_FLAG_IS_SET(e, GST_ELEMENT_FLAG_SINK); }

// GST_ELEMENT_ERROR is a variadic macro; this posts a library error naming the element.
static inline void vf_element_post_error(GstElement *e, const char *text, const char *debug) {
    GError *err = g_error_new_literal(GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, text);
    GstMessage *m = gst_message_new_error(GST_OBJECT(e), err, debug);
    g_error_free(err);
    gst_element_post_message(e, m);
}
// GST_BUFFER_FLAG_SET/UNSET/IS_SET are macros; the GAP flag marks the host's placeholder (slate) frames.
static inline gboolean vf_buffer_is_gap(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_GAP); }
static inline void vf_buffer_set_gap(GstBuffer *b, gboolean on) {
    if (on) GST_BUFFER_FLAG_SET(b, GST_BUFFER_FLAG_GAP); else GST_BUFFER_FLAG_UNSET(b, GST_BUFFER_FLAG_GAP);
}

// GST_BUFFER_FLAG_IS_SET is a macro: DELTA_UNIT marks an encoded frame that is not a keyframe (clips cut at keyframes).
static inline gboolean vf_buffer_is_delta_unit(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DELTA_UNIT); }

// GST_IS_BASE_SRC is a type-check macro: live-ness of a plain source element (v4l2src, srtsrc, videotestsrc is-live=true).
static inline int vf_element_base_src_live(GstElement *e) {
    if (!GST_IS_BASE_SRC(e)) return -1;
    return gst_base_src_is_live(GST_BASE_SRC(e)) ? 1 : 0;
}

// Fills every line of a mapped frame with one colour through the format's own pack function (any raw
// format, as videotestsrc paints): `line` holds `width` pixels in the format's unpack format.
static inline void vf_video_frame_fill_lines(GstVideoFrame *f, const void *line) {
    const GstVideoFormatInfo *fi = f->info.finfo;
    gint w = GST_VIDEO_FRAME_WIDTH(f), h = GST_VIDEO_FRAME_HEIGHT(f);
    for (gint y = 0; y < h; y++) {
        fi->pack_func(fi, GST_VIDEO_PACK_FLAG_NONE, line, 0, f->data, f->info.stride, f->info.chroma_site, y, w);
    }
}
static inline GstVideoFormat vf_video_frame_unpack_format(GstVideoFrame *f) { return f->info.finfo->unpack_format; }
// gst_parse_launch links a demuxer's or decodebin's "sometimes" pad to what follows it with a one-shot
// handler: once linked it disconnects, so a source segment set to NULL and PLAYING again (the host's
// `--reconnect`) gets new pads nobody links ("Internal data stream error", not-linked). This keeps each
// dynamic link: it remembers the peer of every pad linked while it watched (by pad name and template) and
// links a new unlinked pad of the same name, or else of the same template, to that peer when it is free.
typedef struct { GMutex lock; GPtrArray *names; GPtrArray *templates; GPtrArray *peers; } VfRelink;
static inline void vf_relink_free(gpointer data) {
    VfRelink *r = (VfRelink *)data;
    g_ptr_array_unref(r->names); g_ptr_array_unref(r->templates); g_ptr_array_unref(r->peers);
    g_mutex_clear(&r->lock);
    g_free(r);
}
static inline void vf_relink_pad_added(GstElement *e, GstPad *pad, gpointer data) {
    (void)e;
    VfRelink *r = (VfRelink *)data;
    if (GST_PAD_DIRECTION(pad) != GST_PAD_SRC) return;
    GstPadTemplate *t = GST_PAD_PAD_TEMPLATE(pad);
    const gchar *tname = t ? GST_PAD_TEMPLATE_NAME_TEMPLATE(t) : "";
    gchar *name = gst_pad_get_name(pad);
    GstPad *peer = gst_pad_get_peer(pad);
    GstPad *target = NULL;
    g_mutex_lock(&r->lock);
    if (peer) {
        gboolean known = FALSE;
        for (guint i = 0; i < r->peers->len; i++) {
            if (g_ptr_array_index(r->peers, i) == peer) { known = TRUE; break; }
        }
        if (!known && r->peers->len < 64) {
            g_ptr_array_add(r->names, g_strdup(name));
            g_ptr_array_add(r->templates, g_strdup(tname));
            g_ptr_array_add(r->peers, gst_object_ref(peer));
        }
    } else {
        for (guint pass = 0; pass < 2 && !target; pass++) {
            for (guint i = 0; i < r->peers->len; i++) {
                GstPad *p = (GstPad *)g_ptr_array_index(r->peers, i);
                const gchar *key = pass == 0 ? (const gchar *)g_ptr_array_index(r->names, i) : (const gchar *)g_ptr_array_index(r->templates, i);
                if (g_strcmp0(key, pass == 0 ? name : tname) == 0 && !gst_pad_is_linked(p)) { target = gst_object_ref(p); break; }
            }
        }
    }
    g_mutex_unlock(&r->lock);
    if (peer) gst_object_unref(peer);
    if (target) {
        gst_pad_link(pad, target);
        gst_object_unref(target);
    }
    g_free(name);
}
static inline void vf_element_keep_dynamic_links(GstElement *e) {
    if (g_object_get_data(G_OBJECT(e), "vf-relink")) return;
    VfRelink *r = g_new0(VfRelink, 1);
    g_mutex_init(&r->lock);
    r->names = g_ptr_array_new_with_free_func(g_free);
    r->templates = g_ptr_array_new_with_free_func(g_free);
    r->peers = g_ptr_array_new_with_free_func(gst_object_unref);
    g_object_set_data_full(G_OBJECT(e), "vf-relink", r, vf_relink_free);
    g_signal_connect(e, "pad-added", G_CALLBACK(vf_relink_pad_added), r);
}
#endif
