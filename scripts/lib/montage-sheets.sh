#!/usr/bin/env bash
# montage-sheets.sh OUTDIR FILE...: ImageMagick's contact sheets of six, as
# scripts/bench measures them: one montage process per sheet (400x400 tiles,
# cover and centre crop, 3x2), written to OUTDIR/sheet-NNNN.jpg.
set -euo pipefail
outdir=${1:?usage: montage-sheets.sh OUTDIR FILE...}; shift
files=("$@")
for ((i = 0; i < ${#files[@]}; i += 6)); do
  montage -auto-orient -thumbnail '400x400^' -gravity center -extent 400x400 \
    -tile 3x2 -geometry +0+0 "${files[@]:i:6}" "$(printf '%s/sheet-%04d.jpg' "$outdir" $((i / 6 + 1)))"
done
