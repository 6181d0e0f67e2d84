#include "src/data/data_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "glint/error.h"

namespace glint::data::detail {

namespace {

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

DataFile::DataFile(const std::string& path, const std::string& op) : path_(path), op_(op) {
  // O_NONBLOCK: opening a named pipe must not wait for a writer; fstat then
  // refuses it. Reads of a regular file ignore the flag.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) fail(op, "cannot read '", path, "': ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int e = errno;
    ::close(fd_);
    fail(op, "cannot read '", path, "': ", std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail(op, "cannot read '", path, "': it is ", kindOf(st.st_mode), ", not a regular file");
  }
  size_ = static_cast<int64_t>(st.st_size);
}

DataFile::~DataFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t DataFile::read(void* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd_, static_cast<char*>(buf) + got, n - got);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(op_, "cannot read '", path_, "': ", std::strerror(errno));
    }
    got += static_cast<size_t>(r);
  }
  return got;
}

std::string notRegularFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  return kindOf(st.st_mode);
}

std::vector<uint8_t> readFile(const std::string& path, const std::string& op, int64_t maxBytes) {
  DataFile f(path, op);
  if (f.size() > maxBytes)
    fail(op, "file '", path, "' holds ", f.size(), " bytes, more than ", maxBytes, " (the limit)");
  std::vector<uint8_t> bytes(static_cast<size_t>(f.size()));
  bytes.resize(f.read(bytes.data(), bytes.size()));
  // A file that grew since fstat: read on, still bounded.
  uint8_t chunk[1 << 16];
  for (;;) {
    size_t got = f.read(chunk, sizeof chunk);
    if (static_cast<int64_t>(bytes.size() + got) > maxBytes)
      fail(op, "file '", path, "' holds more than ", maxBytes, " bytes (the limit)");
    bytes.insert(bytes.end(), chunk, chunk + got);
    if (got < sizeof chunk) break;
  }
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
