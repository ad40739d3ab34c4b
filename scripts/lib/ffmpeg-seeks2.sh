#!/usr/bin/env bash
# ffmpeg-seeks2.sh COUNT FILE...: the floor scripts/bench measures
# collage --frames COUNT against: COUNT frames of each film by the ffmpeg
# command (`ffmpeg -ss T -i F -frames:v 1`, decoded and dropped), at the
# middles of COUNT equal parts of its length (ffprobe's), two processes at
# once over the even and the odd seeks. Fails if one fails.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/two-halves.sh"
count=${1:?usage: ffmpeg-seeks2.sh COUNT FILE...}; shift
seeks=()  # TIME<TAB>FILE
for file in "$@"; do
  length=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$file") || exit 1
  for ((i = 0; i < count; i++)); do
    seeks+=("$(awk -v d="$length" -v i="$i" -v n="$count" 'BEGIN { printf "%.3f", d * (i + 0.5) / n }')"$'\t'"$file")
  done
done
seek() {
  local item status=0
  for item; do
    ffmpeg -v error -nostdin -ss "${item%%$'\t'*}" -i "${item#*$'\t'}" -frames:v 1 -f null - || status=1
  done
  return $status
}
two_halves seek "${seeks[@]}"
