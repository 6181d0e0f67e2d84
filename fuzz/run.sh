#!/usr/bin/env bash
# Runs libFuzzer targets for a set time each: fuzz/run.sh SECONDS TARGET...
# New inputs go to build/fuzz/corpus/<target> (the committed seeds in
# fuzz/corpus/<target> are read, never written); crashes to build/fuzz/crashes.
# Each run's executions are added to build/fuzz/executions.tsv, and the totals
# across runs are printed (docs/RELIABILITY.md records them). The targets run
# side by side, FUZZ_JOBS at a time (default: the cores, at most 4): each still
# gets SECONDS of its own, on a core of its own.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
seconds=$1
shift
log=build/fuzz/executions.tsv
jobs=${FUZZ_JOBS:-$(nproc)}
((jobs > 4)) && jobs=4
mkdir -p build/fuzz/crashes build/fuzz/logs

run_one() {
  local t=$1
  mkdir -p "build/fuzz/corpus/$t"
  GLINT_GL=0 ASAN_OPTIONS=abort_on_error=1 ./build/fuzz/fuzz_"$t" \
    "build/fuzz/corpus/$t" "fuzz/corpus/$t" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/crashes/$t-" >"build/fuzz/logs/$t.log" 2>&1
  echo $? >"build/fuzz/logs/$t.rc"
}

running=0
for t in "$@"; do
  if ((running >= jobs)); then
    wait -n
    ((running--))
  fi
  run_one "$t" &
  ((running++))
done
wait

# Reported in the order given, after all have run.
status=0
for t in "$@"; do
  out=$(cat "build/fuzz/logs/$t.log")
  rc=$(cat "build/fuzz/logs/$t.rc" 2>/dev/null || echo 1)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' <<<"$out" | grep -o '[0-9]*$')
  corpus=$(ls "build/fuzz/corpus/$t" | wc -l)
  if [ "$rc" -ne 0 ]; then
    echo "$out" | grep -v '^#[0-9]' | tail -60
    echo "fuzz_$t: FAILED (rc $rc); the input is in build/fuzz/crashes/"
    status=1
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$seconds" "${execs:-0}" "$rc" >>"$log"
  total=$(awk -v t="$t" '$2 == t { s += $4 } END { print s + 0 }' "$log")
  printf 'fuzz_%-11s %4ss: %9s executions (%s across all runs), corpus %s inputs (+%s seeds)\n' \
    "$t" "$seconds" "${execs:-0}" "$total" "$corpus" "$(ls "fuzz/corpus/$t" | wc -l)"
done
exit $status
