#!/usr/bin/env bash
# ffmpeg-posters2.sh SECONDS FILE...: the floor scripts/bench measures
# collage --video against: one frame of each video at SECONDS by the ffmpeg
# command (`ffmpeg -ss T -i V -frames:v 1`, decoded and dropped), two
# processes at once over the even and the odd files. Fails if one fails.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/two-halves.sh"
at=${1:?usage: ffmpeg-posters2.sh SECONDS FILE...}; shift
posters() {
  local file status=0
  for file; do
    ffmpeg -v error -nostdin -ss "$at" -i "$file" -frames:v 1 -f null - || status=1
  done
  return $status
}
two_halves posters "$@"
