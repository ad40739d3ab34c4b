#!/usr/bin/env bash
# make-trip-film.sh SAMPLES OUT: a short film of the landscape photos in
# SAMPLES (samples/), as a phone's slideshow or a holiday edit makes one:
# each photo a slow zoom of 4 s (960x540, 25 frames a second), cut to the
# next, a fade from black at the start, and 4 s of credits rolling up over
# black at the end; H.264 with an AAC tone under it. scripts/pictures makes
# the films picture (docs/films.md, README) from it.
#
# Needs the ffmpeg command (Debian's ffmpeg, with libfreetype and fontconfig)
# and the DejaVu fonts.
set -euo pipefail
samples=${1:?usage: make-trip-film.sh SAMPLES OUT}
out=${2:?usage: make-trip-film.sh SAMPLES OUT}
photos=(aqua dune greenmeadow raindrops twowings)
inputs=()
graph=""
for i in "${!photos[@]}"; do
  inputs+=(-i "$samples/${photos[$i]}.jpg")
  graph+="[$i]scale=1920:1080:force_original_aspect_ratio=increase,crop=1920:1080,"
  graph+="zoompan=z='1+0.003*on':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=100:s=960x540:fps=25,setsar=1[s$i];"
done
n=${#photos[@]}
credits="color=c=black:s=960x540:r=25:d=4"
lines=("Photographs" "Charles Barbin · Marco Cogoni" "Timothy Schellhase · blackcombwhistler07" "mate-backgrounds, GPL-2+")
for i in "${!lines[@]}"; do
  colour=white; [ "$i" -eq 3 ] && colour=0xAAAAAA
  credits+=",drawtext=font='DejaVu Sans':fontsize=26:fontcolor=$colour:text='${lines[$i]}':x=(w-tw)/2:y=h+$((i * 44))-t*130"
done
credits+=",setsar=1[s$n];"
graph+="$credits"
for ((i = 0; i <= n; i++)); do graph+="[s$i]"; done
graph+="concat=n=$((n + 1)):v=1:a=0,fade=in:d=1,format=yuv420p[v]"
ffmpeg -v error -y "${inputs[@]}" -f lavfi -i "sine=f=330:d=24" -filter_complex "$graph" \
  -map '[v]' -map "$n:a" -c:v libx264 -preset veryfast -crf 23 -g 50 -c:a aac -b:a 96k -shortest \
  -movflags +faststart "$out"
