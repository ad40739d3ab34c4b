# Shared by scripts/test and scripts/sanitize: a build's XCTest classes
# split into shards that run side by side, each a process of its own over a
# disjoint list of classes, and their results counted. Sourced after
# common.sh, not run.
#
# A shard runs the test bundle itself (BUNDLE.xctest CLASS,CLASS,...), as
# `swift test` does after building: two `swift test` processes on one build
# folder would take turns on SwiftPM's lock, one waiting for the other.
#
# The classes are what the bundle lists (`--list-tests`, what `swift test
# list` shows), so a class added later is run without being named here;
# each class goes to exactly one shard, and the tests counted are checked
# against the tests listed (a shard that stops early counts the tests it
# never ran as failed).
# Shards are balanced by each class's seconds in the last run of this tree
# (SCRATCH/test-times.tsv, written after every run; a fresh clone has
# none and takes scripts/lib/test-times.tsv, a run's times committed with
# the tests, refreshed by copying a later run's over it); a class not timed yet
# counts as its number of tests times the seconds a test of its module
# took on average (2 s when none was timed). Balance is only about wall
# time: which shard a class lands in never changes what it checks.

# xctest_default_shards: how many shards run at once when
# COLLAGE_TEST_SHARDS does not say: one more than the machine has cores.
# Many tests wait (for Slurm, for a signal's effect, for a child to write)
# and a shard waiting leaves its core idle: with two shards on two cores
# the cores were idle 11% of the suite's time (perf over every process,
# BENCHMARKS.md), which a third shard fills.
xctest_default_shards() {
  echo $(($(nproc) + 1))
}

# xctest_bundle SCRATCH: the path of the test bundle built at SCRATCH.
xctest_bundle() {
  local bundle
  for bundle in "$1"/debug/*PackageTests.xctest; do
    [ -x "$bundle" ] && { echo "$bundle"; return 0; }
  done
  echo "no test bundle in $1/debug (swift build --build-tests)" >&2
  return 1
}

# xctest_list SCRATCH: the tests (MODULE.CLASS/TEST) of the build at
# SCRATCH, one a line, sorted.
xctest_list() {
  local bundle
  bundle=$(xctest_bundle "$1") || return 1
  "$bundle" --list-tests 2>/dev/null | grep -E '^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*/' | LC_ALL=C sort -u
}

# xctest_split SHARDS TIMES LIST: "SHARD CLASS" lines (SHARD from 1), the
# classes of LIST (a file of xctest_list's lines) dealt out longest first,
# each to the shard with the least expected time so far.
xctest_split() {
  local shards=$1 times=$2 list=$3
  [ -f "$times" ] || times="$ROOT/scripts/lib/test-times.tsv"
  [ -f "$times" ] || times=/dev/null
  awk -v shards="$shards" '
    FILENAME == ARGV[1] { seconds[$1] = $2; next }
    { split($0, parts, "/"); class = parts[1]; tests[class]++ }
    END {
      # XCTest names a class without its module (the names are unique across modules).
      for (class in tests) {
        split(class, names, "."); module = names[1]
        if (names[2] in seconds) { timed[module] += seconds[names[2]]; counted[module] += tests[class] }
      }
      for (class in tests) {
        split(class, names, "."); module = names[1]
        if (names[2] in seconds) weight = seconds[names[2]]
        else weight = tests[class] * (counted[module] ? timed[module] / counted[module] : 2)
        printf "%.3f %s\n", weight, class
      }
    }' "$times" "$list" | sort -k1,1nr -k2,2 | awk -v shards="$shards" '
    { best = 1
      for (s = 2; s <= shards; s++) if (load[s] < load[best]) best = s
      load[best] += $1; print best, $2 }'
}

# xctest_times LOG...: "CLASS SECONDS" lines, each class's time as XCTest
# printed it ("Test Suite 'CLASS' passed at ..." then "Executed ... in T (W) seconds").
xctest_times() {
  awk '
    /^Test Suite .* (passed|failed) at / { suite = $0; sub(/^Test Suite \047/, "", suite); sub(/\047.*/, "", suite); next }
    suite != "" && /Executed [0-9]+ tests?/ {
      line = $0; sub(/.* in /, "", line); sub(/ .*/, "", line)
      if (suite !~ /\.xctest$/ && suite != "All tests" && suite != "Selected tests") print suite, line
      suite = ""
    }' "$@"
}

