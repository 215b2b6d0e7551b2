// The `viewfinder` GStreamer plugin: one element per Viewfinder stage (vfgrid, vfcompose, vfcapture, ...).
//
// This file is the GObject side only: it registers one GstBaseTransform subclass per stage kind, installs
// the GObject properties and pad templates the Swift side describes (vfsw_* in viewfinder_plugin.h), and
// hands every frame, property change, custom event and end-of-stream to Swift. No stage logic lives here.
//
// plugin_init runs inside gst-plugin-scanner too: it only asks Swift for descriptors (static data) and
// registers types; nothing is opened or created until an element goes READY -> PAUSED (`start`).
//
// Processing is in place without GstBaseTransform's eager copy: `generate_output` hands the input buffer
// (our reference) to Swift, which writes into it only when a stage draws (copying first only if it is
// shared, e.g. after a snapshot took a reference) and gives back the buffer to push.
//
// A stage that changes the frame size (vfsw_stage_resizes: reframe) makes a real transform instead: not in place
// (a `transform` is installed, so GstBaseTransform never treats the input as the output nor forwards upstream's
// allocation query downstream), src caps of the stage's output size (resize.c), and `generate_output` pushes the
// new buffer the stage rendered (no output buffer of GstBaseTransform's, no copy, no metas copied by it).
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <stdlib.h>
#include <string.h>

#include "properties.h"
#include "resize.h"
#include "viewfinder_plugin.h"

// GST_PLUGIN_DEFINE names the package through this macro (a configure-time define in autotools/meson builds).
#define PACKAGE "viewfinder"

#ifndef VF_PLUGIN_VERSION
#define VF_PLUGIN_VERSION "1.0.0"
#endif

GST_DEBUG_CATEGORY_STATIC(vf_debug);
#define GST_CAT_DEFAULT vf_debug

/// One element instance: the Swift instance and the GObject view of its properties.
typedef struct {
    GstBaseTransform parent;
    void *swift;
    GMutex lock;   // guards values
    GValue *values; // one per property, as last accepted
} VfElement;

/// One class per stage kind.
typedef struct {
    GstBaseTransformClass parent_class;
    int stage;
    int resizes;   // vfsw_stage_resizes: output caps of another size, not in place
    int n_props;
    GParamSpec **props;
} VfElementClass;

static GstBaseTransformClass *vf_parent_class = NULL;

#define VF_ELEMENT(o) ((VfElement *)(o))
#define VF_ELEMENT_GET_CLASS(o) ((VfElementClass *)G_OBJECT_GET_CLASS(o))

// ---- GObject

static void vf_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec) {
    VfElement *self = VF_ELEMENT(object);
    VfElementClass *klass = VF_ELEMENT_GET_CLASS(object);
    if (prop_id == 0 || (int)prop_id > klass->n_props) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        return;
    }
    gchar *text = vf_value_text(value);
    gchar *element = gst_object_get_name(GST_OBJECT(self));
    char *err = vfsw_set_property(self->swift, element, pspec->name, text);
    g_free(element);
    g_free(text);
    if (err) {
        // The value is refused and the old one kept; the text names the element, property, value and what
        // was expected.
        g_warning("%s", err);
        GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s", err), (NULL));
        free(err);
        return;
    }
    g_mutex_lock(&self->lock);
    g_value_copy(value, g_value_reset(&self->values[prop_id - 1]));
    g_mutex_unlock(&self->lock);
}

static void vf_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec) {
    VfElement *self = VF_ELEMENT(object);
    VfElementClass *klass = VF_ELEMENT_GET_CLASS(object);
    if (prop_id == 0 || (int)prop_id > klass->n_props) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        return;
    }
    g_mutex_lock(&self->lock);
    g_value_copy(&self->values[prop_id - 1], value);
    g_mutex_unlock(&self->lock);
}

static void vf_finalize(GObject *object) {
    VfElement *self = VF_ELEMENT(object);
    VfElementClass *klass = VF_ELEMENT_GET_CLASS(object);
    vfsw_instance_free(self->swift);
    self->swift = NULL;
    for (int i = 0; i < klass->n_props; i++) g_value_unset(&self->values[i]);
    g_free(self->values);
    g_mutex_clear(&self->lock);
    G_OBJECT_CLASS(vf_parent_class)->finalize(object);
}

// ---- Extra outputs: request source pads named like the stage's outputs

