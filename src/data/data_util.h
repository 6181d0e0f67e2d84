#pragma once
// Helpers shared by the data sources: file reading with named errors, and a
// small seeded generator whose sequences are the same on every platform
// (std::shuffle and std distributions differ between standard libraries).
#include <cstdint>
#include <string>
#include <vector>

namespace glint::data::detail {

/// A data file open for reading, refused at open unless it is a regular file:
/// a named pipe would block the reader forever and a device never ends, so
/// they are named ("is a named pipe") instead of read or called missing.
class DataFile {
 public:
  /// Throws "[op] cannot read 'path': reason" (missing, no permission, or
  /// what the path is when it is not a regular file).
  DataFile(const std::string& path, const std::string& op);
  ~DataFile();
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;

  /// The size fstat reported at open.
  int64_t size() const { return size_; }
  /// Fills buf with up to n bytes; fewer only at the end of the file.
  size_t read(void* buf, size_t n);

 private:
  std::string path_, op_;
  int fd_ = -1;
  int64_t size_ = 0;
};

/// What a path is when it is not a regular file ("a directory", "a named
/// pipe (FIFO)", ...); empty for a regular file or a path that does not exist.
std::string notRegularFile(const std::string& path);

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
