#!/usr/bin/env bash
# make test's driver: runs each make target named on the command line in
# order, stops at the first that fails, and prints how long each took (also
# written to build/test-times.tsv) so that what dominates `make test` is seen
# on every run, CI's included. A target named A+B runs A and B side by side
# (make -j2 A B --output-sync): for a build next to a suite that leaves a core
# idle.
set -uo pipefail
make_cmd=${MAKE:-make}
times=build/test-times.tsv
mkdir -p build
: >"$times"
start_all=$(date +%s)
status=0
for entry in "$@"; do
  started=$(date +%s)
  if [[ $entry == *+* ]]; then
    # shellcheck disable=SC2086 # the targets are words
    $make_cmd --no-print-directory -j2 --output-sync=target ${entry//+/ }
  else
    $make_cmd --no-print-directory "$entry"
  fi
  status=$?
  printf '%s\t%d\n' "$entry" $(($(date +%s) - started)) >>"$times"
  [[ $status == 0 ]] || break
done
total=$(($(date +%s) - start_all))
echo
echo "make test: seconds per target ($times)"
sort -t$'\t' -k2,2nr "$times" | awk -F'\t' '{ printf "  %6d  %s\n", $2, $1 }'
printf '  %6d  total\n' "$total"
if [[ $status != 0 ]]; then
  echo "make test: stopped at $(tail -n1 "$times" | cut -f1) (exit $status)"
  exit "$status"
fi
echo "make test: all suites passed"
