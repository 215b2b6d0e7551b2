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
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <stdlib.h>
#include <string.h>

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
    int n_props;
    GParamSpec **props;
} VfElementClass;

static GstBaseTransformClass *vf_parent_class = NULL;

#define VF_ELEMENT(o) ((VfElement *)(o))
#define VF_ELEMENT_GET_CLASS(o) ((VfElementClass *)G_OBJECT_GET_CLASS(o))

// ---- Property types (GEnum / GFlags made from a stage's choices)

static gchar **vf_split_choices(const char *choices) {
    return g_strsplit(choices ? choices : "", ",", -1);
}

/// A GEnum type for a `choice` property: values numbered in declared order, name and nick the word.
static GType vf_enum_type(const char *kind, const char *prop, const char *choices) {
    gchar *name = g_strdup_printf("GstVf%s-%s", kind, prop);
    GType t = g_type_from_name(name);
    if (!t) {
        gchar **words = vf_split_choices(choices);
        guint n = g_strv_length(words);
        // Registered once per process and never freed: GLib keeps pointers to these values.
        GEnumValue *values = g_new0(GEnumValue, n + 1);
        for (guint i = 0; i < n; i++) {
            values[i].value = (gint)i;
            values[i].value_name = g_strdup(words[i]);
            values[i].value_nick = g_strdup(words[i]);
        }
        g_strfreev(words);
        t = g_enum_register_static(name, values);
    }
    g_free(name);
    return t;
}

/// A GFlags type for a `set` property: one bit per word in declared order (gst-launch takes `a+b`).
static GType vf_flags_type(const char *kind, const char *prop, const char *choices) {
    gchar *name = g_strdup_printf("GstVf%s-%s", kind, prop);
    GType t = g_type_from_name(name);
    if (!t) {
        gchar **words = vf_split_choices(choices);
        guint n = MIN(g_strv_length(words), 31);
        GFlagsValue *values = g_new0(GFlagsValue, n + 1);
        for (guint i = 0; i < n; i++) {
            values[i].value = 1u << i;
            values[i].value_name = g_strdup(words[i]);
            values[i].value_nick = g_strdup(words[i]);
        }
        g_strfreev(words);
        t = g_flags_register_static(name, values);
    }
    g_free(name);
    return t;
}

static gint vf_choice_index(const char *choices, const char *word) {
    gchar **words = vf_split_choices(choices);
    gint found = 0;
    for (gint i = 0; words[i]; i++)
        if (g_strcmp0(words[i], word) == 0) { found = i; break; }
    g_strfreev(words);
    return found;
}

static guint vf_flags_mask(const char *choices, const char *text) {
    gchar **words = vf_split_choices(choices);
    gchar **parts = g_strsplit_set(text ? text : "", "+,", -1);
    guint mask = 0;
    for (gint p = 0; parts[p]; p++)
        for (gint i = 0; words[i] && i < 31; i++)
            if (parts[p][0] && g_strcmp0(words[i], parts[p]) == 0) mask |= 1u << i;
    g_strfreev(parts);
    g_strfreev(words);
    return mask;
}

/// The GParamSpec of property `index` of `stage`.
static GParamSpec *vf_param_spec(int stage, int index) {
    const char *kind = vfsw_stage_kind(stage);
    const char *name = vfsw_property_name(stage, index);
    const char *blurb = vfsw_property_blurb(stage, index);
    const char *def = vfsw_property_default(stage, index);
    double min = vfsw_property_min(stage, index), max = vfsw_property_max(stage, index);
    GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
        (vfsw_property_playing(stage, index) ? GST_PARAM_MUTABLE_PLAYING : GST_PARAM_MUTABLE_READY);
    switch (vfsw_property_type(stage, index)) {
    case VF_PROP_BOOL:
        return g_param_spec_boolean(name, name, blurb, g_strcmp0(def, "true") == 0, flags);
    case VF_PROP_INT: {
        gint64 d = g_ascii_strtoll(def, NULL, 10);
        if (min >= G_MININT && max <= G_MAXINT)
            return g_param_spec_int(name, name, blurb, (gint)min, (gint)max, (gint)d, flags);
        return g_param_spec_int64(name, name, blurb, (gint64)min, (gint64)max, d, flags);
    }
    case VF_PROP_DOUBLE:
        return g_param_spec_double(name, name, blurb, min, max, g_ascii_strtod(def, NULL), flags);
    case VF_PROP_ENUM: {
        const char *choices = vfsw_property_choices(stage, index);
        return g_param_spec_enum(name, name, blurb, vf_enum_type(kind, name, choices), vf_choice_index(choices, def), flags);
    }
    case VF_PROP_FLAGS: {
        const char *choices = vfsw_property_choices(stage, index);
        return g_param_spec_flags(name, name, blurb, vf_flags_type(kind, name, choices), vf_flags_mask(choices, def), flags);
    }
    default:
        return g_param_spec_string(name, name, blurb, def, flags);
    }
}

