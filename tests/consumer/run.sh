#!/bin/sh
# Glint as a C++ project uses it (make test-install; docs/CPP.md):
#  0. the programs README.md and docs/CPP.md show are examples/*.cpp verbatim;
#  1. installed (static) into a temporary prefix; a CMake project finds it with
#     find_package(Glint) and builds docs/CPP.md's three examples; they run;
#  2. the same examples linked through pkg-config;
#  3. a CPU-only program needs neither libEGL nor libGLESv2 (ldd), and runs
#     with gl reported unavailable when they cannot be loaded;
#  4. libglint.so (BUILD_SHARED_LIBS): only namespace glint exported; the
#     consumer built against it and run;
#  5. add_subdirectory(glint) from another project: only the library comes,
#     and a consumer's compile line reaches include/ but not src/.
# Usage: tests/consumer/run.sh [release build dir, default build/release]
set -eu
root=$(pwd)
release=${1:-build/release}
out=$root/build/consumer
rm -rf "$out"
mkdir -p "$out"
export NODE_PATH=/usr/share/nodejs

step() { printf '[consumer] %s\n' "$*"; }
fail() { printf '[consumer] FAILED: %s\n' "$*" >&2; exit 1; }

# Each example must run and print what shows it worked.
run_examples() {
  dir=$1
  "$dir/quickstart" | grep -q '\[' || fail "$dir/quickstart printed no tensor"
  "$dir/sequential_quickstart" | grep -q 'final loss' || fail "$dir/sequential_quickstart"
  "$dir/save_load_threads" > "$out/threads.txt" || fail "$dir/save_load_threads exited $?"
  grep -q 'validation accuracy' "$out/threads.txt" || fail "save_load_threads: no accuracy"
  # glint::Error caught by type in the program (across libglint.so too).
  grep -q "no series 'val_acuracy'; known: .*val_acc" "$out/threads.txt" ||
    fail "save_load_threads: the typo's error was not caught: $(cat "$out/threads.txt")"
  [ "$(grep -c '^thread ' "$out/threads.txt")" = 4 ] || fail "save_load_threads: not 4 threads"
  # Four threads, one model: the same numbers.
  [ "$(grep '^thread ' "$out/threads.txt" | cut -d: -f2 | sort -u | wc -l)" = 1 ] ||
    fail "save_load_threads: threads disagree: $(cat "$out/threads.txt")"
}

step "0. README.md and docs/CPP.md quote examples/*.cpp as they are"
python3 scripts/embed_examples.py --check || fail "run scripts/embed_examples.py"

step "1. cmake --install $release, find_package(Glint)"
cmake --install "$release" --prefix "$out/static" > /dev/null
[ -f "$out/static/lib/cmake/Glint/GlintConfig.cmake" ] || fail "no GlintConfig.cmake installed"
[ -f "$out/static/include/glint/glint.h" ] || fail "no headers installed"
[ ! -e "$out/static/include/src" ] || fail "internal headers installed"
cmake -S tests/consumer -B "$out/cmake-static" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$out/static" -DGLINT_EXAMPLES_DIR="$root/examples" > /dev/null
cmake --build "$out/cmake-static" > /dev/null
run_examples "$out/cmake-static"

step "2. pkg-config"
export PKG_CONFIG_PATH="$out/static/lib/pkgconfig"
pkg-config --exists glint || fail "pkg-config does not find glint.pc"
[ "$(pkg-config --modversion glint)" = "$(sed -n 's/^project(glint VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" ] ||
  fail "glint.pc's version differs from CMakeLists.txt's"
mkdir -p "$out/pc"
for e in quickstart sequential_quickstart save_load_threads; do
  # shellcheck disable=SC2046
  g++ -std=c++20 -O1 "examples/$e.cpp" -o "$out/pc/$e" $(pkg-config --cflags --libs --static glint)
done
run_examples "$out/pc"

step "3. no EGL/GLES needed by a CPU-only program"
if ldd "$out/pc/save_load_threads" | grep -Eq 'libEGL|libGLESv2'; then
  fail "save_load_threads links EGL/GLES: $(ldd "$out/pc/save_load_threads" | grep -E 'EGL|GLES')"
fi
GLINT_EGL_LIBRARY=/nonexistent/libEGL.so.1 "$out/pc/save_load_threads" > "$out/nogl.txt"
grep -E '^gl ' "$out/nogl.txt" | grep -q 'nonexistent' ||
  fail "gl not reported unavailable naming the missing library: $(grep -E '^gl ' "$out/nogl.txt")"

step "4. BUILD_SHARED_LIBS=ON: libglint.so"
cmake -S . -B build/shared -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DGLINT_BUILD_TESTS=OFF -DGLINT_BUILD_TOOLS=OFF > /dev/null
cmake --build build/shared --target glint > /dev/null
cmake --install build/shared --prefix "$out/shared" > /dev/null
so=$(ls "$out"/shared/lib/libglint.so.*.* | head -n 1)
[ -f "$so" ] || fail "no libglint.so installed"
nm -D --defined-only "$so" | awk '{print $3}' | c++filt > "$out/exports.txt"
others=$(grep -v 'glint::' "$out/exports.txt" | grep -Ev '^(_init|_fini)$' || true)
[ -z "$others" ] || fail "libglint.so exports symbols outside namespace glint: $(echo "$others" | head -n 5)"
[ "$(wc -l < "$out/exports.txt")" -gt 100 ] || fail "libglint.so exports almost nothing"
for sym in 'typeinfo for glint::Error' 'vtable for glint::Layer' 'glint::matMul('; do
  grep -q "^$sym" "$out/exports.txt" || fail "libglint.so does not export $sym"
done
cmake -S tests/consumer -B "$out/cmake-shared" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$out/shared" -DGLINT_EXAMPLES_DIR="$root/examples" > /dev/null
cmake --build "$out/cmake-shared" > /dev/null
ldd "$out/cmake-shared/save_load_threads" | grep -q "$out/shared/lib/libglint.so" ||
  fail "the shared consumer does not use libglint.so"
run_examples "$out/cmake-shared"

step "5. add_subdirectory(glint)"
cmake -S tests/consumer/subdir -B "$out/subdir" -G Ninja -DGLINT_SOURCE_DIR="$root" > /dev/null
command=$(cd "$out/subdir" && ninja -t commands app | grep -- ' -c .*quickstart.cpp' | tail -n 1)
echo "$command" | grep -q -- "-I$root/include" || fail "the consumer's compile line lacks include/: $command"
if echo "$command" | grep -Eq -- "-I$root( |$)"; then
  fail "the consumer's compile line reaches the repository root (src/): $command"
fi
(cd "$out/subdir" && ninja "CMakeFiles/app.dir$root/examples/quickstart.cpp.o" > /dev/null 2>&1) ||
  (cd "$out/subdir" && ninja $(ninja -t targets all | grep -o '^CMakeFiles/app.dir/[^:]*quickstart.cpp.o') > /dev/null) ||
  fail "the consumer's own source does not compile against add_subdirectory(glint)"
step "all passed"
