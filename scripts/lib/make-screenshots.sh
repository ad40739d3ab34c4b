#!/usr/bin/env bash
# make-screenshots.sh DEST [COUNT] [PHOTOS]
#
# Builds a folder of real 1920x1080 PNG screenshots for benchmarks: a
# headless Chromium renders 24 different pages (a dashboard, a log viewer, a
# document, a table, a gallery, each with its own colours, text and, where
# PHOTOS names a folder of JPEGs, a photo) and saves each as a PNG, the way
# a CI job screenshots a web app. With COUNT, DEST/many/ also gets COUNT
# hard links cycling over them (distinct names, sorted), for scale runs.
#
# Needs chromium (Debian's package) and fonts-dejavu-core. Screenshots are
# made once; a folder that already has 24 is left alone.
set -euo pipefail
dest=${1:?usage: make-screenshots.sh DEST [COUNT] [PHOTOS]}
count=${2:-0}
photos=${3:-}
kinds=24
mkdir -p "$dest/shots"
if [ "$(find "$dest/shots" -name '*.png' | wc -l)" -ne "$kinds" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  texts=(/usr/share/common-licenses/*)
  images=()
  if [ -n "$photos" ] && [ -d "$photos" ]; then
    mapfile -t images < <(find "$(cd "$photos" && pwd)" -maxdepth 1 -iname '*.jpg' | sort)
  fi
  for ((i = 0; i < kinds; i++)); do
    hue=$((i * 47 % 360))
    text=$(head -c $((3000 + i * 700)) "${texts[i % ${#texts[@]}]}" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
    photo=""
    if [ ${#images[@]} -gt 0 ] && [ $((i % 3)) -ne 2 ]; then
      photo="<img src=\"file://${images[i % ${#images[@]}]}\" style=\"width:$((520 + i * 20))px;float:right;margin:0 0 12px 18px\">"
    fi
    rows=""
    for ((r = 0; r < 14 + i % 9; r++)); do
      rows+="<tr><td>job-$((i * 100 + r))</td><td>$(( (r * 7919 + i * 104729) % 9973 )) ms</td>"
      rows+="<td style=\"color:hsl($(( (hue + r * 30) % 360 )),70%,35%)\">$([ $((r % 4)) -eq 0 ] && echo failed || echo passed)</td>"
      rows+="<td><div style=\"background:hsl($hue,60%,55%);height:10px;width:$(( (r * 37 + i * 11) % 300 + 20 ))px\"></div></td></tr>"
    done
    cat >"$work/page$i.html" <<EOF
<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font-family:"DejaVu Sans",sans-serif;font-size:$((13 + i % 4))px;background:hsl($hue,25%,97%);color:#222}
header{background:hsl($hue,45%,28%);color:#fff;padding:14px 24px;font-size:20px}
nav{position:absolute;top:52px;left:0;width:230px;bottom:0;background:hsl($hue,20%,90%);padding:16px}
nav div{padding:7px 4px;border-bottom:1px solid hsl($hue,20%,80%)}
main{margin-left:262px;padding:18px 28px}
table{border-collapse:collapse;margin:10px 0 18px}td{border-bottom:1px solid #ddd;padding:4px 14px}
pre{white-space:pre-wrap;font-family:"DejaVu Sans Mono",monospace;font-size:12px;background:#fff;padding:10px;border:1px solid #ccc}
</style></head><body>
<header>Build $((4000 + i * 37)) · pipeline $((i % 5 + 1)) · $(printf 'screen %02d' "$i")</header>
<nav>$(for n in Overview Jobs Artifacts Tests Coverage Logs Settings; do echo "<div>$n</div>"; done)</nav>
<main><h2>Run summary $i</h2>$photo
<table>$rows</table><pre>$text</pre></main></body></html>
EOF
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --allow-file-access-from-files \
      --window-size=1920,1080 --screenshot="$work/shot$i.png" "file://$work/page$i.html" >/dev/null 2>&1 || true
    [ -s "$work/shot$i.png" ] || { echo "make-screenshots.sh: chromium made no screenshot of page $i" >&2; exit 1; }
    mv "$work/shot$i.png" "$dest/shots/$(printf 'shot%02d.png' "$i")"
  done
fi
if [ "$count" -gt 0 ]; then
  rm -rf "$dest/many"; mkdir -p "$dest/many"
  mapfile -t all < <(ls "$dest/shots")
  for ((i = 0; i < count; i++)); do
    f=${all[i % ${#all[@]}]}
    ln "$dest/shots/$f" "$dest/many/$(printf 'shot%06d' "$i")_$f"
  done
fi
msg="$(ls "$dest/shots" | wc -l) screenshots in $dest/shots"
[ "$count" -gt 0 ] && msg="$msg; $count links in $dest/many"
echo "$msg"
