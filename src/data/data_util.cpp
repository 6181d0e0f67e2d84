#include "src/data/data_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "glint/error.h"

namespace glint::data::detail {

std::vector<uint8_t> readFile(const std::string& path, const std::string& op, int64_t maxBytes) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) fail(op, "cannot read '", path, "': ", std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  for (;;) {
    size_t got = std::fread(chunk, 1, sizeof chunk, f.get());
    if (static_cast<int64_t>(bytes.size() + got) > maxBytes)
      fail(op, "file '", path, "' holds more than ", maxBytes, " bytes (the limit)");
    bytes.insert(bytes.end(), chunk, chunk + got);
    if (got < sizeof chunk) break;
  }
  if (std::ferror(f.get())) fail(op, "cannot read '", path, "': ", std::strerror(errno));
  return bytes;
}

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Rng::below(uint64_t n) {
  // Reject the top partial copy of [0, n) so every value is equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t v;
  do v = next();
  while (v >= limit);
  return v % n;
}

std::vector<int32_t> permutation(int64_t n, uint64_t seed) {
  std::vector<int32_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = static_cast<int32_t>(i);
  Rng rng(seed);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(p[static_cast<size_t>(i)], p[rng.below(static_cast<uint64_t>(i + 1))]);
  return p;
}

uint64_t mixSeed(uint64_t seed, uint64_t pass) {
  Rng rng(seed ^ (pass * 0xD1B54A32D192ED03ull));
  return rng.next();
}

}  // namespace glint::data::detail
