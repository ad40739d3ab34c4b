#!/usr/bin/env bash
# make-videos.sh DEST [COUNT]
#
# Phone-like videos for benchmarks: COUNT (default 50) MP4 files of 10 s,
# 1920x1080 at 30 frames a second, H.264 High profile without B-frames and
# a keyframe a second (as phones record them), with an AAC sound track;
# every fifth one is an upright phone video (a display matrix turning it a
# quarter, as phones write it). Each shows FFmpeg's test pattern at its own
# hue, so no two posters look alike. Files that already exist are kept.
#
# Needs the ffmpeg command (Debian's ffmpeg package).
set -euo pipefail
dest=${1:?usage: make-videos.sh DEST [COUNT]}
count=${2:-50}
mkdir -p "$dest"
for ((i = 1; i <= count; i++)); do
  out="$dest/$(printf 'VID_%04d' "$i").mp4"
  [ -s "$out" ] && continue
  rotate=()
  [ $((i % 5)) -eq 0 ] && rotate=(-metadata:s:v:0 rotate=90)
  ffmpeg -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=10,hue=h=$((i * 37 % 360))" \
    -f lavfi -i "sine=f=$((200 + i * 10)):d=10" \
    -c:v libx264 -preset veryfast -profile:v high -bf 0 -g 30 -crf 21 -pix_fmt yuv420p \
    -c:a aac -b:a 128k "${rotate[@]}" -movflags +faststart "$out.tmp.mp4"
  mv "$out.tmp.mp4" "$out"
done
echo "$count videos of 1920x1080, 10 s, in $dest"
