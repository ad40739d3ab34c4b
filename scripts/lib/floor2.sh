#!/usr/bin/env bash
# floor2.sh WIDTH HEIGHT FILE...: the two-core decode floor scripts/bench
# measures collage against: two `floor` processes (scripts/lib/floor.c, found
# on PATH) at once, over the even and the odd files: what two cores decode,
# and nothing else. Fails if either fails.
set -uo pipefail
width=${1:?usage: floor2.sh WIDTH HEIGHT FILE...} height=${2:?usage: floor2.sh WIDTH HEIGHT FILE...}; shift 2
files=("$@") even=() odd=()
for ((i = 0; i < ${#files[@]}; i++)); do
  if ((i % 2 == 0)); then even+=("${files[i]}"); else odd+=("${files[i]}"); fi
done
floor "$width" "$height" "${even[@]}" & first=$!
status=0
floor "$width" "$height" "${odd[@]}" || status=$?
wait "$first" || status=$?
exit $status
