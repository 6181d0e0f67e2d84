// Sizes and values the fuzzer draws (fuzz_case.h), and the generator registry.
#include <cmath>
#include <limits>

#include "tests/kernel_fuzz/fuzz_case.h"

namespace glint::kfuzz {

std::vector<Generator>& generators() {
  static std::vector<Generator> all;
  return all;
}

int64_t drawInt(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
bool coin(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

int64_t drawSize(Rng& rng, int64_t max) {
  static const int64_t edges[] = {1,  2,  3,  4,  5,  7,  8,  9,  11, 13,
                                  15, 16, 17, 31, 32, 33, 63, 64, 65};
  int64_t v;
  if (coin(rng, 0.7)) {
    v = edges[drawInt(rng, 0, static_cast<int64_t>(std::size(edges)) - 1)];
  } else {
    v = drawInt(rng, 1, max);
  }
  return std::min(v, max);
}

InputData floats(const Shape& shape, int64_t valueClass, uint64_t seed) {
  InputData d{shape, DType::float32, {}, true};
  Rng rng(seed * 0x9E3779B97F4A7C15ull + 17);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const float specials[] = {0.0f,
                            -0.0f,
                            1e-40f,
                            -1e-40f,
                            1e30f,
                            -1e30f,
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  int64_t n = numElements(shape);
  d.values.resize(static_cast<size_t>(n));
  for (auto& v : d.values) {
    switch (valueClass) {
      case kQuarters:
        v = static_cast<float>(drawInt(rng, -8, 8)) / 4.0f;
        break;
      case kSpecials:
        v = coin(rng, 0.15)
                ? specials[drawInt(rng, 0, static_cast<int64_t>(std::size(specials)) - 1)]
                : u(rng);
        break;
      case kPositive:
        v = 0.1f + std::abs(u(rng)) * 1.45f;
        break;
      default:
        v = u(rng);
    }
  }
  return d;
}

InputData ints(const Shape& shape, int lo, int hi, uint64_t seed) {
  InputData d{shape, DType::int32, {}, false};
  Rng rng(seed * 0x9E3779B97F4A7C15ull + 29);
  d.values.resize(static_cast<size_t>(numElements(shape)));
  for (auto& v : d.values) v = static_cast<float>(drawInt(rng, lo, hi));
  return d;
}

int64_t numElements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shapeText(const Shape& s) { return shapeToString(s); }

}  // namespace glint::kfuzz
