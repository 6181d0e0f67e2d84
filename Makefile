# The user's words. Each target sets up what it needs (scripts/bootstrap.sh).
# (fuzz-kernels, test-kernel-fuzz: the differential kernel fuzzer)
.PHONY: check lint format test-style web-apps install test-install test-headers test-tsan fuzz-kernels test-kernel-fuzz check-kernels-tfjs test-kernels-tfjs all bootstrap build demo web web-st test-web test-browser-web test test-native test-asan test-wasm test-wasm-mt test-browser test-browser-full test-cli test-interop test-models bench bench-browser bench-size clean fuzz fuzz-short fuzz-build soak

JOBS ?= $(shell nproc)
export NODE_PATH := /usr/share/nodejs
NODE := node --no-experimental-fetch
# A googletest binary as one shard per core, side by side (scripts/gtest_shards.sh).
SHARDS := scripts/gtest_shards.sh

all: build

bootstrap:
	@./scripts/bootstrap.sh

build/release/build.ninja: | bootstrap
	cmake --preset release >/dev/null
build/asan/build.ninja: | bootstrap
	cmake --preset asan >/dev/null
build/tsan/build.ninja: | bootstrap
	cmake --preset tsan >/dev/null
build/wasm/build.ninja: | bootstrap
	cmake --preset wasm >/dev/null

build: bootstrap build/release/build.ninja
	cmake --build --preset release -j $(JOBS)

## demo: train the standard mlp on the bundled MNIST digits (8,000 to train
## on, 2,000 held out) to at least 92% held-out accuracy, and save it; then what
## the digits app (web/apps/digits) ships: the standard cnn trained the same way
## (at least 95%) and the digits packed as bytes.
demo: build
	./build/release/glint train --model mlp --data mnist --epochs 5 --verbose 2 \
	  --out build/models/mlp --expect-accuracy 0.92
	./build/release/glint train --model cnn --data mnist --epochs 20 --verbose 2 \
	  --out web/apps/digits/model --expect-accuracy 0.95
	node scripts/digits_data.mjs web/apps/digits/data

## test: every test, natively (Release and ASan+UBSan) and in WebAssembly (node, headless Chromium).
## Each suite after what it needs built (so the table scripts/run_suites.sh prints
## separates building from testing).
# A+B: A and B side by side (scripts/run_suites.sh), for suites that leave a
# core idle (test-interop 57% and test-models 55% busy: 46 s in turn, 25 s so).
TEST_SUITES := bootstrap test-style build test-native test-cli web-st test-interop+test-models \
  test-headers test-install test-tsan test-asan test-kernel-fuzz test-kernels-tfjs test-wasm \
  test-wasm-mt test-web test-programs test-browser web test-browser-web test-bundlers web-apps test-doctor \
  test-digits test-sequence test-a11y fuzz-short
test:
	+@MAKE="$(MAKE)" scripts/run_suites.sh $(TEST_SUITES)

## check: the fast loop for contributors (under 3 minutes on 2 cores after a
## change): the style checks, an incremental native build of the unit tests,
## and those tests on cpu, reference and gl (EGL; skipped where it is absent).
## make test runs everything else: wasm, browsers, sanitizers, interop, apps.
check: bootstrap build/release/build.ninja
	scripts/check_style.sh
	cmake --build --preset release -j $(JOBS) --target glint_tests
	$(SHARDS) ./build/release/glint_tests --gtest_brief=1 --gtest_filter=-IoInterop.*:GraphInterop.*:GraphModels.*

## lint: the style checks — clang-format on the C++ (.clang-format), ESLint
## on the JavaScript (eslint.config.mjs), the include graph against the
## declared layers (scripts/check_layers.mjs); format: apply the first two.
lint: bootstrap
	scripts/check_style.sh
format: bootstrap
	scripts/check_style.sh --fix
test-style: lint

## install: the library, headers, CMake package (find_package(Glint)) and
## glint.pc under PREFIX (docs/CPP.md).
PREFIX ?= /usr/local
install: build
	cmake --install build/release --prefix $(PREFIX)

## test-install: Glint as a C++ project uses it: installed and found with
## find_package and pkg-config, static and shared, without EGL/GLES, and
## through add_subdirectory (tests/consumer/run.sh).
test-install: build
	tests/consumer/run.sh build/release

## test-headers: each public header compiles alone (C++17 and C++20, -Werror).
test-headers: bootstrap
	scripts/check_headers.sh

