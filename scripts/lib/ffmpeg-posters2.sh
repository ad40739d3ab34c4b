#!/usr/bin/env bash
# ffmpeg-posters2.sh SECONDS FILE...: the floor scripts/bench measures
# collage --video against: one frame of each video at SECONDS by the ffmpeg
# command (`ffmpeg -ss T -i V -frames:v 1`, decoded and dropped), two
# processes at once over the even and the odd files. Fails if one fails.
set -uo pipefail
at=${1:?usage: ffmpeg-posters2.sh SECONDS FILE...}; shift
files=("$@")
half() {
  local status=0
  for ((i = $1; i < ${#files[@]}; i += 2)); do
    ffmpeg -v error -nostdin -ss "$at" -i "${files[i]}" -frames:v 1 -f null - || status=1
  done
  return $status
}
half 0 & first=$!
status=0
half 1 || status=$?
wait "$first" || status=$?
exit $status
