#!/usr/bin/env bash
# The project's style checks (make lint; make test runs them as test-style):
#   C++  — clang-format (Debian's 14, .clang-format) on every tracked .cpp/.h:
#          a file it would change fails, with the first lines of the diff;
#   JS   — ESLint (eslint.config.mjs) on every JavaScript file;
#   the include graph against the declared layers (scripts/check_layers.mjs);
#   commit subjects under 72 characters, for commits since the rule came in.
# --fix: apply clang-format and ESLint's fixes instead (make format).
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
[ "${1:-}" = "--fix" ] && fix=1
mapfile -t cpp < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp')

if [ $fix -eq 1 ]; then
  clang-format -i "${cpp[@]}"
  npx --no-install eslint --fix .
  exit 0
fi

# Files in batches, as many batches at a time as there are cores.
# shellcheck disable=SC2016 # the inner script's $f is its own
mapfile -t bad < <(printf '%s\0' "${cpp[@]}" |
  xargs -0 -n 16 -P "$(nproc)" sh -c \
    'for f; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' sh | sort)
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_style: ${#bad[@]} C++ file(s) not in .clang-format's style (make format fixes them):"
  for f in "${bad[@]}"; do
    echo "  $f"
    clang-format "$f" | diff "$f" - | head -8 | sed 's/^/    /'
  done
  exit 1
fi
echo "check_style: ${#cpp[@]} C++ files formatted"
npx --no-install eslint --max-warnings 0 .
echo "check_style: ESLint clean"
node scripts/check_layers.mjs

# af19e3f brought these checks in; older subjects stay as they were.
if git rev-parse -q --verify af19e3f^{commit} >/dev/null; then
  long=$(git log --format='%h %s' af19e3f^..HEAD |
         node -e 'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => {
           for (const l of s.split("\n").filter(Boolean)) {
             const subject = l.slice(l.indexOf(" ") + 1);
             if ([...subject].length > 72) console.log(`  ${l} (${[...subject].length})`);
           }})')
  if [ -n "$long" ]; then
    echo "check_style: commit subjects over 72 characters (figures belong in the body):"
    echo "$long"
    exit 1
  fi
  echo "check_style: commit subjects under 72 characters"
fi
