#!/usr/bin/env bash
# (A copy of shared/tools/make-corpus.sh, so scripts/bench works from a fresh clone.)
# make-corpus.sh DEST [COUNT]
#
# Builds a folder of real photographs for benchmarks and manual tests, from
# Debian's desktop wallpaper packages (mate-backgrounds,
# plasma-workspace-wallpapers, ukui-wallpapers): about 44 JPEGs from 1280x1024
# to 5640x3172, some portrait, one greyscale. With COUNT, DEST/many/ also gets
# COUNT hard links cycling over them (distinct names, sorted), for scale runs.
#
# Needs apt-get (Debian/Ubuntu) and network access to the Debian archive.
# The photos keep their packages' licences; do not commit them to the project.
set -euo pipefail
dest=${1:?usage: make-corpus.sh DEST [COUNT]}
count=${2:-0}
mkdir -p "$dest/photos"
if [ -z "$(ls -A "$dest/photos" 2>/dev/null)" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download mate-backgrounds plasma-workspace-wallpapers ukui-wallpapers >/dev/null 2>&1) || {
    apt-get update -qq >/dev/null 2>&1
    (cd "$work" && apt-get download mate-backgrounds plasma-workspace-wallpapers ukui-wallpapers >/dev/null)
  }
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
  find "$work/x" -iname '*.jpg' -size +100k | while read -r f; do
    name=$(echo "${f#"$work"/x/usr/share/}" | sed 's|/contents/images||; s|[/ ]|_|g')
    cp "$f" "$dest/photos/$name"
  done
fi
if [ "$count" -gt 0 ]; then
  rm -rf "$dest/many"; mkdir -p "$dest/many"
  mapfile -t all < <(ls "$dest/photos")
  for ((i = 0; i < count; i++)); do
    f=${all[i % ${#all[@]}]}
    ln "$dest/photos/$f" "$dest/many/$(printf 'img%06d' "$i")_$f"
  done
fi
msg="$(ls "$dest/photos" | wc -l) photos in $dest/photos"
[ "$count" -gt 0 ] && msg="$msg; $count links in $dest/many"
echo "$msg"