## test-tsan: the threading tests under ThreadSanitizer.
test-tsan: bootstrap build/tsan/build.ninja
	cmake --build --preset tsan -j $(JOBS) --target glint_threads_tests
	GLINT_GL=0 TSAN_OPTIONS=halt_on_error=1 ./build/tsan/glint_threads_tests --gtest_brief=1

test-native: build
	$(SHARDS) ./build/release/glint_tests --gtest_brief=1 --gtest_filter=-IoInterop.*:GraphInterop.*:GraphModels.*

test-cli: build
	./build/release/glint doctor --seconds 0.2 >/dev/null
	./build/release/glint kernels >/dev/null
	./build/release/glint kernels --json | $(NODE) scripts/check_kernel_table.mjs

## test-interop: TF.js 4.22 (node, cpu backend) and Glint load each other's saved models;
## glint-ml's fit and fitDataset (node) end with the weights native fit reaches.
test-interop: build web-st
	rm -rf build/interop
	$(NODE) tests/interop/glint_fit.mjs build/interop/fit
	$(NODE) tests/interop/tfjs_save.mjs build/interop/tfjs
	$(NODE) tests/interop/tfjs_layers.mjs build/interop/layers
	$(NODE) tests/interop/graph_models.mjs build/interop/graph
	$(NODE) tests/interop/graph_models_more.mjs build/interop/graph
	$(NODE) tests/interop/graph_models_sparse.mjs build/interop/graph
	$(NODE) tests/interop/tfjs_layer_classes.mjs build/interop/tfjs_layer_classes.json
	$(NODE) tests/interop/tfjs_graph_ops.mjs build/interop/tfjs_graph_ops.json
	GLINT_INTEROP_DIR=build/interop ./build/release/glint_tests --gtest_filter='IoInterop.*:GraphInterop.*' --gtest_brief=1
	$(NODE) tests/interop/tfjs_check.mjs build/interop/glint
	$(NODE) tests/interop/tfjs_check.mjs build/interop/layers_back

## test-models: the graph models published in @vladmandic/human (blazeface,
## movenet, facemesh, ...) run by TF.js 4.22 and by Glint on one seeded input.
test-models: build
	rm -rf build/models
	$(NODE) tests/interop/human_models.mjs build/models
	GLINT_MODELS_DIR=build/models ./build/release/glint_tests --gtest_filter='GraphModels.*' --gtest_brief=1

test-asan: bootstrap build/asan/build.ninja
	cmake --build --preset asan -j $(JOBS) --target glint_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:print_legend=0 UBSAN_OPTIONS=print_stacktrace=1 GLINT_GL=0 \
	  $(SHARDS) ./build/asan/glint_tests --gtest_brief=1 --gtest_filter=-IoInterop.*:GraphInterop.*:GraphModels.*:Gl*
	@# The narrower cpu kernels (AVX2, and the SSE2/SIMD128 baseline) that users'
	@# older CPUs run, on a machine whose widest set would otherwise hide them.
	for isa in avx2 generic; do \
	  GLINT_CPU_ISA=$$isa ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:print_legend=0 UBSAN_OPTIONS=print_stacktrace=1 GLINT_GL=0 \
	    $(SHARDS) ./build/asan/glint_tests --gtest_brief=1 --gtest_filter='*OpTest*:Layer*:Rnn*:Recurrent*:Conv*:Gemm*:Cpu*' || exit 1; \
	done
	@# LeakSanitizer's tracer crashes on Mesa llvmpipe's threads: the gl backend
	@# (its own tests and the op table on it) runs under ASan+UBSan without it.
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:print_legend=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(SHARDS) ./build/asan/glint_tests --gtest_brief=1 --gtest_filter='Gl*:*OpTest*'

test-wasm: bootstrap build/wasm/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_tests glint_kernel_fuzz
	cd build/wasm && ../../$(SHARDS) $(NODE) glint_tests.js --gtest_brief=1 --gtest_filter=-IoInterop.*:GraphInterop.*:GraphModels.*
	@# The kernel fuzzer's cpu backend as WebAssembly SIMD compiles it (cpu vs reference):
	@# two seeds side by side for 15 s each (one thread each), each log printed whole.
	log=$$(mktemp -d); \
	(cd build/wasm && $(NODE) glint_kernel_fuzz.js --seconds 15 --seed 4 >$$log/4 2>&1) & other=$$!; \
	(cd build/wasm && $(NODE) glint_kernel_fuzz.js --regressions ../../tests/kernel_fuzz/regressions.txt \
	  --seconds 15 --seed 3); first=$$?; wait $$other; second=$$?; cat $$log/4; rm -rf $$log; \
	test $$first = 0 -a $$second = 0

