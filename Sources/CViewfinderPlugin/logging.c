// The Swift side's log lines into GStreamer's debug log (vf_log_* of viewfinder_plugin.h; PluginLogging.swift
// calls them): the application's stdout and stderr get nothing from the plugin.
#include <gst/gst.h>

#include "viewfinder_plugin.h"

// The Swift side's log lines as GStreamer debug categories, one per swift-log label, named as
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
