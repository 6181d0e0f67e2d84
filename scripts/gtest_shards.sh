#!/usr/bin/env bash
# Runs a googletest binary as N shards side by side (GTEST_TOTAL_SHARDS and
# GTEST_SHARD_INDEX, googletest's own sharding): most of Glint's tests are
# one thread each, so on CI's 2 cores a suite takes about half the time.
#   scripts/gtest_shards.sh COMMAND [ARGS...]
# N is $GTEST_SHARDS, else the number of cores (at most 4). Each shard's
# output is kept apart and printed when all have ended, then one line with the
# tests every shard ran; the exit status is the first failing shard's.
# A WebAssembly binary in node sees the variables through
# tests/wasm_node_env.js (linked as its --pre-js).
set -uo pipefail
if [[ $# == 0 ]]; then
  echo "usage: scripts/gtest_shards.sh COMMAND [ARGS...]" >&2
  exit 2
fi
shards=${GTEST_SHARDS:-$(nproc 2>/dev/null || echo 2)}
((shards > 4)) && shards=4
((shards < 1)) && shards=1
logs=$(mktemp -d "${TMPDIR:-/tmp}/glint-shards.XXXXXX")
trap 'rm -rf "$logs"' EXIT
pids=()
for ((i = 0; i < shards; ++i)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$@" >"$logs/$i" 2>&1 &
  pids+=($!)
done
status=0 ran=0 summary=()
for ((i = 0; i < shards; ++i)); do
  wait "${pids[i]}"
  rc=$?
  ((shards > 1)) && echo "--- shard $((i + 1))/$shards (exit $rc)"
  cat "$logs/$i"
  # "[==========] 1512 tests from 240 test suites ran. (81 ms total)"
  n=$(sed -n 's/^\[==========\] \([0-9]*\) tests\? from .* ran\..*/\1/p' "$logs/$i" | tail -n1)
  ran=$((ran + ${n:-0}))
  summary+=("${n:-?}")
  ((rc != 0 && status == 0)) && status=$rc
  # A shard that printed no summary ended early (a crash, an abort): a failure
  # even where its exit status says otherwise.
  [[ -z $n && $status == 0 ]] && status=1
done
if ((shards > 1)); then
  echo "gtest_shards: $ran tests in $shards shards (${summary[*]}): $*"
fi
exit "$status"