static gboolean vf_output_query(GstPad *pad, GstObject *parent, GstQuery *query) {
    if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
        // What the element passes on: the negotiated input caps, or anything the template allows.
        GstCaps *filter = NULL;
        gst_query_parse_caps(query, &filter);
        GstCaps *caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM(parent)->sinkpad);
        if (!caps) caps = gst_pad_get_pad_template_caps(pad);
        if (filter) {
            GstCaps *both = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
            gst_caps_unref(caps);
            caps = both;
        }
        gst_query_set_caps_result(query, caps);
        gst_caps_unref(caps);
        return TRUE;
    }
    if (GST_QUERY_TYPE(query) == GST_QUERY_ACCEPT_CAPS) {
        GstCaps *caps = NULL;
        gst_query_parse_accept_caps(query, &caps);
        GstCaps *templ = gst_pad_get_pad_template_caps(pad);
        gst_query_set_accept_caps_result(query, gst_caps_can_intersect(caps, templ));
        gst_caps_unref(templ);
        return TRUE;
    }
    return gst_pad_query_default(pad, parent, query);
}

static void vf_tell_custom_event(VfElement *self, GstEvent *event) {
    const GstStructure *s = gst_event_get_structure(event);
    if (!s) return;
    gchar *text = gst_structure_to_string(s);
    vfsw_custom_event(self->swift, text);
    g_free(text);
}

/// Upstream events from a photo branch: custom ones go to the stage (capture's trigger); seeks are refused
/// (the branch does not steer the stream); the rest (QoS, reconfigure, latency) end here.
static gboolean vf_output_event(GstPad *pad, GstObject *parent, GstEvent *event) {
    gboolean ok = TRUE;
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_CUSTOM_UPSTREAM:
    case GST_EVENT_CUSTOM_BOTH:
    case GST_EVENT_CUSTOM_BOTH_OOB:
        vf_tell_custom_event(VF_ELEMENT(parent), event);
        break;
    case GST_EVENT_SEEK:
        ok = FALSE;
        break;
    default:
        break;
    }
    gst_event_unref(event);
    return ok;
}

static GstPad *vf_request_new_pad(GstElement *element, GstPadTemplate *templ, const gchar *name, const GstCaps *caps) {
    const gchar *pad_name = GST_PAD_TEMPLATE_NAME_TEMPLATE(templ);
    GstPad *existing = gst_element_get_static_pad(element, pad_name);
    if (existing) {
        gst_object_unref(existing);
        GST_WARNING_OBJECT(element, "output '%s' is already requested", pad_name);
        return NULL;
    }
    GstPad *pad = gst_pad_new_from_template(templ, pad_name);
    gst_pad_set_query_function(pad, vf_output_query);
    gst_pad_set_event_function(pad, vf_output_event);
    if (GST_STATE(element) > GST_STATE_READY || GST_STATE_PENDING(element) == GST_STATE_PAUSED) gst_pad_set_active(pad, TRUE);
    gst_element_add_pad(element, pad);
    return pad;
}

static void vf_release_pad(GstElement *element, GstPad *pad) {
    gst_pad_set_active(pad, FALSE);
    gst_element_remove_pad(element, pad);
}

// ---- GstBaseTransform

static gboolean vf_start(GstBaseTransform *trans) {
    VfElement *self = VF_ELEMENT(trans);
    char *err = vfsw_start(self->swift, self);
    if (err) {
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", err), (NULL));
        free(err);
        return FALSE;
    }
    return TRUE;
}

static gboolean vf_stop(GstBaseTransform *trans) {
    vfsw_stop(VF_ELEMENT(trans)->swift);
    return TRUE;
}

/// Never called (generate_output does the work); present so GstBaseTransform works in place.
static GstFlowReturn vf_transform_ip(GstBaseTransform *trans, GstBuffer *buf) {
    return GST_FLOW_OK;
}

/// Never called either (generate_output pushes the frame the stage rendered); installed instead of transform_ip on
/// resizing kinds so GstBaseTransform is not in place there: its allocation query downstream carries the output caps,
/// and upstream's is answered, not forwarded downstream with the input's size.
static GstFlowReturn vf_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf) {
    GST_ERROR_OBJECT(trans, "transform called: generate_output should have handled the frame");
    return GST_FLOW_NOT_SUPPORTED;
}

/// Resizing kinds: both caps are fixed here (the src ones of the stage's output size, from vf_transform_caps);
/// StageChain configures itself from the input caps of the first frame after them and renders at that size.
static gboolean vf_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
    GST_INFO_OBJECT(trans, "resizing %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
    return TRUE;
}