## test-wasm-mt: the same suite in the pthreads build (thread pool in wasm workers).
test-wasm-mt: bootstrap build/wasm-mt/build.ninja
	cmake --build --preset wasm-mt -j $(JOBS) --target glint_tests
	cd build/wasm-mt && ../../$(SHARDS) $(NODE) glint_tests.js --gtest_brief=1 --gtest_filter=-IoInterop.*:GraphInterop.*:GraphModels.*

build/wasm-mt/build.ninja: | bootstrap
	cmake --preset wasm-mt >/dev/null

## test-browser: the wasm test binary in Debian's headless Chromium (playwright-core,
## tools/serve.mjs with COOP/COEP): once with the gl backend on WebGL2 (SwiftShader;
## the op table runs on gl too; two shards side by side), the webgpu backend's own
## tests on WebGPU (SwiftShader; test-browser-full: the op table too), once as node
## runs it (GLINT_GL=0).
test-browser: bootstrap build/wasm/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_tests_web
	node tests/browser/run.mjs  # not $(NODE): playwright-core needs fetch

## bench-browser: Glint's gl backend vs TF.js 4.22 webgl in one headless Chromium run
## (WebGL2 on SwiftShader): train steps/s, predict and first-predict latency ratios,
## written to build/bench/browser-results.json; then Glint's webgpu vs TF.js webgpu
## and vs Glint gl (WebGPU on SwiftShader): build/bench/browser-webgpu-results.json;
## then Glint's four WebAssembly builds vs TF.js wasm with its threads:
## build/bench/browser-wasm-results.json.
bench-browser: bootstrap build/wasm/build.ninja build/wasm-mt/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_models_bench_web glint_models_bench_web_relaxed
	cmake --build --preset wasm-mt -j $(JOBS) --target glint_models_bench_web glint_models_bench_web_relaxed
	node bench/browser/run.mjs --rounds 3
	node bench/browser/run.mjs --suite webgpu
	node bench/browser/run.mjs --suite wasm --rounds 3

## bench-size: what a page downloads (raw, gzip, brotli) for glint-ml and TF.js 4.22
## side by side, and the digits app's start-up in headless Chromium, first and
## second visit, desktop and phone-throttled (docs/PERFORMANCE.md, "Download size").
bench-size: web
	node bench/size.mjs --startup --rounds 3 --json build/bench/size-results.json

## fuzz: each libFuzzer target (fuzz/) for FUZZ_SECONDS (default 60), built
## with clang + ASan + UBSan in build/fuzz; executions add up in
## build/fuzz/executions.tsv. fuzz-short: 15 s each (part of make test).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := model_json weights dequantize idx csv
build/fuzz/build.ninja: | bootstrap
	cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DGLINT_FUZZ=ON -DGLINT_BUILD_TESTS=OFF -DGLINT_BUILD_TOOLS=OFF >/dev/null
fuzz-build: build/fuzz/build.ninja
	cmake --build build/fuzz -j $(JOBS) --target $(FUZZ_TARGETS:%=fuzz_%)
fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-short: fuzz-build
	fuzz/run.sh 15 $(FUZZ_TARGETS)

## fuzz-kernels: the differential kernel fuzzer (tests/kernel_fuzz): random
## calls of every generator's kernels on every backend against reference
## (forward and gradients), for FUZZ_SECONDS (default 60) after replaying the
## regressions; prints cases per family, tags and kernels reached. A seed:
## FUZZ_SEED=N.
fuzz-kernels: build
	./build/release/glint_kernel_fuzz --regressions tests/kernel_fuzz/regressions.txt \
	  --seconds $(FUZZ_SECONDS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))
## fuzz-kernels-webgpu: the same fuzzer on webgpu in node through Dawn
## (tests/kernel_fuzz_async), SwiftShader's Vulkan driver unless
## VK_DRIVER_FILES names another: FUZZ_SECONDS with the kernel forms the
## adapter gets, then FUZZ_SECONDS with the GPU forms forced.
.PHONY: fuzz-kernels-webgpu
WEBGPU_FUZZ_LAST = build/webgpu_fuzz_last_case.txt
fuzz-kernels-webgpu: bootstrap build/wasm/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_kernel_fuzz_async
	for forms in '' --force-gpu; do \
	  node tests/kernel_fuzz_async/run.mjs --regressions tests/kernel_fuzz/regressions.txt $$forms \
	    --seconds $(FUZZ_SECONDS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) --last-case $(WEBGPU_FUZZ_LAST) || { \
	  if [ -f $(WEBGPU_FUZZ_LAST) ]; then echo "the process died during this call:"; cat $(WEBGPU_FUZZ_LAST); fi; exit 1; }; \
	done
