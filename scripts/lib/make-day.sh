#!/usr/bin/env bash
# make-day.sh SAMPLES DIR: a day of 15 photos made from SAMPLES (samples/)
# with vips and ExifTool, as a phone leaves one: a burst of five (shifted,
# one darker, one blurred by motion), a burst of three (one out of focus),
# a black pocket shot, a photo and its re-encoded copy, a defocused shot
# and four other scenes, each with its capture time. scripts/pictures
# shows it without and with --pick.
set -euo pipefail
samples=${1:?usage: make-day.sh SAMPLES DIR} day=${2:?usage: make-day.sh SAMPLES DIR}
mkdir -p "$day"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A 21-pixel horizontal motion blur.
{ echo "21 1 21 0"; printf '1 %.0s' $(seq 21); echo; } > "$work/line.mat"
vips crop "$samples/aqua.jpg" "$day/a1.jpg" 0 0 960 600
vips crop "$samples/aqua.jpg" "$day/a2.jpg" 20 10 960 600
vips crop "$samples/aqua.jpg" "$day/a3.jpg" 40 20 960 600
vips convi "$day/a2.jpg" "$day/a4.jpg" "$work/line.mat"
vips linear "$day/a1.jpg" "$day/a5.jpg" 0.8 0 --uchar
vips crop "$samples/dune.jpg" "$day/b1.jpg" 0 0 960 600
vips crop "$samples/dune.jpg" "$day/b2.jpg" 30 0 960 600
vips gaussblur "$day/b1.jpg" "$day/b3.jpg" 6
vips copy "$samples/raindrops.jpg" "$day/c.jpg"
vips black "$day/d-black.jpg" 960 600
vips copy "$samples/twowings.jpg" "$day/e.jpg"
vips thumbnail "$day/e.jpg" "$day/e-copy.jpg[Q=40]" 800
vips gaussblur "$samples/greenmeadow.jpg" "$day/f-defocused.jpg" 8
vips copy "$samples/storm-rotated.jpg" "$day/g.jpg"
vips autorot "$samples/wood-sideways.jpg" "$work/wood.jpg"
vips crop "$work/wood.jpg" "$day/h.jpg" 0 0 768 500
taken() { local time=$1; shift; exiftool -q -overwrite_original "-DateTimeOriginal=2026:08:14 $time" "${@/#/$day/}"; }
taken 09:00:00 a1.jpg
taken 09:00:01 a2.jpg a4.jpg
taken 09:00:02 a3.jpg a5.jpg
taken 10:00:00 b1.jpg b2.jpg b3.jpg
taken 11:00:00 c.jpg
taken 11:30:00 d-black.jpg
taken 12:00:00 e.jpg e-copy.jpg
taken 13:00:00 f-defocused.jpg
taken 14:00:00 g.jpg
taken 15:00:00 h.jpg
