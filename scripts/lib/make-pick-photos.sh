#!/usr/bin/env bash
# make-pick-photos.sh DIR COUNT: COUNT photos 1024 px across in DIR, hard
# links cycling over the corpus's landscape photos ($CORPUS, as scripts/bench
# gives it) made 1024 px across by libvips (its thumbnail, metadata kept).
# For scripts/bench's pick case: photos as small as a phone's shared copies,
# where what a photo costs beside its decode weighs most.
set -euo pipefail
dir=${1:?usage: make-pick-photos.sh DIR COUNT} count=${2:?usage: make-pick-photos.sh DIR COUNT}
corpus=${CORPUS:?make-pick-photos.sh: CORPUS names the corpus photos}
base="$dir/.base"
mkdir -p "$base"
sources=()
for f in "$corpus"/*.jpg; do
  w=$(vipsheader -f width "$f") h=$(vipsheader -f height "$f")
  [ "$w" -gt "$h" ] || continue
  out="$base/$(basename "$f")"
  [ -s "$out" ] || vips thumbnail "$f" "$out[Q=90]" 1024
  sources+=("$out")
done
[ ${#sources[@]} -gt 0 ] || { echo "make-pick-photos.sh: no landscape photo in $corpus" >&2; exit 66; }
for ((k = 0; k < count; k++)); do
  name=$(printf '%s/img%06d.jpg' "$dir" "$k")
  [ -e "$name" ] || ln "${sources[k % ${#sources[@]}]}" "$name"
done
