#ifndef VIEWFINDER_CCAIRO_SHIM_H
#define VIEWFINDER_CCAIRO_SHIM_H
// cairo for drawing, pango (through pangocairo) for text. No macros need wrapping yet.
#include <cairo.h>
#include <pango/pangocairo.h>
#endif
