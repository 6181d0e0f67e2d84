#!/usr/bin/env bash
# Runs libFuzzer targets in fork mode on a many-core machine (the device
# machine), to add executions towards issue 9's 10 million per target.
#   tools/device/fuzz_run.sh SECONDS TARGET:JOBS [TARGET:JOBS ...]
# Binaries come from .dev/fuzz_<target>[.gz] (built here by `make fuzz-build`, carried);
# seeds from fuzz/corpus/<target>. Writes each target's log and the final
# execution count into $OUT (or build/device).
set -uo pipefail
out=${OUT:-build/device}
mkdir -p "$out"
seconds=$1
shift
pids=()
for spec in "$@"; do
  t=${spec%%:*}
  jobs=${spec##*:}
  mkdir -p "/tmp/corpus/$t" "/tmp/crashes"
  [ -f ".dev/fuzz_$t.gz" ] && gunzip -f ".dev/fuzz_$t.gz"
  chmod +x ".dev/fuzz_$t"
  ( GLINT_GL=0 ASAN_OPTIONS=abort_on_error=1 ".dev/fuzz_$t" "/tmp/corpus/$t" "fuzz/corpus/$t" \
      -fork="$jobs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="/tmp/crashes/$t-" >"$out/fuzz_$t.log" 2>&1
    echo "rc=$?" >>"$out/fuzz_$t.log" ) &
  pids+=($!)
done
wait "${pids[@]}"
for spec in "$@"; do
  t=${spec%%:*}
  # Fork mode's status lines: "#<total executions>: cov: ... time: <s>s job: ..."
  last=$(grep -E '^#[0-9]+:' "$out/fuzz_$t.log" | tail -1)
  echo "fuzz_$t: ${last:-no status line} $(tail -1 "$out/fuzz_$t.log")"
done
ls /tmp/crashes
tar czf "$out/crashes.tgz" -C /tmp crashes 2>/dev/null
