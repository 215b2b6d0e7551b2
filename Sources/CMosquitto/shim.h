#ifndef VIEWFINDER_CMOSQUITTO_SHIM_H
#define VIEWFINDER_CMOSQUITTO_SHIM_H
// libmosquitto (Debian's libmosquitto-dev, pkg-config libmosquitto): the MQTT client library used by
// the `Mosquitto` binding target. No wrappers are needed: every function used is a plain C function.
#include <mosquitto.h>
// MQTT 5 subscription options (MQTT_SUB_OPT_*) and reason codes.
#include <mqtt_protocol.h>
#endif
