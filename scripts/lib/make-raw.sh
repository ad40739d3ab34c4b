#!/usr/bin/env bash
# make-raw.sh PHOTOS DEST [COUNT]
#
# RAW photos for benchmarks, as a camera card holds them: DEST/raw/ gets
# COUNT (default 300) DNGs, each with one of PHOTOS' JPEGs (a folder made
# by make-corpus.sh, cycled over) embedded as its preview, byte for byte, as
# cameras embed a full-size JPEG; DEST/jpeg/ gets the same JPEGs as plain
# files of the same names. A run over raw/ against one over jpeg/ measures
# what reading RAW files through LibRaw costs beyond decoding their previews.
#
# The raw data is a small Bayer mosaic (an eighth of the preview's size,
# the same shape) written by make-dng.py: the previews cover any tile up to
# their own size, so the raw data is never demosaiced, and the corpus stays
# the size of the JPEGs. Orientation is the JPEG's own (none).
#
# Needs python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:?usage: make-raw.sh PHOTOS DEST [COUNT]}
dest=${2:?usage: make-raw.sh PHOTOS DEST [COUNT]}
count=${3:-300}
mkdir -p "$dest/raw" "$dest/jpeg"
mapfile -t all < <(ls "$src" | grep -i '\.jpe\?g$' | sort)
[ ${#all[@]} -gt 0 ] || { echo "make-raw.sh: no JPEG in $src" >&2; exit 1; }
for ((i = 0; i < count; i++)); do
  f=${all[i % ${#all[@]}]}
  name=$(printf 'IMG_%04d' "$((i + 1))")
  [ -s "$dest/raw/$name.dng" ] && [ -s "$dest/jpeg/$name.jpg" ] && continue
  size=$(python3 - "$src/$f" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
i = 2
while i + 9 < len(data):
    marker, length = data[i + 1], struct.unpack('>H', data[i + 2:i + 4])[0]
    if marker in (0xC0, 0xC1, 0xC2):
        h, w = struct.unpack('>HH', data[i + 5:i + 9])
        print('%dx%d' % (max(2, w // 8 // 2 * 2), max(2, h // 8 // 2 * 2)))
        break
    i += 2 + length
PY
)
  python3 "$here/make-dng.py" "$dest/raw/$name.dng" --preview "$src/$f" --size "$size"
  cp "$src/$f" "$dest/jpeg/$name.jpg"
done
echo "$count DNGs in $dest/raw, their previews as JPEGs in $dest/jpeg"
