// The caps of an element whose stage changes the frame size (a ResizingStage: reframe). Only the size differs
// between its pads: format, framerate, pixel-aspect-ratio (kept, as VideoInfo.resized keeps it), colorimetry and
// the caps features pass unchanged. The size leaving is the stage's answer (vfsw_output_size), so the caps plugin.c
// negotiates downstream are exactly the caps of the frames StageChain renders.
#include "resize.h"
#include "viewfinder_plugin.h"

/// The format of `s` when it names one (a list or no field: the first listed, or NULL).
static const char *vf_structure_format(const GstStructure *s) {
    const GValue *v = gst_structure_get_value(s, "format");
    if (!v) return NULL;
    if (G_VALUE_HOLDS_STRING(v)) return g_value_get_string(v);
    if (GST_VALUE_HOLDS_LIST(v) && gst_value_list_get_size(v) > 0) {
        const GValue *first = gst_value_list_get_value(v, 0);
        if (G_VALUE_HOLDS_STRING(first)) return g_value_get_string(first);
    }
    return NULL;
}

/// A fixed integer field of `s`, else 0 (absent, a range or a list: not known yet).
static int vf_structure_fixed_int(const GstStructure *s, const char *field) {
    gint v = 0;
    return gst_structure_get_int(s, field, &v) && v > 0 ? v : 0;
}

GstCaps *vf_resize_transform_caps(void *swift, GstPadDirection direction, GstCaps *caps) {
    if (gst_caps_is_any(caps) || gst_caps_is_empty(caps)) return gst_caps_ref(caps);
    GstCaps *out = gst_caps_new_empty();
    guint n = gst_caps_get_size(caps);
    for (guint i = 0; i < n; i++) {
        GstStructure *s = gst_structure_copy(gst_caps_get_structure(caps, i));
        GstCapsFeatures *f = gst_caps_features_copy(gst_caps_get_features(caps, i));
        int out_w = 0, out_h = 0;
        // Sink to src: the size the stage gives for this input (for an input size not fixed yet, the size its
        // properties fix, if they do). Src to sink: any input size can be made into the output.
        if (direction == GST_PAD_SINK &&
            vfsw_output_size(swift, vf_structure_format(s), vf_structure_fixed_int(s, "width"), vf_structure_fixed_int(s, "height"),
                             &out_w, &out_h) && out_w > 0 && out_h > 0) {
            gst_structure_set(s, "width", G_TYPE_INT, out_w, "height", G_TYPE_INT, out_h, NULL);
        } else {
            gst_structure_set(s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
        }
        out = gst_caps_merge_structure_full(out, s, f);
    }
    return out;
}
