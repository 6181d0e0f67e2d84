#pragma once
// xoshiro256** seeded through splitmix64: the same stream natively and in
// WebAssembly (std:: distributions differ between standard libraries).
#include <cstdint>

namespace glint {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0x9E3779B97F4A7C15ull) { seed_(seed); }
  void seed_(uint64_t seed);
  uint64_t next();
  double uniform01();       // [0, 1), 53 bits
  double standardNormal();  // Box-Muller

 private:
  uint64_t s_[4];
};

}  // namespace glint