static GstFlowReturn vf_generate_output(GstBaseTransform *trans, GstBuffer **outbuf) {
    VfElement *self = VF_ELEMENT(trans);
    GstBuffer *in = trans->queued_buf;
    trans->queued_buf = NULL;
    *outbuf = NULL;
    if (!in) return GST_FLOW_OK;
    GstCaps *caps = gst_pad_get_current_caps(trans->sinkpad);
    if (!caps) {
        gst_buffer_unref(in);
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("a frame arrived before its caps"), (NULL));
        return GST_FLOW_NOT_NEGOTIATED;
    }
    void *buf = in;
    char *err = vfsw_process(self->swift, &buf, caps, &trans->segment);
    gst_caps_unref(caps);
    if (err) {
        if (buf) gst_buffer_unref((GstBuffer *)buf);
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("%s", err), (NULL));
        free(err);
        return GST_FLOW_ERROR;
    }
    *outbuf = (GstBuffer *)buf;
    return GST_FLOW_OK;
}

/// What the element accepts given what is downstream: GstBaseTransform's answer (the main output's
/// downstream caps), narrowed to what every linked extra output's branch takes, in the main output's
/// order, as the host negotiates across its bridge (so `c.snapshot ! jpegenc` gets a format jpegenc takes
/// without a videoconvert). When nothing is common the main output wins and the extra pad refuses later.
///
/// A resizing kind's caps differ in size only (resize.c): towards src the stage's output size for the input
/// caps, towards sink any size; the extra outputs carry the input (what the stage sees), so they narrow as above.
static GstCaps *vf_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps, GstCaps *filter) {
    GstCaps *ret;
    if (VF_ELEMENT_GET_CLASS(trans)->resizes) {
        ret = vf_resize_transform_caps(VF_ELEMENT(trans)->swift, direction, caps);
        if (filter) {
            GstCaps *both = gst_caps_intersect_full(filter, ret, GST_CAPS_INTERSECT_FIRST);
            gst_caps_unref(ret);
            ret = both;
        }
    } else {
        ret = vf_parent_class->transform_caps(trans, direction, caps, filter);
    }
    if (direction != GST_PAD_SRC || !ret) return ret;
    GList *extra = NULL;
    GST_OBJECT_LOCK(trans);
    for (GList *l = GST_ELEMENT(trans)->srcpads; l; l = l->next)
        if (l->data != trans->srcpad) extra = g_list_prepend(extra, gst_object_ref(l->data));
    GST_OBJECT_UNLOCK(trans);
    for (GList *l = extra; l; l = l->next) {
        GstPad *pad = l->data;
        if (!gst_pad_is_linked(pad)) continue;
        GstCaps *peer = gst_pad_peer_query_caps(pad, NULL);
        if (peer && !gst_caps_is_any(peer)) {
            GstCaps *both = gst_caps_intersect_full(ret, peer, GST_CAPS_INTERSECT_FIRST);
            if (gst_caps_is_empty(both)) {
                gst_caps_unref(both);
            } else {
                gst_caps_unref(ret);
                ret = both;
            }
        }
        if (peer) gst_caps_unref(peer);
    }
    g_list_free_full(extra, gst_object_unref);
    return ret;
}

static gboolean vf_sink_event(GstBaseTransform *trans, GstEvent *event) {
    VfElement *self = VF_ELEMENT(trans);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
        // Stages finish, extra outputs end and the default branches drain before EOS goes on.
        vfsw_end_of_stream(self->swift);
        break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
    case GST_EVENT_CUSTOM_DOWNSTREAM_OOB:
    case GST_EVENT_CUSTOM_BOTH:
    case GST_EVENT_CUSTOM_BOTH_OOB:
        vf_tell_custom_event(self, event);
        break;
    default:
        break;
    }
    return vf_parent_class->sink_event(trans, event);
}

static gboolean vf_src_event(GstBaseTransform *trans, GstEvent *event) {
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_CUSTOM_UPSTREAM:
    case GST_EVENT_CUSTOM_BOTH:
    case GST_EVENT_CUSTOM_BOTH_OOB:
        vf_tell_custom_event(VF_ELEMENT(trans), event);
        break;
    default:
        break;
    }
    return vf_parent_class->src_event(trans, event);
}

// ---- Types

