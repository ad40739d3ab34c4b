#!/usr/bin/env bash
# make-long-film.sh DEST [SECONDS]
#
# The long film of the films benchmark: DEST/long.mp4, SECONDS (default
# 1200: 20 minutes) of 1920x1080 at 25 frames a second, H.264 (x264
# ultrafast, 1.5 Mb/s, a keyframe every 10 s, no B-frames), AAC sound.
# FFmpeg's moving test pattern, its hue turned every 37 s and negated every
# third 37 s, so that the film has cuts between shots of their own look.
# A file that already exists is kept.
#
# Needs the ffmpeg command (Debian's ffmpeg package, with libx264).
set -euo pipefail
dest=${1:?usage: make-long-film.sh DEST [SECONDS]}
seconds=${2:-1200}
mkdir -p "$dest"
out="$dest/long.mp4"
[ -s "$out" ] && exit 0
ffmpeg -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=25:d=$seconds" \
  -f lavfi -i "sine=f=440:d=$seconds" \
  -vf "hue=h=67*floor(t/37),negate=enable='eq(mod(floor(t/37)\,3)\,2)',format=yuv420p" \
  -c:v libx264 -preset ultrafast -b:v 1500k -g 250 -bf 0 -c:a aac -b:a 96k \
  -movflags +faststart "$out.tmp.mp4"
mv "$out.tmp.mp4" "$out"
echo "a film of 1920x1080, $seconds s, in $out"
