#!/usr/bin/env bash
# make test's driver: runs each make target named on the command line in
# order, stops at the first that fails, and prints how long each took (also
# written to build/test-times.tsv) so that what dominates `make test` is seen
# on every run, CI's included. A target named A+B runs A and B side by side
# (make -j2 A B --output-sync): for a build next to a suite that leaves a core
# idle. The table's second column is how busy the machine's cores were during
# the target (user + system time of all cores over wall time of all cores, from
# /proc/stat): a suite well under 100% leaves a core for another one.
set -uo pipefail
make_cmd=${MAKE:-make}
times=build/test-times.tsv
mkdir -p build
: >"$times"
start_all=$(date +%s)
status=0
# Busy and total jiffies of all cores so far (0 0 where /proc/stat is absent).
cpu_ticks() {
  local _cpu user nice system idle iowait irq softirq _rest
  if read -r _cpu user nice system idle iowait irq softirq _rest </proc/stat 2>/dev/null; then
    echo $((user + nice + system + irq + softirq)) $((user + nice + system + idle + iowait + irq + softirq))
  else
    echo 0 0
  fi
}
for entry in "$@"; do
  started=$(date +%s)
  read -r busy0 total0 < <(cpu_ticks)
  if [[ $entry == *+* ]]; then
    # shellcheck disable=SC2086 # the targets are words
    $make_cmd --no-print-directory -j2 --output-sync=target ${entry//+/ }
  else
    $make_cmd --no-print-directory "$entry"
  fi
  status=$?
  read -r busy1 total1 < <(cpu_ticks)
  busy=$(((busy1 - busy0) * 100 / (total1 - total0 > 0 ? total1 - total0 : 1)))
  printf '%s\t%d\t%d%%\n' "$entry" $(($(date +%s) - started)) "$busy" >>"$times"
  [[ $status == 0 ]] || break
done
total=$(($(date +%s) - start_all))
echo
echo "make test: seconds per target and how busy the cores were ($times)"
sort -t$'\t' -k2,2nr "$times" | awk -F'\t' '{ printf "  %6d  %4s  %s\n", $2, $3, $1 }'
printf '  %6d  total\n' "$total"
if [[ $status != 0 ]]; then
  echo "make test: stopped at $(tail -n1 "$times" | cut -f1) (exit $status)"
  exit "$status"
fi
echo "make test: all suites passed"
