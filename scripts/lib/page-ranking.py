#!/usr/bin/env python3
"""page-ranking.py EVENTS KINDS: how well `collage --diff` ranks real
regressions, from its --json events (EVENTS) and make-page-pairs.py's
kinds.tsv (KINDS): the pairs in the sheets' order (changed first, most real
change first, then resized, shifted, added, removed, noise; ties by path),
and the share of real regressions (removed button, recoloured link, warning
box) ranked above every noise or shift-only pair. One line, for the bench's
report; the statuses each kind got go to standard error."""
import collections
import json
import sys

ORDER = ["changed", "resized", "shifted", "added", "removed", "noise", "unchanged"]
REGRESSIONS = {"button", "link", "warning"}

kinds = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[2]) if line.strip())
pairs = [e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "compared"]
pairs.sort(key=lambda e: (ORDER.index(e["status"]), -e["pixels"] if e["status"] == "changed" else 0, e["path"]))
kind_of = [kinds.get(e["path"].rsplit("/", 1)[-1], "?") for e in pairs]
harmless = [rank for rank, kind in enumerate(kind_of) if kind in ("noise", "shift")]
first_harmless = min(harmless, default=len(pairs))
regressions = [rank for rank, kind in enumerate(kind_of) if kind in REGRESSIONS]
above = sum(rank < first_harmless for rank in regressions)
share = 100 * above / len(regressions) if regressions else 0
first = ""
if above < len(regressions) and harmless:
    e = pairs[first_harmless]
    first = (f" (the first of those: {e['path'].rsplit('/', 1)[-1]}, {kind_of[first_harmless]}, "
             f"{e['status']} {e['pixels']} px)")
print(f"ranking: {above} of {len(regressions)} real regressions ({share:.0f}%) above every one of the "
      f"{len(harmless)} noise or shift-only pairs{first}")
got = collections.defaultdict(collections.Counter)
for e, kind in zip(pairs, kind_of):
    got[kind][e["status"]] += 1
for kind in sorted(got):
    print(f"{kind}: " + ", ".join(f"{n} {s}" for s, n in sorted(got[kind].items())), file=sys.stderr)