## test-kernel-fuzz (part of make test): the regressions, then fixed seeds for
## a fixed budget: cpu and gl natively (60 s), cpu under ASan+UBSan (45 s).
test-kernel-fuzz: build build/asan/build.ninja
	cmake --build --preset asan -j $(JOBS) --target glint_kernel_fuzz
	@# The two time-boxed runs side by side (one thread each); the log of each is printed whole.
	log=$$(mktemp -d); \
	./build/release/glint_kernel_fuzz --regressions tests/kernel_fuzz/regressions.txt --seconds 60 --seed 1 \
	  >$$log/release 2>&1 & release=$$!; \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:print_legend=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GLINT_GL=0 \
	  ./build/asan/glint_kernel_fuzz --regressions tests/kernel_fuzz/regressions.txt --seconds 45 --seed 2 \
	  >$$log/asan 2>&1; asan=$$?; wait $$release; release=$$?; \
	cat $$log/release $$log/asan; rm -rf $$log; test $$release = 0 -a $$asan = 0

## check-kernels-tfjs: reference itself against independent implementations
## on the fuzzer's random calls (docs/TESTING.md): FUZZ_CASES calls (default
## 3000) of every generator, seed FUZZ_SEED (default 1), emitted with
## reference's results, run on TF.js 4.22 (cpu backend) for every op it has,
## then on PyTorch (CPU) for those TF.js lacks or differs on by design.
FUZZ_CASES ?= 3000
KERNEL_CALLS := build/kernel_calls
check-kernels-tfjs: build
	mkdir -p $(KERNEL_CALLS)
	GLINT_GL=0 ./build/release/glint_kernel_fuzz --emit $(KERNEL_CALLS)/calls.jsonl \
	  --cases $(FUZZ_CASES) --seed $(or $(FUZZ_SEED),1)
	$(NODE) tests/kernel_fuzz/check_tfjs.mjs $(KERNEL_CALLS)/calls.jsonl --defer $(KERNEL_CALLS)/deferred.jsonl; \
	  tfjs=$$?; /usr/bin/python3 tests/kernel_fuzz/check_torch.py $(KERNEL_CALLS)/calls.jsonl \
	  --defer $(KERNEL_CALLS)/deferred.jsonl; torch=$$?; test $$tfjs = 0 -a $$torch = 0
## test-kernels-tfjs (for make test): the same on 600 calls, seed 1 (~15 s).
test-kernels-tfjs:
	$(MAKE) check-kernels-tfjs FUZZ_CASES=600 FUZZ_SEED=1

## soak: the mlp trains 20,000 steps on cpu and gl (2,000 on the scalar
## reference backend) with memory() and the resident set flat; prints figures.
soak: build test-browser-full
	GLINT_SOAK_STEPS=20000 ./build/release/glint_tests --gtest_filter='Soak.*'

## test-browser-full: test-browser with the whole suite on the webgpu page too
## (the op table on Chromium's WebGPU; make test runs it in node through Dawn).
test-browser-full: bootstrap build/wasm/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_tests_web
	node tests/browser/run.mjs --full  # not $(NODE): playwright-core needs fetch

## bench: kernel micro-benchmarks (each backend as a ratio to reference), GEMM
## against the measured peak (native, wasm, wasm with threads), then the
## standard models against PyTorch and TF.js in one run (build/bench/results.json).
bench: build build/wasm/build.ninja build/wasm-mt/build.ninja
	./build/release/glint_bench
	./build/release/glint_gemm_bench --benchmark_filter='mlp|square'
	./build/release/glint_gl_matmul_bench
	cmake --build --preset wasm -j $(JOBS) --target glint_models_bench glint_gemm_peak_bench
	cmake --build --preset wasm-mt -j $(JOBS) --target glint_models_bench glint_gemm_peak_bench
	cd build/wasm && $(NODE) glint_gemm_peak_bench.js
	cd build/wasm-mt && $(NODE) glint_gemm_peak_bench.js
	$(NODE) bench/run_bench.mjs

