#pragma once
// Helpers shared by the data sources: file reading with named errors, and a
// small seeded generator whose sequences are the same on every platform
// (std::shuffle and std distributions differ between standard libraries).
#include <cstdint>
#include <string>
#include <vector>

namespace glint::data::detail {

/// The whole file; throws "[op] cannot read 'path': reason", and when the
/// file holds more than maxBytes (checked before reading past it).
std::vector<uint8_t> readFile(const std::string& path, const std::string& op,
                              int64_t maxBytes = int64_t{4} << 30);

/// double -> float, out-of-range values to +-infinity (a plain cast is
/// undefined behaviour there).
inline float toFloat(double v) {
  constexpr double kMax = 3.4028234663852886e38;
  if (v > kMax) return __builtin_huge_valf();
  if (v < -kMax) return -__builtin_huge_valf();
  return static_cast<float>(v);
}

/// splitmix64: tiny, fast, well mixed; enough for shuffling.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  /// Uniform in [0, n), n > 0, without modulo bias.
  uint64_t below(uint64_t n);

 private:
  uint64_t state_;
};

/// A uniform random permutation of 0..n-1 (Fisher-Yates).
std::vector<int32_t> permutation(int64_t n, uint64_t seed);

/// Combines a seed with a pass number into an independent seed.
uint64_t mixSeed(uint64_t seed, uint64_t pass);

}  // namespace glint::data::detail
