// Bounded, kind-checked file reads (see safe_file.h).
#include "src/io/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "glint/error.h"

namespace fs = std::filesystem;

namespace glint::io {

namespace {

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a named pipe";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device";
  if (S_ISSOCK(mode)) return "is a socket";
  if (S_ISLNK(mode)) return "is a symbolic link";
  return "is not a regular file";
}

// Closes the descriptor on every path out, errors included.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

template <class Buffer>
Buffer readBounded(const std::string& path, int64_t maxBytes, const std::string& op,
                   const std::string& source, const std::string& what, const std::string& limit,
                   const std::string& shownAs) {
  std::string name = quoteForError(shownAs.empty() ? path : shownAs);
  // O_NONBLOCK: opening a FIFO with no writer must not wait forever; the
  // kind check below refuses it before any read. O_NOFOLLOW: the caller
  // resolved links already, so a link here was swapped in meanwhile.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)};
  if (f.fd < 0) {
    int err = errno;
    check(err != ENOENT && err != ENOTDIR, op, source, ": ", what, " '", name, "' is missing");
    check(err != ELOOP, op, source, ": ", what, " '", name,
          "' is a symbolic link that does not resolve to a file");
    check(err != ENXIO, op, source, ": ", what, " '", name, "' is a socket or device, not a file");
    fail(op, source, ": cannot open ", what, " '", name, "': ", std::strerror(err));
  }
  struct stat st {};
  check(::fstat(f.fd, &st) == 0, op, source, ": cannot stat ", what, " '", name,
        "': ", std::strerror(errno));
  check(S_ISREG(st.st_mode), op, source, ": ", what, " '", name, "' ", kindOf(st.st_mode),
        "; expected a regular file");
  auto size = static_cast<int64_t>(st.st_size);
  check(size <= maxBytes, op, source, ": ", what, " '", name, "' is ", size, " bytes, more than ",
        limit, " (", maxBytes, " bytes)");
  Buffer out(static_cast<size_t>(size), 0);
  size_t done = 0;
  char extra;
  for (;;) {
    // Reads at most maxBytes + 1 in all: the one byte past the budget proves growth.
    char* dst = done < out.size() ? reinterpret_cast<char*>(&out[0]) + done : &extra;
    size_t want = done < out.size() ? out.size() - done : 1;
    ssize_t n = ::read(f.fd, dst, want);
    if (n < 0 && errno == EINTR) continue;
    check(n >= 0, op, source, ": reading ", what, " '", name, "' failed after ", done,
          " bytes: ", std::strerror(errno));
    if (n == 0) break;
    if (dst == &extra) {
      check(static_cast<int64_t>(done) < maxBytes, op, source, ": ", what, " '", name,
            "' grew past ", limit, " (", maxBytes, " bytes) while it was read");
      out.push_back(static_cast<typename Buffer::value_type>(extra));
      ++done;
      continue;
    }
    done += static_cast<size_t>(n);
  }
  out.resize(done);  // a file that shrank meanwhile: what it holds now
  return out;
}

}  // namespace

std::vector<uint8_t> readRegularFile(const std::string& path, int64_t maxBytes,
                                     const std::string& op, const std::string& source,
                                     const std::string& what, const std::string& limit,
                                     const std::string& shownAs) {
  return readBounded<std::vector<uint8_t>>(path, maxBytes, op, source, what, limit, shownAs);
}

std::string readRegularFileText(const std::string& path, int64_t maxBytes, const std::string& op,
                                const std::string& source, const std::string& what,
                                const std::string& limit, const std::string& shownAs) {
  return readBounded<std::string>(path, maxBytes, op, source, what, limit, shownAs);
}

std::string resolveInside(const std::string& folder, const std::string& path, const std::string& op,
                          const std::string& source, const std::string& what) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(folder, ec);
  check(!ec, op, source, ": cannot resolve folder '", quoteForError(folder), "': ", ec.message());
  fs::path resolved = fs::weakly_canonical(path, ec);
  check(!ec, op, source, ": cannot resolve ", what, " '", quoteForError(path), "': ", ec.message());
  // Component-wise prefix test: "/m/ab" is not inside "/m/a".
  auto r = root.begin(), p = resolved.begin();
  for (; r != root.end() && p != resolved.end(); ++r, ++p)
    if (*r != *p) break;
  bool inside = r == root.end() && p != resolved.end();
  check(inside, op, source, ": ", what, " '", quoteForError(path), "' leads to '",
        quoteForError(resolved.string()), "', outside the model's folder '",
        quoteForError(root.string()), "'; links must stay inside it");
  return resolved.string();
}

}  // namespace glint::io
