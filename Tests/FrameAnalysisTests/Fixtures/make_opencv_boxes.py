#!/usr/bin/python3
"""Writes opencv_faces.json: what OpenCV 4.6's own cv2.CascadeClassifier returns on the test photos.

This is the reference for issue 3, Proof (a): FrameAnalysis' Swift CascadeClassifier (and the faces
engine with verification off) must return these boxes. Inputs are exactly what the Swift tests read:
the PPM files made by launch/testdata in .testdata/, turned to luma with cv2.cvtColor(RGB2GRAY).

Requirements: Debian's python3-opencv (OpenCV 4.6, the same release as the opencv-data cascades in
/usr/share/opencv4) -- hence /usr/bin/python3, not a pyenv/venv interpreter -- and launch/testdata run.

    apt-get install -y python3-opencv opencv-data
    launch/testdata
    /usr/bin/python3 Tests/FrameAnalysisTests/Fixtures/make_opencv_boxes.py

Runs (each: cascade file, detectMultiScale2 arguments, images):
  * haarcascade_frontalface_default, scale 1.1, 5 neighbours, min 24x24 -- the issue's settings --
    on basketball1, messi5, astronaut and left01..left14 (left10 does not exist);
  * lbpcascade_frontalface (LBP features), scale 1.05, 3 neighbours -- finds the basketball1 face;
  * haarcascade_frontalface_alt2 (2-node trees), haarcascade_profileface, haarcascade_upperbody and
    haarcascade_fullbody (tilted features), haarcascade_licence_plate_rus_16stages (old XML layout,
    raw hits: 0 neighbours) for evaluator coverage.
Boxes are [x, y, width, height, neighbours], sorted. Each image also records the sum of its luma
samples and an FNV-1a hash of OpenCV's bit-exact bilinear resize (INTER_LINEAR_EXACT, the cascade
pyramid's resize) to a few sizes, so a test can tell an input difference from an evaluator difference.
"""
import json
import os
import sys

import cv2

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(ROOT, ".testdata")
CASCADES = "/usr/share/opencv4"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "opencv_faces.json")

PHOTOS = ["basketball1", "messi5", "astronaut"]
LEFTS = ["left%02d" % i for i in range(1, 15) if i != 10]

RUNS = [
    ("haarcascades/haarcascade_frontalface_default.xml", 1.1, 5, 24, PHOTOS + LEFTS),
    ("lbpcascades/lbpcascade_frontalface.xml", 1.05, 3, 0, ["basketball1", "astronaut"]),
    ("haarcascades/haarcascade_frontalface_alt2.xml", 1.1, 3, 0, ["messi5", "astronaut", "left01"]),
    ("haarcascades/haarcascade_profileface.xml", 1.1, 3, 0, ["astronaut", "left06"]),
    ("haarcascades/haarcascade_upperbody.xml", 1.05, 3, 0, ["vtest-0100", "basketball1"]),
    ("haarcascades/haarcascade_fullbody.xml", 1.05, 3, 0, ["vtest-0100"]),
    ("haarcascades/haarcascade_licence_plate_rus_16stages.xml", 1.1, 0, 0, ["vtest-0100", "basketball1"]),
]

RESIZES = [(581, 436), (320, 240), (57, 43)]


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def luma(name):
    path = os.path.join(DATA, name + ".ppm")
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    if bgr is None:
        sys.exit("missing %s: run launch/testdata first" % path)
    return cv2.cvtColor(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), cv2.COLOR_RGB2GRAY)


def main():
    images = {}
    runs = []
    for cascade, scale, neighbours, min_size, names in RUNS:
        classifier = cv2.CascadeClassifier(os.path.join(CASCADES, cascade))
        if classifier.empty():
            sys.exit("cannot load %s" % cascade)
        results = {}
        for name in names:
            gray = luma(name)
            if name not in images:
                images[name] = {
                    "width": int(gray.shape[1]),
                    "height": int(gray.shape[0]),
                    "graySum": int(gray.sum(dtype="int64")),
                    "resizeHashes": {
                        "%dx%d" % (w, h): fnv1a(cv2.resize(gray, (w, h), interpolation=cv2.INTER_LINEAR_EXACT).tobytes())
                        for w, h in RESIZES
                    },
                }
            boxes, counts = classifier.detectMultiScale2(
                gray, scaleFactor=scale, minNeighbors=neighbours, minSize=(min_size, min_size))
            results[name] = sorted([int(v) for v in b] + [int(n)] for b, n in zip(boxes, counts))
        runs.append({"cascade": cascade, "scaleFactor": scale, "minNeighbors": neighbours,
                     "minSize": min_size, "boxes": results})
    doc = {
        "producedBy": "Tests/FrameAnalysisTests/Fixtures/make_opencv_boxes.py",
        "opencv": cv2.__version__,
        "call": "cv2.CascadeClassifier(file).detectMultiScale2(gray, scaleFactor, minNeighbors, minSize=(s, s))",
        "gray": "cv2.cvtColor(RGB of .testdata/NAME.ppm, cv2.COLOR_RGB2GRAY)",
        "images": images,
        "runs": runs,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s (%d runs, %d images)" % (OUT, len(runs), len(images)))


if __name__ == "__main__":
    main()
