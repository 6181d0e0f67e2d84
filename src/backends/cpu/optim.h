#pragma once
// The cpu optimizer-update kernels' threading grain, for benchmarks that
// measure the crossover (bench/optim_bench.cpp).
#include <cstdint>

namespace glint::cpu {

/// An Adam update of n elements runs as min(threads, n / this) tasks on the
/// shared thread pool (inline below 2); SGD and Momentum use twice this.
int64_t optimTaskElements();
/// Overrides it (1: split as far as possible; INT64_MAX: never); returns the old value.
int64_t setOptimTaskElements(int64_t elements);

}  // namespace glint::cpu
