"""film-brightness.py FILMS WORK: how an HDR film looks on collage's sheet
and on vcsi's, against the SDR picture it was made from.

FILMS is make-films.sh's DEST (films/hdr.mp4, an HLG film, and
source/sdr-source.mp4, the SDR pattern it was made from); WORK a folder for
the sheets. Runs `collage hdr.mp4 --frames 16 --json` and `vcsi hdr.mp4 -g
4x4 -w 1200 -O` (vcsi's frames kept as files), takes the SDR source's frames
at the times collage's `frame` events name, and prints the mean CIE L* and
C*ab (sRGB, D65) of collage's tiles (their `placed` rectangles), of vcsi's
frames, and of the source's. Run with the Python of scripts/lib/vcsi-venv.sh
(its Pillow and NumPy), collage and that venv's vcsi on PATH.
"""
import glob
import json
import os
import subprocess
import sys

import numpy as np
from PIL import Image


def lab(rgb):
    """Mean L* and C*ab of an RGB array (H x W x 3, 0-255, sRGB)."""
    c = rgb.astype(np.float64) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = lin.reshape(-1, 3) @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    l = 116 * f[:, 1] - 16
    a, b = 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])
    return l.mean(), np.hypot(a, b).mean()


def main(films, work):
    os.makedirs(work, exist_ok=True)
    hdr, source = os.path.join(films, "films", "hdr.mp4"), os.path.join(films, "source", "sdr-source.mp4")
    sheet = os.path.join(work, "collage.jpg")
    run = subprocess.run(["collage", hdr, "--frames", "16", "--json", "-o", sheet], capture_output=True, check=True)
    events = [json.loads(line) for line in run.stdout.decode().splitlines()]
    picture = np.asarray(Image.open(sheet).convert("RGB"))
    tiles = [picture[e["y"]:e["y"] + e["height"], e["x"]:e["x"] + e["width"]] for e in events if e["event"] == "placed"]
    times = [e["time"] for e in events if e["event"] == "frame"]
    thumbs = os.path.join(work, "vcsi-frames")
    os.makedirs(thumbs, exist_ok=True)
    subprocess.run(["vcsi", hdr, "-g", "4x4", "-w", "1200", "-O", thumbs, "-o", os.path.join(work, "vcsi.jpg")],
                   capture_output=True, check=True)
    frames = [np.asarray(Image.open(p).convert("RGB")) for p in sorted(glob.glob(os.path.join(thumbs, "*")))]
    sources = []
    for index, time in enumerate(times):
        png = os.path.join(work, f"source-{index:02d}.png")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", str(time), "-i", source, "-frames:v", "1", png], check=True)
        sources.append(np.asarray(Image.open(png).convert("RGB")))
    for name, pictures in (("collage", tiles), ("vcsi", frames), ("SDR source", sources)):
        values = [lab(p) for p in pictures]
        l, c = np.mean([v[0] for v in values]), np.mean([v[1] for v in values])
        print(f"{name}: {len(pictures)} frames, mean L* {l:.1f}, C*ab {c:.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