static void vf_class_init(gpointer g_class, gpointer class_data) {
    VfElementClass *klass = g_class;
    GObjectClass *oc = G_OBJECT_CLASS(g_class);
    GstElementClass *ec = GST_ELEMENT_CLASS(g_class);
    GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS(g_class);
    int stage = GPOINTER_TO_INT(class_data);
    klass->stage = stage;
    klass->resizes = vfsw_stage_resizes(stage);
    vf_parent_class = g_type_class_peek_parent(g_class);

    oc->set_property = vf_set_property;
    oc->get_property = vf_get_property;
    oc->finalize = vf_finalize;

    const char *kind = vfsw_stage_kind(stage);
    gchar *longname = g_strdup_printf("Viewfinder %s stage", kind);
    gst_element_class_set_metadata(ec, longname, "Filter/Effect/Video", vfsw_stage_blurb(stage), "Viewfinder");
    g_free(longname);

    GstCaps *caps = gst_caps_from_string(vfsw_stage_caps(stage));
    gst_element_class_add_pad_template(ec, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    int outputs = vfsw_output_count(stage);
    for (int i = 0; i < outputs; i++)
        gst_element_class_add_pad_template(ec, gst_pad_template_new(vfsw_output_name(stage, i), GST_PAD_SRC, GST_PAD_REQUEST, caps));
    gst_caps_unref(caps);
    if (outputs > 0) {
        ec->request_new_pad = vf_request_new_pad;
        ec->release_pad = vf_release_pad;
    }

    bc->passthrough_on_same_caps = FALSE;
    bc->transform_ip_on_passthrough = FALSE;
    bc->start = vf_start;
    bc->stop = vf_stop;
    if (klass->resizes) {
        bc->transform = vf_transform;
        bc->set_caps = vf_set_caps;
    } else {
        bc->transform_ip = vf_transform_ip;
    }
    bc->generate_output = vf_generate_output;
    bc->transform_caps = vf_transform_caps;
    bc->sink_event = vf_sink_event;
    bc->src_event = vf_src_event;

    klass->n_props = vfsw_property_count(stage);
    klass->props = g_new0(GParamSpec *, klass->n_props);
    for (int i = 0; i < klass->n_props; i++) {
        klass->props[i] = vf_param_spec(stage, i);
        g_object_class_install_property(oc, (guint)i + 1, klass->props[i]);
    }
}

static void vf_instance_init(GTypeInstance *instance, gpointer g_class) {
    VfElement *self = VF_ELEMENT(instance);
    VfElementClass *klass = g_class;
    self->swift = vfsw_instance_new(klass->stage);
    g_mutex_init(&self->lock);
    self->values = g_new0(GValue, MAX(klass->n_props, 1));
    for (int i = 0; i < klass->n_props; i++) {
        g_value_init(&self->values[i], G_PARAM_SPEC_VALUE_TYPE(klass->props[i]));
        g_param_value_set_default(klass->props[i], &self->values[i]);
    }
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), !klass->resizes);
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), FALSE);
}

static gboolean plugin_init(GstPlugin *plugin) {
    GST_DEBUG_CATEGORY_INIT(vf_debug, "viewfinder", 0, "Viewfinder stages");
    // Before any element exists: the library's lines go to GStreamer's debug log, never to stdout/stderr.
    vfsw_logging_install();
    gboolean ok = TRUE;
    int n = vfsw_stage_count();
    for (int i = 0; i < n; i++) {
        const char *kind = vfsw_stage_kind(i);
        gchar *type_name = g_strdup_printf("GstVf%s", kind);
        GType type = g_type_from_name(type_name);
        if (!type) {
            GTypeInfo info = {
                .class_size = sizeof(VfElementClass),
                .class_init = vf_class_init,
                .class_data = GINT_TO_POINTER(i),
                .instance_size = sizeof(VfElement),
                .instance_init = vf_instance_init,
            };
            type = g_type_register_static(GST_TYPE_BASE_TRANSFORM, type_name, &info, 0);
        }
        gchar *element = g_strdup_printf("vf%s", kind);
        if (!gst_element_register(plugin, element, GST_RANK_NONE, type)) ok = FALSE;
        g_free(element);
        g_free(type_name);
    }
    return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, viewfinder,
                  "Viewfinder's Swift stages (grid, compose, capture, ...) as GStreamer elements", plugin_init,
                  VF_PLUGIN_VERSION, "unknown", "Viewfinder", "local build (launch/install-plugin)")
