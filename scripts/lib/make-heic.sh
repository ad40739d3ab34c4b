#!/usr/bin/env bash
# make-heic.sh PHOTOS DEST [COUNT]
#
# A phone's roll for benchmarks: COUNT (default 24) HEIC photos of 12 MP
# (4032x3024, as a phone's main camera writes them), made from the landscape
# JPEGs of PHOTOS (a folder made by make-corpus.sh) with libvips' own HEIF
# encoder (libheif with x265): each photo is scaled to cover 4032x3024 and
# centre-cropped. Cycles over the photos when there are fewer than COUNT.
# Files that already exist are kept (encoding takes seconds each).
#
# Needs the vips command (libvips-tools).
set -euo pipefail
src=${1:?usage: make-heic.sh PHOTOS DEST [COUNT]}
dest=${2:?usage: make-heic.sh PHOTOS DEST [COUNT]}
count=${3:-24}
mkdir -p "$dest"
mapfile -t all < <(for f in "$src"/*.jpg; do
  w=$(vipsheader -f width "$f"); h=$(vipsheader -f height "$f")
  [ "$w" -gt "$h" ] && echo "$f"
done)
[ ${#all[@]} -gt 0 ] || { echo "make-heic.sh: no landscape JPEG in $src" >&2; exit 1; }
for ((i = 0; i < count; i++)); do
  f=${all[i % ${#all[@]}]}
  out="$dest/$(printf 'IMG_%04d' "$((i + 1))").heic"
  [ -s "$out" ] && continue
  vips thumbnail "$f" "$out[Q=80]" 4032 --height 3024 --crop centre --size both
done
echo "$count HEIC photos of 4032x3024 in $dest"