# xctest_shards NAME SCRATCH LIST SHARDS: runs the tests
# of LIST in SHARDS shards at once, logs in SCRATCH/test-logs/NAME-K.log;
# prints each shard's verdict and its failures, and sets XCTEST_PASSED,
# XCTEST_FAILED (tests; skipped ones count as passed, as XCTest counts
# them) and XCTEST_SKIPPED. Returns 1 when a test failed or did not run.
xctest_shards() {
  local name=$1 scratch=$2 list=$3 shards=$4
  local logs="$scratch/test-logs" times="$scratch/test-times.tsv" bundle
  bundle=$(xctest_bundle "$scratch") || { XCTEST_PASSED=0 XCTEST_FAILED=1 XCTEST_SKIPPED=0; return 1; }
  mkdir -p "$logs"
  rm -f "$logs/$name"-*.log
  local split pids=() k started=$SECONDS
  split=$(xctest_split "$shards" "$times" "$list")
  [ -n "$split" ] || { echo "$name: no tests listed"; XCTEST_PASSED=0 XCTEST_FAILED=1 XCTEST_SKIPPED=0; return 1; }
  for ((k = 1; k <= shards; k++)); do
    local chosen=() class tests=0
    while read -r class; do
      chosen+=("$class") tests=$((tests + $(grep -c "^${class//./\\.}/" "$list")))
    done < <(awk -v k="$k" '$1 == k { print $2 }' <<<"$split")
    [ "${#chosen[@]}" -gt 0 ] || continue
    echo "$name shard $k: ${#chosen[@]} classes, $tests tests (log: ${logs#"$ROOT/"}/$name-$k.log)"
    "$bundle" "$(IFS=,; echo "${chosen[*]}")" >"$logs/$name-$k.log" 2>&1 &
    pids[k]=$!
  done
  # A line a minute, so a long run is seen to be moving.
  local listed done_now report=$((SECONDS + 60)) ended=()
  listed=$(wc -l <"$list")
  while sleep 1; do
    local running=0
    for k in "${!pids[@]}"; do
      if kill -0 "${pids[k]}" 2>/dev/null; then running=1; else : "${ended[k]:=$((SECONDS - started))}"; fi
    done
    [ "$running" -eq 1 ] || break
    if [ "$SECONDS" -ge "$report" ]; then
      done_now=$(cat "$logs/$name"-*.log | grep -cE "^Test Case '.*' (passed|failed|skipped) \(" || true)
      echo "$name: $done_now of $listed tests done, $((SECONDS - started)) s"
      report=$((report + 60))
    fi
  done
  local status=0 passed=0 failed=0 skipped=0
  for k in "${!pids[@]}"; do
    local log="$logs/$name-$k.log" shard_status=0 p f s expected
    wait "${pids[k]}" || shard_status=$?
    p=$(grep -cE "^Test Case '.*' passed \(" "$log" || true)
    f=$(grep -cE "^Test Case '.*' failed \(" "$log" || true)
    s=$(grep -cE "^Test Case '.*' skipped \(" "$log" || true)
    expected=0
    while read -r class; do
      expected=$((expected + $(grep -c "^${class//./\\.}/" "$list")))
    done < <(awk -v k="$k" '$1 == k { print $2 }' <<<"$split")
    local missing=$((expected - p - f - s))
    echo "$name shard $k: $((p + s)) passed ($s skipped), $f failed, $missing not run; ${ended[k]} s"
    if [ "$f" -gt 0 ] || [ "$missing" -ne 0 ] || [ "$shard_status" -ne 0 ]; then
      status=1
      grep -E ': error: |^Test Case .* failed \(' "$log" | head -60 || true
      # What failed, again at the end of scripts/test (COLLAGE_FAILURES): a
      # long run's record may keep only its last lines.
      if [ -n "${COLLAGE_FAILURES:-}" ]; then
        { grep -E "^Test Case '.*' failed \(" "$log" | sed -E "s/^Test Case '([^']*)'.*/$name: \1 failed/" | head -20
          [ "$missing" -eq 0 ] || echo "$name shard $k: $missing tests not run"
          [ "$f" -gt 0 ] || [ "$missing" -ne 0 ] || echo "$name shard $k: exited with status $shard_status"
        } >>"$COLLAGE_FAILURES" || true
      fi
      if [ "$missing" -ne 0 ]; then
        local last
        last=$(grep -E "^Test Case '.*' started" "$log" | tail -1 | sed -E "s/^Test Case '([^']*)'.*/\1/")
        echo "$name shard $k stopped (status $shard_status) during ${last:-its start}; the end of its log:"
        tail -15 "$log"
      fi
      # A shard that failed with every test run and passed still fails the run (an error outside a test).
      if [ "$f" -eq 0 ] && [ "$missing" -eq 0 ]; then f=1; fi
      [ "$missing" -gt 0 ] && f=$((f + missing))
    fi
    passed=$((passed + p + s)) failed=$((failed + f)) skipped=$((skipped + s))
  done
  # What each class took, for the next run's split: new times replace old ones.
  local fresh
  fresh=$(xctest_times "$logs/$name"-*.log)
  if [ -n "$fresh" ]; then
    { echo "$fresh"; if [ -f "$times" ]; then cat "$times"; fi; } | awk '!seen[$1]++' | sort >"$times.new"
    mv "$times.new" "$times"
  fi
  XCTEST_PASSED=$passed XCTEST_FAILED=$failed XCTEST_SKIPPED=$skipped
  return $status
}
