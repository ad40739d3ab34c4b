# two-halves.sh, sourced by the two-core floors of scripts/bench
# (floor2.sh, ffmpeg-seeks2.sh, ffmpeg-posters2.sh): `two_halves FN ITEM...`
# runs `FN EVEN-ITEMS...` and, at once in a second process,
# `FN ODD-ITEMS...`; it fails if either fails.
two_halves() {
  local fn=$1 i status=0 first
  shift
  local even=() odd=()
  for ((i = 1; i <= $#; i++)); do
    if ((i % 2)); then even+=("${!i}"); else odd+=("${!i}"); fi
  done
  "$fn" "${even[@]}" & first=$!
  "$fn" "${odd[@]}" || status=$?
  wait "$first" || status=$?
  return $status
}
