// Private to CViewfinderPlugin: the caps of an element whose stage changes the frame size (a ResizingStage such as
// reframe), resize.c.
#ifndef VF_RESIZE_H
#define VF_RESIZE_H

#include <gst/gst.h>

/// What the other pad of a resizing element can carry given `caps` on the pad of `direction` (a new reference;
/// the caller applies any filter). Sink to src: the same caps with width and height replaced by the stage's output
/// size (`vfsw_output_size` on `swift`, the element's Swift instance) where the stage can tell it, else any size.
/// Src to sink: the same caps at any size. Format, framerate, pixel-aspect-ratio and the rest are kept.
GstCaps *vf_resize_transform_caps(void *swift, GstPadDirection direction, GstCaps *caps);

#endif
