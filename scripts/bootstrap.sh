#!/usr/bin/env bash
# Installs what Glint's build, tests and demo need on Debian 12. Idempotent:
# a second run installs nothing and takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config   # native build
  googletest                                          # GoogleTest sources (native + wasm)
  nlohmann-json3-dev libcli11-dev                     # header-only: JSON, CLI parsing
  zlib1g-dev                                          # gzip-compressed data files
  clang libclang-rt-14-dev                            # sanitizers' runtime, fuzzers
  clang-format                                        # make lint: the C++ style (.clang-format)
  libbenchmark-dev                                    # make bench
  libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri # gl backend: GLES 3 via EGL (Mesa llvmpipe)
  emscripten node-acorn nodejs npm                    # WebAssembly build, run in node
  dataset-fashion-mnist                               # Fashion-MNIST IDX files (gzip; read by glint::data)
  python3-torch libopenblas0-pthread                  # make bench: the PyTorch CPU peer (+ its fast BLAS)
  chromium                                            # make test-browser: headless Chromium (WebGL2 on SwiftShader)
  libvulkan1                                          # webgpu in node (npm webgpu = Dawn) on chromium's SwiftShader Vulkan
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# nodejs from another origin (e.g. NodeSource) provides npm itself.
if command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/npm/}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))

if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm packages: exactly what package-lock.json pins, from the npm registry.
stamp=node_modules/.glint-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "bootstrap: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