/// A property value as the text the stage's PropertySpec parses (caller frees).
static gchar *vf_value_text(const GValue *v) {
    GType t = G_VALUE_TYPE(v);
    if (t == G_TYPE_BOOLEAN) return g_strdup(g_value_get_boolean(v) ? "true" : "false");
    if (t == G_TYPE_INT) return g_strdup_printf("%d", g_value_get_int(v));
    if (t == G_TYPE_INT64) return g_strdup_printf("%" G_GINT64_FORMAT, g_value_get_int64(v));
    if (t == G_TYPE_DOUBLE) {
        gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
        return g_strdup(g_ascii_dtostr(buf, sizeof buf, g_value_get_double(v)));
    }
    if (t == G_TYPE_STRING) return g_strdup(g_value_get_string(v) ? g_value_get_string(v) : "");
    if (G_TYPE_IS_ENUM(t)) {
        GEnumClass *k = g_type_class_ref(t);
        GEnumValue *ev = g_enum_get_value(k, g_value_get_enum(v));
        gchar *s = g_strdup(ev ? ev->value_nick : "");
        g_type_class_unref(k);
        return s;
    }
    if (G_TYPE_IS_FLAGS(t)) {
        GFlagsClass *k = g_type_class_ref(t);
        guint mask = g_value_get_flags(v);
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < k->n_values; i++) {
            if (mask & k->values[i].value) {
                if (s->len) g_string_append_c(s, '+');
                g_string_append(s, k->values[i].value_nick);
            }
        }
        g_type_class_unref(k);
        return g_string_free(s, FALSE);
    }
    return g_strdup_value_contents(v);
}

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
static GstCaps *vf_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps, GstCaps *filter) {
    GstCaps *ret = vf_parent_class->transform_caps(trans, direction, caps, filter);
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
    bc->transform_ip = vf_transform_ip;
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
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), FALSE);
}

// ---- Logging: the Swift side's log lines as GStreamer debug categories, one per swift-log label, named as
// GStreamer's convention asks (prefix, underscore): viewfinder.stages -> viewfinder_stages.

static GMutex vf_log_lock;
static GHashTable *vf_log_categories = NULL;  // label -> GstDebugCategory *, never freed (categories live for the process)

void *vf_log_category(const char *label) {
    g_mutex_lock(&vf_log_lock);
    if (!vf_log_categories) vf_log_categories = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GstDebugCategory *category = g_hash_table_lookup(vf_log_categories, label);
    if (!category) {
        gchar *name = g_strdelimit(g_strdup(label), ".", '_');
        GST_DEBUG_CATEGORY_INIT(category, name, 0, "Viewfinder's library lines (swift-log label)");
        g_free(name);
        g_hash_table_insert(vf_log_categories, g_strdup(label), category);
    }
    g_mutex_unlock(&vf_log_lock);
    return category;
}

int vf_log_threshold(void *category) {
    return category ? (int)gst_debug_category_get_threshold((GstDebugCategory *)category) : 0;
}

void vf_log(void *category, int level, const char *file, const char *function, int line, const char *text) {
    GstDebugCategory *c = category;
    if (!c || level > (int)gst_debug_category_get_threshold(c)) return;
    gst_debug_log(c, (GstDebugLevel)level, file, function, line, NULL, "%s", text);
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
