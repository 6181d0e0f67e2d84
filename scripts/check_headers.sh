#!/usr/bin/env bash
# Every public header compiles alone, in C++17 and C++20, warning-free:
# one translation unit per header (included twice, so a missing include
# guard shows), -Wall -Wextra -Werror -fsyntax-only, two at a time. Then
# prints how long a file that includes glint/glint.h takes to compile, the
# cost every user file pays (GLINT_GLINT_H_BUDGET_S=<seconds> makes a slower
# one a failure).
#   scripts/check_headers.sh            CXX=clang++ scripts/check_headers.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cxx=${CXX:-g++}
jobs=${JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

headers=()
for h in "$root"/include/glint/*.h; do headers+=("$(basename "$h")"); done
for h in "${headers[@]}"; do
  printf '#include "glint/%s"\n#include "glint/%s"\n' "$h" "$h" >"$work/${h%.h}.cpp"
done

# One job per header and standard; a failure leaves its compiler output in .fail.
compile() {  # $1 = header stem, $2 = standard
  "$cxx" -std="$2" -Wall -Wextra -Werror -fsyntax-only -I "$root/include" \
    "$work/$1.cpp" >"$work/$1.$2.log" 2>&1 || mv "$work/$1.$2.log" "$work/$1.$2.fail"
}
export -f compile
export cxx root work
for h in "${headers[@]}"; do
  for std in c++17 c++20; do printf '%s %s\n' "${h%.h}" "$std"; done
done | xargs -P "$jobs" -n 2 bash -c 'compile "$0" "$1"'

failures=0
for f in "$work"/*.fail; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .fail)  # <stem>.<standard>
  echo "FAIL glint/${name%.*}.h (-std=${name##*.}):"
  sed 's/^/  /' "$f"
  failures=$((failures + 1))
done
if [ "$failures" -ne 0 ]; then
  echo "check_headers: $failures of $((${#headers[@]} * 2)) header compiles failed" >&2
  exit 1
fi
echo "check_headers: ${#headers[@]} headers compile alone with -std=c++17 and -std=c++20"

# The cost of glint/glint.h (best of three: the machine may be busy).
printf '#include "glint/glint.h"\nint main() {}\n' >"$work/user.cpp"
best=
for _ in 1 2 3; do
  start=$(date +%s.%N)
  "$cxx" -std=c++20 -fsyntax-only -I "$root/include" "$work/user.cpp"
  best=$(awk -v a="$start" -v b="$(date +%s.%N)" -v m="$best" \
    'BEGIN { s = b - a; print (m == "" || s < m) ? s : m }')
done
printf 'check_headers: glint/glint.h compiles in %.2fs (-std=c++20 -fsyntax-only, best of 3)\n' \
  "$best"
if [ -n "${GLINT_GLINT_H_BUDGET_S:-}" ] &&
    awk -v s="$best" -v b="$GLINT_GLINT_H_BUDGET_S" 'BEGIN { exit !(s > b) }'; then
  echo "check_headers: over the budget of ${GLINT_GLINT_H_BUDGET_S}s" >&2
  exit 1
fi
