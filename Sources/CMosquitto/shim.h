#ifndef VIEWFINDER_CMOSQUITTO_SHIM_H
#define VIEWFINDER_CMOSQUITTO_SHIM_H
// libmosquitto (Debian's libmosquitto-dev, pkg-config libmosquitto): the MQTT client library used by
// the `Mosquitto` binding target. Nothing else is needed: every function used is a plain C function.
#include <mosquitto.h>
#endif
