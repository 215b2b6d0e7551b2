// Property types of the `viewfinder` plugin's elements: the GParamSpec of each stage property (GEnum / GFlags made
// from a stage's choices) and a GValue turned back into the text the stage's PropertySpec parses. Declared in
// properties.h; used by plugin.c's class_init and set_property.
#include <gst/gst.h>

#include "properties.h"
#include "viewfinder_plugin.h"

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
GParamSpec *vf_param_spec(int stage, int index) {
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
gchar *vf_value_text(const GValue *v) {
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
