#!/usr/bin/python3
"""Viewfinder's compose stage inside a Python GStreamer application (PyGObject), no viewfinder host.

Runs `SOURCE ! vfcompose ! videoconvert ! SINK`, prints every `viewfinder/composition` element message
the vfcompose element posts as one JSON line, and counts the frames leaving the element with the
`ViewfinderComposition` buffer meta (the same meta capture reads).

Needs the plugin where GStreamer finds it (launch/install-plugin, or GST_PLUGIN_PATH at the directory
holding libgstviewfinder.so) and Debian's python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0
(use /usr/bin/python3: a pyenv or venv python does not see Debian's gi).

    examples/compose.py                                   # the moving ball, 90 frames
    examples/compose.py --source "filesrc location=photo.jpg ! decodebin ! videoconvert ! imagefreeze num-buffers=30"
    examples/compose.py --display --rule thirds           # draw the guidance in a window
"""
import argparse
import json
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

META = "ViewfinderComposition"
FIELDS = ("stage", "frame", "rule", "score", "well-composed", "x", "y", "width", "height", "engine", "advice")


def composition(structure):
    """The fields of a viewfinder/composition structure this example prints."""
    out = {}
    for name in FIELDS:
        if structure.has_field(name):
            out[name] = structure.get_value(name)
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", default="videotestsrc pattern=ball num-buffers=90 ! video/x-raw,width=640,height=360,framerate=30/1",
                   help="gst-launch description of the video before vfcompose")
    p.add_argument("--engine", default="saliency", help="vfcompose engine (auto, faces, cnn, people, bodies, saliency)")
    p.add_argument("--rule", default="auto", help="vfcompose rule")
    p.add_argument("--display", action="store_true", help="show the video (autovideosink) instead of discarding it")
    args = p.parse_args(argv)

    Gst.init(None)
    if Gst.ElementFactory.find("vfcompose") is None:
        print("compose.py: no element 'vfcompose': install the plugin (launch/install-plugin) or set GST_PLUGIN_PATH",
              file=sys.stderr)
        return 1
    sink = "autovideosink" if args.display else "fakesink"
    description = (f"{args.source} ! vfcompose name=c sync=true warmup=0 engine={args.engine} rule={args.rule} "
                   f"! videoconvert ! {sink} name=out")
    try:
        pipeline = Gst.parse_launch(description)
    except gi.repository.GLib.Error as e:
        print(f"compose.py: cannot build '{description}': {e.message}", file=sys.stderr)
        return 2

    with_meta = [0]

    def count_meta(pad, info):
        buf = info.get_buffer()
        if buf is not None and buf.get_custom_meta(META) is not None:
            with_meta[0] += 1
        return Gst.PadProbeReturn.OK

    pipeline.get_by_name("out").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, count_meta)

    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    messages, code = 0, 0
    while True:
        msg = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.ELEMENT | Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is not None and s.get_name() == "viewfinder/composition":
                messages += 1
                print(json.dumps({"source": msg.src.get_name(), **composition(s)}), flush=True)
        elif msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print(f"compose.py: {msg.src.get_name()}: {err.message}", file=sys.stderr)
            code = 1
            break
        else:
            break
    pipeline.set_state(Gst.State.NULL)
    print(json.dumps({"messages": messages, "frames-with-meta": with_meta[0]}), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
