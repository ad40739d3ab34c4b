#!/usr/bin/env bash
# make-diff-pairs.sh DEST COUNT [PHOTOS]
#
# Builds the trees a CI job's `collage --diff` compares, from the 24 real
# 1920x1080 PNG screenshots of make-screenshots.sh: DEST/base/ (the last
# release's) and DEST/shots/ (today's) with COUNT pairs each, a tenth of
# them changed (a box drawn at a place of its own, as a moved button would
# change it), the rest the same pixels in other bytes (the screenshot
# encoded again at another compression level, as a new browser's PNG
# encoder would); and DEST/same/, byte-identical to base/ (hard links).
# Made once; a DEST that has .made is left alone.
set -euo pipefail
dest=${1:?usage: make-diff-pairs.sh DEST COUNT [PHOTOS]}
count=${2:?usage: make-diff-pairs.sh DEST COUNT [PHOTOS]}
photos=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
[ -e "$dest/.made" ] && exit 0
bash "$here/make-screenshots.sh" "$dest/screens" 0 "$photos" >/dev/null
rm -rf "$dest/base" "$dest/shots" "$dest/same" "$dest/again"
mkdir -p "$dest/base" "$dest/shots" "$dest/same" "$dest/again"
mapfile -t screens < <(ls "$dest/screens/shots")
for f in "${screens[@]}"; do  # the same pixels in other bytes
  vips copy "$dest/screens/shots/$f" "$dest/again/$f[compression=3]"
  cmp -s "$dest/screens/shots/$f" "$dest/again/$f" && { echo "make-diff-pairs.sh: $f encoded the same" >&2; exit 1; }
done
for ((i = 0; i < count; i++)); do
  f=${screens[i % ${#screens[@]}]}
  name=$(printf 'page%05d.png' "$i")
  ln "$dest/screens/shots/$f" "$dest/base/$name"
  ln "$dest/screens/shots/$f" "$dest/same/$name"
  if ((i % 10 == 0)); then
    work=$(mktemp --suffix=.v)
    vips copy "$dest/screens/shots/$f" "$work"
    vips draw_rect "$work" "200 40 40" $((300 + i * 37 % 1400)) $((100 + i * 53 % 800)) 120 36 --fill
    vips copy "$work" "$dest/shots/$name"
    rm -f "$work"
  else
    ln "$dest/again/$f" "$dest/shots/$name"
  fi
done
touch "$dest/.made"
echo "$count pairs in $dest/base and $dest/shots ($((count / 10 + (count % 10 > 0))) changed), $dest/same byte-identical to base"
