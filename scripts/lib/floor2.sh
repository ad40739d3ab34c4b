#!/usr/bin/env bash
# floor2.sh WIDTH HEIGHT FILE...: the two-core decode floor scripts/bench
# measures collage against: two `floor` processes (scripts/lib/floor.c, found
# on PATH) at once, over the even and the odd files: what two cores decode,
# and nothing else. Fails if either fails.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/two-halves.sh"
width=${1:?usage: floor2.sh WIDTH HEIGHT FILE...} height=${2:?usage: floor2.sh WIDTH HEIGHT FILE...}; shift 2
decode() { floor "$width" "$height" "$@"; }
two_halves decode "$@"
