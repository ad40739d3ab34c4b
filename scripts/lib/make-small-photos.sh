#!/usr/bin/env bash
# make-small-photos.sh DIR COUNT: COUNT small landscape JPEGs (320x240) in
# DIR, spread over 20 folders: hard links cycling over 24 made here with
# libvips, each its own colour, named in scan order. For scripts/bench's
# scale-out case, where the header pass, not the decoding, is measured.
set -euo pipefail
dir=${1:?usage: make-small-photos.sh DIR COUNT} count=${2:?usage: make-small-photos.sh DIR COUNT}
base="$dir/.base"
mkdir -p "$base"
for ((i = 0; i < 24; i++)); do
  vips black "$base/black.v" 320 240 --bands 3
  vips linear "$base/black.v" "$base/b$i.jpg" "1 1 1" "$((i * 10)) $((240 - i * 9)) $((i * 5 + 30))" --uchar
done
rm -f "$base/black.v"
for ((k = 0; k < count; k++)); do
  folder=$(printf '%s/d%02d' "$dir" $((k % 20)))
  [ -d "$folder" ] || mkdir "$folder"
  ln "$base/b$((k % 24)).jpg" "$(printf '%s/img%06d.jpg' "$folder" "$k")"
done