clean:
	rm -rf build

## web: the npm package (web/package): its two WebAssembly builds in dist/,
## then `npm pack` into build/web. The single-thread build alone: make web-st.
WEB_DIST := web/package/dist
## Each build also as its relaxed-SIMD twin (glint-*-relaxed.wasm), which
## module.js starts with the same glue: the check below keeps them one file.
RELAXED_GLUE_CHECK = sed 's/$(1)-relaxed/$(1)/g' $(2)/$(1)-relaxed.mjs | cmp -s - $(2)/$(1).mjs || \
	{ echo "$(2)/$(1)-relaxed.mjs differs from $(1).mjs beyond its name: module.js cannot share the glue"; exit 1; }
web-st: bootstrap build/wasm/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_web glint_web_relaxed
	$(call RELAXED_GLUE_CHECK,glint-st,build/wasm/web)
	mkdir -p $(WEB_DIST)
	cp build/wasm/web/glint-st.mjs build/wasm/web/glint-st.wasm build/wasm/web/glint-st-relaxed.wasm $(WEB_DIST)/
	node scripts/embed_file.mjs --base64 wasmBase64 $(WEB_DIST)/glint-st.wasm
	@# The package's single-file builds (the apps' import map, CDNs); the threads build's
	@# files they name are made by make web.
	node scripts/cdn_bundle.mjs

