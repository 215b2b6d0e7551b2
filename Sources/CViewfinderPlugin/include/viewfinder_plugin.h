// The C half of the `viewfinder` GStreamer plugin (libgstviewfinder.so): GObject types, properties, pads and
// GST_PLUGIN_DEFINE live in plugin.c; the per-frame work is Swift, reached through the `vfsw_*` entry points
// that Sources/ViewfinderPlugin/PluginEntry.swift defines with @_cdecl.
//
// Only plain C types cross: GStreamer objects travel as `void *` (a GstElement, GstBuffer, GstCaps or
// GstSegment, as each function says), so this header pulls in no GStreamer header and Swift sees no
// second copy of GStreamer's types next to CGStreamer's.
#ifndef VIEWFINDER_PLUGIN_H
#define VIEWFINDER_PLUGIN_H

// ---- Descriptors (plugin_init, class_init): strings owned by Swift, valid for the life of the process.
int vfsw_stage_count(void);
const char *vfsw_stage_kind(int stage);
const char *vfsw_stage_blurb(int stage);
/// Template caps: "video/x-raw,format=(string){...}" or "video/x-raw".
const char *vfsw_stage_caps(int stage);
/// 1 when the stage changes the frame size (a ResizingStage: reframe): its element is a real transform, not in place,
/// and its src caps carry the stage's output size (vfsw_output_size).
int vfsw_stage_resizes(int stage);
int vfsw_output_count(int stage);
const char *vfsw_output_name(int stage, int output);
const char *vfsw_output_blurb(int stage, int output);

/// Property types as the plugin maps them to GParamSpecs.
enum { VF_PROP_BOOL = 0, VF_PROP_INT = 1, VF_PROP_DOUBLE = 2, VF_PROP_STRING = 3, VF_PROP_ENUM = 4, VF_PROP_FLAGS = 5 };
int vfsw_property_count(int stage);
const char *vfsw_property_name(int stage, int index);
const char *vfsw_property_blurb(int stage, int index);
int vfsw_property_type(int stage, int index);
double vfsw_property_min(int stage, int index);
double vfsw_property_max(int stage, int index);
/// Default as canonical text (a number, "true"/"false", a word, words joined by '+', "#rrggbb").
const char *vfsw_property_default(int stage, int index);
/// Enum/flags words joined by ','.
const char *vfsw_property_choices(int stage, int index);
/// 1 when the property may change while playing.
int vfsw_property_playing(int stage, int index);

// ---- One element instance. `element` is the GstElement (borrowed: Swift holds a reference only between
// start and stop). Error texts returned as `char *` are malloc'd by Swift and freed by the caller (free()).
void *vfsw_instance_new(int stage);
void vfsw_instance_free(void *instance);
/// Validates a value (text as above) and keeps it; while running, a `playing` property changes the stage
/// (Stage.update). `element` is the element's name, for the error text. NULL on success, else the error text.
char *vfsw_set_property(void *instance, const char *element, const char *name, const char *text);
/// READY -> PAUSED: makes the stage from its properties, plans its outputs (requested pads: linked; else the
/// default branch or dropped) and opens it. NULL on success, else the error text.
char *vfsw_start(void *instance, void *element);
/// PAUSED -> READY (and after errors): closes the stage and its default branches, drops the element reference.
void vfsw_stop(void *instance);
/// One frame: `*buffer` (GstBuffer, transfer full) goes through the stage chain; on return `*buffer` is the
/// frame to pass on (transfer full; the same buffer unless a write had to copy it, or a new buffer of the
/// output size made by a resizing stage, the input then released). `caps` (GstCaps) and
/// `segment` (GstSegment) are borrowed. NULL on success, else the error text.
char *vfsw_process(void *instance, void **buffer, void *caps, void *segment);
/// A resizing stage's output size for input frames of `in_w` x `in_h` in `format` (a raw format name, or NULL: the
/// first the stage takes). `in_w` or `in_h` 0: the input size is not fixed yet, and the answer is the size the stage's
/// properties fix whatever the input, if they do. Asks the running stage; any thread (caps queries). 1 with `*out_w`,
/// `*out_h` set, else 0 (not a resizing stage, not started: caps are negotiated after start, or a size that depends
/// on the unknown input).
int vfsw_output_size(void *instance, const char *format, int in_w, int in_h, int *out_w, int *out_h);
/// A custom event's structure (serialised) reached the element: downstream on its sink pad or upstream on
/// any source pad.
void vfsw_custom_event(void *instance, const char *structure);
/// End of stream reached the sink pad: stages finish, extra outputs end, default branches drain.
void vfsw_end_of_stream(void *instance);

// ---- Logging. plugin_init calls vfsw_logging_install (Swift) once, which bootstraps swift-log with a handler that
// sends every line of the library (`Diagnostics` loggers: viewfinder.stages, ...) to GStreamer's debug log through
// the vf_log_* functions below (C, plugin.c): the application's stdout and stderr get nothing from the plugin.
void vfsw_logging_install(void);

/// GStreamer debug levels as vf_log takes them (GstDebugLevel's values).
enum { VF_LOG_ERROR = 1, VF_LOG_WARNING = 2, VF_LOG_INFO = 4, VF_LOG_DEBUG = 5, VF_LOG_TRACE = 7 };
/// The debug category named `label` (a GstDebugCategory, made on first use and kept for the process).
void *vf_log_category(const char *label);
/// The category's threshold (GST_DEBUG): the highest level it prints, 0 for none.
int vf_log_threshold(void *category);
/// One line to the category at `level` (ignored above its threshold); file, function and line say where it came from.
void vf_log(void *category, int level, const char *file, const char *function, int line, const char *text);

#endif
