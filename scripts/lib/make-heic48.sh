#!/usr/bin/env bash
# make-heic48.sh PHOTOS DEST [COUNT]
#
# A phone's roll of 48 MP photos for benchmarks: COUNT (default 24) HEICs of
# 8064x6048 in 16x12 grid tiles of 512 (as an iPhone 14 Pro and later write
# them), made from the landscape JPEGs of PHOTOS (a folder made by
# make-corpus.sh) by heic-grid.py (FFmpeg's x265, tiles in a grid).
# Cycles over the photos when there are fewer than COUNT. Files that
# already exist are kept (encoding takes seconds each).
#
# Needs ffmpeg (with libx265), python3 and vipsheader.
set -euo pipefail
src=${1:?usage: make-heic48.sh PHOTOS DEST [COUNT]}
dest=${2:?usage: make-heic48.sh PHOTOS DEST [COUNT]}
count=${3:-24}
here=$(dirname "$0")
mkdir -p "$dest"
mapfile -t all < <(for f in "$src"/*.jpg; do
  w=$(vipsheader -f width "$f"); h=$(vipsheader -f height "$f")
  [ "$w" -gt "$h" ] && echo "$f"
done)
[ ${#all[@]} -gt 0 ] || { echo "make-heic48.sh: no landscape JPEG in $src" >&2; exit 1; }
for ((i = 0; i < count; i++)); do
  f=${all[i % ${#all[@]}]}
  out="$dest/$(printf 'IMG_%04d' "$((i + 1))").heic"
  [ -s "$out" ] && continue
  python3 "$here/heic-grid.py" "$f" "$out" 8064 6048
done
echo "$count HEIC photos of 8064x6048 in $dest"
