#!/usr/bin/env bash
# make-phone-films.sh DEST [SECONDS]
#
# Phone-like 4K HDR clips for the phone films benchmark, in DEST/phone/:
# SECONDS (default 4) each of FFmpeg's moving test pattern drifting through
# the hues at 3840x2160, 10-bit HEVC Main 10 (x265 ultrafast, its B-frames,
# open GOPs keyed by CRA frames) in BT.2020, tagged as phones record them:
#   hlg-30fps-gop1.mp4     HLG, 30 frames a second, a keyframe every second
#   pq-24fps-gop05-rot.mp4 PQ, 24 frames a second, every half second, upright
#                          (a display matrix turning it 90 degrees)
#   hlg-60fps-gop2.mp4     HLG, 60 frames a second, every two seconds
# The pattern's SDR pixels are tagged HLG or PQ as they are (no conversion):
# the memory and the seeks are what is measured, not the colour.
# Files that already exist are kept.
#
# Needs the ffmpeg command (Debian's ffmpeg package, with libx265).
set -euo pipefail
dest=${1:?usage: make-phone-films.sh DEST [SECONDS]}
seconds=${2:-4}
mkdir -p "$dest/phone"
clip() {  # NAME RATE KEYINT TRANSFER ROTATE
  local out="$dest/phone/$1"
  [ -s "$out" ] && return 0
  ffmpeg -v error -y -f lavfi -i "testsrc2=s=3840x2160:r=$2:d=$seconds,hue=h=t*40" \
    -vf "scale=out_color_matrix=bt2020:out_range=tv,format=yuv420p10le" \
    -c:v libx265 -preset ultrafast \
    -x265-params "log-level=error:keyint=$3:min-keyint=$3:bframes=3:colorprim=bt2020:transfer=$4:colormatrix=bt2020nc" \
    -color_primaries bt2020 -color_trc "$4" -colorspace bt2020nc -color_range tv "$out.enc.mp4"
  # The display matrix by a copy (FFmpeg 5.1 leaves `rotate` out while encoding).
  ffmpeg -v error -y -i "$out.enc.mp4" -c copy -metadata:s:v:0 rotate="$5" -movflags +faststart "$out.tmp.mp4"
  rm -f "$out.enc.mp4"
  mv "$out.tmp.mp4" "$out"
}
clip hlg-30fps-gop1.mp4 30 30 arib-std-b67 0
clip pq-24fps-gop05-rot.mp4 24 12 smpte2084 90
clip hlg-60fps-gop2.mp4 60 120 arib-std-b67 0
echo "3 phone-like 4K HDR clips of $seconds s in $dest/phone"
