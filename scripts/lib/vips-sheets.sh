#!/usr/bin/env bash
# vips-sheets.sh OUTDIR FILE...: the libvips command line's contact sheets of
# six, as scripts/bench measures it: vipsthumbnail once for all the files
# (400x400, centre crop), then `vips arrayjoin` once per sheet of six, 3
# across, written to OUTDIR/sheet-NNNN.jpg. The tiles go to OUTDIR/tiles, an
# absolute folder (vipsthumbnail reads a relative -o as relative to each
# input's folder).
set -euo pipefail
outdir=$(cd "${1:?usage: vips-sheets.sh OUTDIR FILE...}" && pwd); shift
tiles=$outdir/tiles
mkdir -p "$tiles"
vipsthumbnail --size 400x400 --smartcrop centre -o "$tiles/%s.v" "$@"
list=(); for f in "$@"; do b=${f##*/}; list+=("$tiles/${b%.*}.v"); done
for ((i = 0; i < ${#list[@]}; i += 6)); do
  vips arrayjoin "${list[*]:i:6}" "$(printf '%s/sheet-%04d.jpg' "$outdir" $((i / 6 + 1)))" --across 3
done
