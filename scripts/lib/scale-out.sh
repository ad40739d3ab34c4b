#!/usr/bin/env bash
# scale-out.sh MODE SHARDS OUTPUT DIR: one `collage --sheets --max 12` job over
# DIR cut into SHARDS shards, run two at a time (--jobs 1 each), as a batch
# system with two slots would, for scripts/bench:
#   shards  every shard reads every header (--shard I/N alone)
#   plan    `collage --plan` first, then each shard from the plan
#   planonly  the plan alone
# With OPENS=FILE, each process runs under strace and FILE gets the number of
# opens of files below DIR across the whole job. Fails if any step fails.
set -uo pipefail
mode=${1:?usage: scale-out.sh MODE SHARDS OUTPUT DIR} shards=${2:?} output=${3:?} dir=${4:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace() {
  if [ -n "${OPENS:-}" ]; then strace -f -qq -e trace=openat -o "$work/trace.$BASHPID" "$@"; else "$@"; fi
}
if [ "$mode" != shards ]; then
  trace collage --plan "$work/job.plan" --sheets --max 12 "$dir" -o "$output" >/dev/null || exit
fi
if [ "$mode" != planonly ]; then
  for ((i = 0; i < shards; i++)); do echo "$i"; done |
    xargs -P 2 -I{} bash -c '
      mode=$0 shards=$1 work=$2 output=$3 dir=$4
      if [ "$mode" = plan ]; then set -- collage --from-plan "$work/job.plan" --jobs 1 --shard "{}/$shards"
      else set -- collage --sheets --max 12 --jobs 1 --shard "{}/$shards" "$dir" -o "$output"; fi
      if [ -n "${OPENS:-}" ]; then exec strace -f -qq -e trace=openat -o "$work/trace.shard{}" "$@"; else exec "$@"; fi
    ' "$mode" "$shards" "$work" "$output" "$dir" >/dev/null || exit
fi
if [ -n "${OPENS:-}" ]; then
  cat "$work"/trace.* | grep -F "\"$dir/" | grep -vc '= -1' > "$OPENS"
fi
