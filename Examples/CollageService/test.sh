#!/usr/bin/env bash
# Builds and tests the example service (a package of its own, so the root
# package's builds never pay for Hummingbird): its XCTests over loopback,
# then the executable itself: started on a free port, asked for a sheet and
# its health with curl, and stopped with SIGTERM. Ends with one closing line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../scripts/lib/common.sh"
ensure_swift
ensure_build_deps
# The tests make their JPEGs with the vips command; the smoke test uses curl.
ensure_packages libvips-tools curl
cd "$here"
swift build --build-tests
status=0
log=$(mktemp)
work=$(mktemp -d /tmp/collage-service-smoke-XXXXXX)
service=""
cleanup() {
  if [ -n "$service" ]; then kill "$service" 2>/dev/null || true; fi
  rm -rf "$log" "$work"
}
trap cleanup EXIT
swift test --skip-build --disable-swift-testing 2>&1 | tee "$log" || status=$?
summary=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?' "$log" | tail -1 || true)

# The executable end to end: port 0, the port read from its line.
smoke=0
binary="$(swift build --show-bin-path)/collage-service"
vips black "$work/a.jpg" 600 400 --bands 3
vips black "$work/b.jpg" 400 300 --bands 3
"$binary" --port 0 >"$work/out" 2>"$work/err" &
service=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$work/out" | head -1)
  [ -n "$port" ] && break
  kill -0 "$service" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "smoke: the service printed no port"; cat "$work/err"; smoke=1
else
  code=$(curl -s -o "$work/sheet.jpg" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"paths\": [\"$work/a.jpg\", \"$work/b.jpg\"], \"size\": \"320x200\"}" "http://127.0.0.1:$port/sheets")
  size=$(vipsheader -f width "$work/sheet.jpg" 2>/dev/null || true)x$(vipsheader -f height "$work/sheet.jpg" 2>/dev/null || true)
  health=$(curl -s "http://127.0.0.1:$port/health")
  empty=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{"paths": []}' \
    "http://127.0.0.1:$port/sheets")
  if [ "$code" = 200 ] && [ "$size" = 320x200 ] && [ "$health" = '{"status":"ok"}' ] && [ "$empty" = 400 ]; then
    echo "smoke: POST /sheets 200 (a ${size} JPEG), GET /health ok, no paths 400"
  else
    echo "smoke: failed: sheet $code ($size), health '$health', no paths $empty"; cat "$work/err"; smoke=1
  fi
  kill -TERM "$service"
  if ! wait "$service"; then echo "smoke: the service did not stop cleanly on SIGTERM"; smoke=1; fi
  service=""
fi
[ "$smoke" -eq 0 ] || status=1

if [[ $summary =~ Executed\ ([0-9]+)\ tests?,\ with\ ([0-9]+)\ failure ]]; then
  total=$((BASH_REMATCH[1] + 1)); failed=$((BASH_REMATCH[2] + smoke))
  echo "$((total - failed)) passed, $failed failed"
else
  status=1
fi
exit $status