web: web-st build/wasm-mt/build.ninja
	cmake --build --preset wasm-mt -j $(JOBS) --target glint_web glint_web_relaxed
	$(call RELAXED_GLUE_CHECK,glint-mt,build/wasm-mt/web)
	cp build/wasm-mt/web/glint-mt.mjs build/wasm-mt/web/glint-mt.wasm build/wasm-mt/web/glint-mt-relaxed.wasm $(WEB_DIST)/
	cp build/wasm-mt/web/glint-mt.worker.js $(WEB_DIST)/
	node scripts/embed_file.mjs --text workerSource $(WEB_DIST)/glint-mt.worker.js
	rm -f build/web/glint-ml-*.tgz
	mkdir -p build/web && cd web/package && npm pack --silent --pack-destination ../../build/web >/dev/null
	@ls build/web/*.tgz

## web-apps: each app's own engine, built with only the kernels and layer
## classes its model uses (web/apps/APP/kernels.txt, made by
## tools/kernels_for.mjs; docs/SIZE.md): both builds and their relaxed-SIMD
## twins in web/apps/APP/glint/, which the app loads (ready's wasmPath).
APP_BUILDS := digits sequence
web-apps: web
	@set -e; for app in $(APP_BUILDS); do \
	  for preset in wasm wasm-mt; do \
	    dir=build/$$preset-$$app; \
	    test -f $$dir/build.ninja || cmake --preset $$preset -B $$dir -DGLINT_KERNELS=web/apps/$$app/kernels.txt >/dev/null; \
	    cmake --build $$dir -j $(JOBS) --target glint_web glint_web_relaxed; \
	  done; \
	  $(call RELAXED_GLUE_CHECK,glint-st,build/wasm-$$app/web); \
	  $(call RELAXED_GLUE_CHECK,glint-mt,build/wasm-mt-$$app/web); \
	  mkdir -p web/apps/$$app/glint; \
	  cp build/wasm-$$app/web/glint-st.mjs build/wasm-$$app/web/glint-st.wasm \
	     build/wasm-$$app/web/glint-st-relaxed.wasm build/wasm-mt-$$app/web/glint-mt.mjs \
	     build/wasm-mt-$$app/web/glint-mt.wasm build/wasm-mt-$$app/web/glint-mt-relaxed.wasm \
	     web/apps/$$app/glint/; \
	done

## test-web: the JS API in node (single-thread build), checked against TF.js; the webgpu
## backend in node through Dawn (npm webgpu) on SwiftShader's Vulkan driver.
# Run alone, after the rest: it counts the batches a training worker runs while the
# page awaits a chain of calls, and a test file beside it makes the page answer late.
WEB_TESTS_ALONE := tests/web/worker_pipeline.test.mjs
test-web: web-st
	cmake --build --preset wasm -j $(JOBS) --target glint_optable_async  # the op table on webgpu in node
	cmake --build --preset wasm -j $(JOBS) --target glint_kernel_fuzz_async  # the kernel fuzzer on webgpu in node
	node --test --test-concurrency=$(JOBS) $(filter-out $(WEB_TESTS_ALONE),$(wildcard tests/web/*.test.mjs))
	node --test $(WEB_TESTS_ALONE)
	$(NODE) scripts/gen_types.mjs --check  # index.d.ts: every tensor method and namespace member typed
	node_modules/.bin/tsc --noEmit --strict --target es2022 --moduleResolution node \
	  --module es2022 tests/web/types_check.ts

## test-programs: programs written as TF.js users write them (tests/programs), run on
## TF.js 4.22 and on glint-ml in node with only the import changed; results compared.
.PHONY: test-programs
test-programs: web-st
	node tests/programs/run.mjs

## test-bundlers: the packed tarball in a fresh app built by Vite (build and dev server),
## webpack, esbuild and rollup with the configs users write first, and from a CDN;
## each served plain and cross-origin isolated, in headless Chromium (docs/BUNDLERS.md).
.PHONY: test-bundlers
test-bundlers: web
	node tests/bundlers/run.mjs  # not $(NODE): playwright-core needs fetch

## test-browser-web: the JS API in headless Chromium, both builds, wasm and webgl;
## then on webgpu (WebGPU on SwiftShader): training, memory, ten forced device losses;
## then tf.browser, tf.image and tf.data.webcam/microphone against TF.js (fake camera and mic).
test-browser-web: web
	node tests/browser/web_api.mjs  # not $(NODE): playwright-core needs fetch
	node tests/browser/webgpu_api.mjs
	node tests/browser/image_media.mjs

## test-digits: the digits app (web/apps/digits) in headless Chromium: live predictions of drawn
## digits, teaching (under 300 ms), persistence, reset, offline, screenshots; Stop and training that
## keep the user's work, forgetting guarded; loading progress, MNIST on demand, reads while training
## (under 100 ms); not sure, clipped strokes, phone layout; import, model check, guide, snippets.
.PHONY: test-digits
test-digits: web-apps
	@test -f web/apps/digits/model/model.json -a -f web/apps/digits/data/digits.json || $(MAKE) demo
	@# The app's own build: its list still covers the model, and the build works (tests/apps).
	$(NODE) tools/kernels_for.mjs --check web/apps/digits/kernels.txt web/apps/digits/model/model.json
	node --test tests/apps/
	@# The two with a bound on an interactive action run alone; the other three, which leave a
	@# core idle most of the time (waits for the page), two side by side.
	node tests/browser/digits.mjs  # not $(NODE): playwright-core needs fetch
	node tests/browser/digits_loading.mjs
	$(MAKE) --no-print-directory -j2 --output-sync=target digits-users digits-teaching-tools

.PHONY: digits-users digits-teaching-tools
digits-users:
	node tests/browser/digits_users.mjs
digits-teaching-tools:
	node tests/browser/digits_teaching.mjs
	node tests/browser/digits_tools.mjs

## test-apps: the three apps (doctor, digits, sequence) in headless Chromium.
.PHONY: test-apps
test-apps: test-doctor test-digits test-sequence test-a11y

## test-a11y: the apps for users without a pointer or sight: axe-core (WCAG 2.1 A/AA) in light
## and dark at desktop, phone and 320 px, keyboard-only use, live regions, charts in words.
.PHONY: test-a11y
test-a11y: web-apps
	@test -f web/apps/digits/model/model.json -a -f web/apps/digits/data/digits.json || $(MAKE) demo
	node tests/browser/a11y_digits.mjs  # not $(NODE): playwright-core needs fetch
	node tests/browser/a11y_sequence.mjs
	node tests/browser/a11y_doctor.mjs

## test-doctor: the doctor page (web/apps/doctor) in headless Chromium: every backend
## listed, kernels complete on cpu and gl, precision, speed, quota; screenshots in build/screenshots.
.PHONY: test-doctor
test-doctor: web
	node tests/browser/doctor.mjs  # not $(NODE): playwright-core needs fetch

## test-sequence: the sequence app (web/apps/sequence) in headless Chromium: an LSTM trained in a
## worker (page responsive), distribution vs prior, sampling, save/reload, offline; screenshots.
.PHONY: test-sequence
test-sequence: web-apps
	$(NODE) tools/kernels_for.mjs --check web/apps/sequence/kernels.txt web/apps/sequence/model_shape.json
	node tests/browser/sequence.mjs  # not $(NODE): playwright-core needs fetch
	node tests/browser/sequence_data.mjs
