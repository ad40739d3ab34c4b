#!/usr/bin/env bash
# four-shards.sh OUTPUT DIR: the four shards of one `collage --sheets` job
# started at once on this machine (--jobs 1 --shard I/4 for I in 0..3), as
# scripts/bench measures them; fails if any shard fails.
set -uo pipefail
output=${1:?usage: four-shards.sh OUTPUT DIR} dir=${2:?usage: four-shards.sh OUTPUT DIR}
status=0 pids=()
for i in 0 1 2 3; do collage --sheets --jobs 1 --shard "$i/4" -o "$output" "$dir" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
exit $status
