// Private to CViewfinderPlugin: GObject property specs and values of the plugin's elements (properties.c).
#ifndef VF_PROPERTIES_H
#define VF_PROPERTIES_H

#include <glib-object.h>

/// The GParamSpec of property `index` of `stage` (booleans, integer and double ranges, GEnum for choices,
/// GFlags for sets, strings for the rest), from the vfsw_property_* descriptors.
GParamSpec *vf_param_spec(int stage, int index);
/// A property value as the text the stage's PropertySpec parses (caller frees).
gchar *vf_value_text(const GValue *v);

#endif
