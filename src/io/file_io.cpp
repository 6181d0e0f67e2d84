// Native storage: a directory with model.json and weight shards. Saves are
// atomic: everything is written and fsynced in a sibling temporary directory
// that then replaces the target in one rename.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "glint/error.h"
#include "glint/io.h"
#include "src/io/io_util.h"
#include "src/io/safe_file.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/syscall.h>
#define GLINT_HAVE_RENAME_EXCHANGE 1
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#endif

namespace fs = std::filesystem;

namespace glint::io {

namespace detail {
// Fault injection for tests: called before each file of a save is written.
std::function<void(const std::string& path)> beforeSaveWrite;
// Tests: use the two-rename fallback even where RENAME_EXCHANGE works.
bool forceTwoStepExchange = false;
}  // namespace detail

namespace {

const char* kSave = "io.save";
const char* kLoad = "io.load";

std::string errnoText() { return std::strerror(errno); }

void writeFileSynced(const fs::path& path, const void* data, size_t size) {
  if (detail::beforeSaveWrite) detail::beforeSaveWrite(path.string());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  check(fd >= 0, kSave, "cannot create '", path.string(), "': ", errnoText());
  const auto* p = static_cast<const uint8_t*>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = errnoText();
      ::close(fd);
      fail(kSave, "writing '", path.string(), "' failed after ", done, " of ", size,
           " bytes: ", why);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    std::string why = errnoText();
    ::close(fd);
    fail(kSave, "fsync of '", path.string(), "' failed: ", why);
  }
  check(::close(fd) == 0, kSave, "closing '", path.string(), "' failed: ", errnoText());
}

void syncDirectory(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: some file systems cannot open directories
  ::fsync(fd);
  ::close(fd);
}

// Swaps two existing directories in one step where the kernel can; else two
// renames (a crash between them leaves the old model under `b`'s name).
void exchangeDirectories(const fs::path& a, const fs::path& b) {
#ifdef GLINT_HAVE_RENAME_EXCHANGE
  if (!detail::forceTwoStepExchange &&
      ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0)
    return;
#endif
  fs::path aside = b;
  aside += ".glint-old";
  std::error_code ec;
  fs::rename(b, aside, ec);
  check(!ec, kSave, "cannot move '", b.string(), "' aside: ", ec.message());
  fs::rename(a, b, ec);
  if (ec) {
    std::error_code ignored;
    fs::rename(aside, b, ignored);
    fail(kSave, "cannot move the new model into '", b.string(), "': ", ec.message());
  }
  fs::rename(aside, a, ec);
}

struct Target {
  fs::path dir;
  std::string jsonName = "model.json";
};

Target saveTarget(const std::string& url) {
  fs::path p = fs::path(pathFromUrl(url, kSave)).lexically_normal();
  check(!p.empty(), kSave, "empty path in '", url, "'");
  Target t;
  if (p.has_filename() && p.extension() == ".json") {
    t.jsonName = p.filename().string();
    p = p.parent_path();
    if (p.empty()) p = ".";
  }
  if (!p.has_filename()) p = p.parent_path();  // "dir/" -> "dir"
  t.dir = p;
  return t;
}

// Where in `j` the first string (key or value) that is not UTF-8 lies, as
// a path like model.json.modelTopology.config.layers[0].config.name; found only
// after a dump failed, so its cost does not matter.
std::string firstInvalidUtf8(const Json& j, const std::string& at) {
  auto valid = [](const std::string& s) {
    try {
      (void)Json(s).dump();
      return true;
    } catch (const Json::type_error&) {
      return false;
    }
  };
  if (j.is_string())
    return valid(j.get<std::string>()) ? "" : at + " (" + quoteForError(j.get<std::string>()) + ")";
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!valid(it.key())) return "a key in " + at + " (" + quoteForError(it.key()) + ")";
      std::string found = firstInvalidUtf8(it.value(), at + "." + it.key());
      if (!found.empty()) return found;
    }
  }
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) {
      std::string found = firstInvalidUtf8(j[i], at + "[" + std::to_string(i) + "]");
      if (!found.empty()) return found;
    }
  return at == "model.json" ? "a string in model.json" : "";
}

// Glint's own shard names, "group1-shard<i>of<n>.bin" (shardWeightData).
bool isGlintShardName(const std::string& name) {
  const std::string head = "group1-shard", tail = ".bin";
  if (name.size() <= head.size() + tail.size() || name.rfind(head, 0) != 0 ||
      name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  std::string mid = name.substr(head.size(), name.size() - head.size() - tail.size());
  size_t of = mid.find("of");
  auto digits = [](const std::string& d) {
    return !d.empty() && d.size() <= 9 && d[0] != '0' &&
           d.find_first_not_of("0123456789") == std::string::npos;
  };
  return of != std::string::npos && digits(mid.substr(0, of)) && digits(mid.substr(of + 2));
}

// Files of the model.json already in `dir` that the save may replace: only
// shards Glint itself wrote there. A foreign or hostile model.json can list
// any of the user's files ("notes.txt", "../x"); those are kept.
std::set<std::string> oldModelFiles(const fs::path& json) {
  std::set<std::string> files;
  std::string text;
  try {
    text = readRegularFileText(json.string(), LoadOptions{}.maxModelJsonBytes, kSave, json.string(),
                               "previous model file", "LoadOptions.maxModelJsonBytes");
  } catch (const Error&) {
    return files;  // unreadable or not a file: replace nothing but model.json
  }
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("generatedBy")) return files;
  const Json& by = j["generatedBy"];
  if (!by.is_string() || by.get<std::string>().rfind("Glint", 0) != 0) return files;
  if (!j.contains("weightsManifest") || !j["weightsManifest"].is_array()) return files;
  for (const Json& g : j["weightsManifest"])
    if (g.is_object() && g.contains("paths") && g["paths"].is_array())
      for (const Json& p : g["paths"])
        if (p.is_string() && isGlintShardName(p.get<std::string>()))
          files.insert(p.get<std::string>());
  return files;
}

// Temporary directories of saves whose process died (SIGKILL, power loss):
// ".<name>.glint-tmp-<pid>-<n>" in `parent` with no such live process.
void removeStaleTemporaries(const fs::path& parent, const std::string& name) {
  std::string prefix = "." + name + ".glint-tmp-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    std::string file = entry.path().filename().string();
    if (file.rfind(prefix, 0) != 0) continue;
    long pid = std::strtol(file.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      fs::remove_all(entry.path(), ec);
  }
}

// A crash between the first two renames of the fallback exchange leaves the
// previous model only under "<dir>.glint-old": move it back. After the second
// one, <dir> is the new model and "<dir>.glint-old" a stale copy (removed on save).
void recoverInterruptedExchange(fs::path dir, bool removeStale) {
  dir = dir.lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "dir/" -> "dir"
  fs::path aside = dir;
  aside += ".glint-old";
  std::error_code ec;
  if (!fs::is_directory(aside, ec)) return;
  if (!fs::exists(dir, ec)) fs::rename(aside, dir, ec);
  else if (removeStale) fs::remove_all(aside, ec);
}

// `path` passed checkShardPath; links are followed only while they stay in `base`.
std::vector<uint8_t> readShard(const fs::path& base, const std::string& path, int64_t maxBytes,
                               const std::string& source) {
  fs::path full = base / path;
  std::string resolved =
      resolveInside(base.string(), full.string(), kLoad, source, "weight shard file");
  return readRegularFile(resolved, maxBytes, kLoad, source, "weight shard file",
                         "the bytes the manifest has left for it", full.string());
}

// Where a load reads `p` from: itself, or, while a save's two-rename exchange
// was cut short ("<dir>" missing, "<dir>.glint-old" present), the previous
// model aside. Loading only reads; the next save moves it back.
fs::path loadSource(const fs::path& p) {
  std::error_code ec;
  if (fs::exists(p, ec)) return p;
  fs::path dir = p.lexically_normal(), file;
  if (!dir.has_filename()) dir = dir.parent_path();  // "dir/" -> "dir"
  if (dir.extension() == ".json" && !fs::exists(dir.parent_path(), ec)) {
    file = dir.filename();
    dir = dir.parent_path();
  }
  fs::path aside = dir;
  aside += ".glint-old";
  if (dir.empty() || fs::exists(dir, ec) || !fs::is_directory(aside, ec)) return p;
  return file.empty() ? aside : aside / file;
}

}  // namespace

std::string pathFromUrl(const std::string& url, const std::string& op) {
  const std::string scheme = "file://";
  if (url.rfind(scheme, 0) == 0) return url.substr(scheme.size());
  size_t colon = url.find("://");
  check(colon == std::string::npos, op, "unsupported URL scheme in '", url,
        "': natively Glint reads and writes paths and file:// URLs");
  return url;
}

void saveArtifacts(const ModelArtifacts& artifacts, const std::string& url,
                   const SaveOptions& options) {
  Target target = saveTarget(url);
  auto shards = shardWeightData(artifacts.weightData, options.shardSizeBytes);
  std::vector<std::string> names;
  for (const auto& s : shards) names.push_back(s.first);
  Json manifest = modelJsonFromArtifacts(artifacts, names);
  std::string json;
  try {
    json = manifest.dump();
  } catch (const Json::type_error&) {
    fail(kSave, "cannot write '", target.dir.string(),
         "': ", firstInvalidUtf8(manifest, "model.json"),
         " is not valid UTF-8, which JSON requires");
  }

  std::error_code ec;
  fs::path parent = target.dir.parent_path();
  if (parent.empty()) parent = ".";
  fs::create_directories(parent, ec);
  check(!ec, kSave, "cannot create directory '", parent.string(), "': ", ec.message());
  recoverInterruptedExchange(target.dir, true);
  removeStaleTemporaries(parent, target.dir.filename().string());
  bool exists = fs::exists(target.dir, ec);
  check(!exists || fs::is_directory(target.dir, ec), kSave, "'", target.dir.string(),
        "' exists and is not a directory");

  static std::atomic<int> counter{0};
  std::string tmpName = ".";  // appended piecewise: GCC 12 warns falsely on "." + string
  tmpName += target.dir.filename().string();
  tmpName += ".glint-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  fs::path tmp = parent / tmpName;
  fs::remove_all(tmp, ec);
  fs::create_directory(tmp, ec);
  check(!ec, kSave, "cannot create temporary directory '", tmp.string(), "': ", ec.message());
  try {
    for (const auto& [name, bytes] : shards)
      writeFileSynced(tmp / name, bytes.data(), bytes.size());
    writeFileSynced(tmp / target.jsonName, json.data(), json.size());
    if (exists) {
      // Keep the user's other files: hard links (or copies) into the new directory.
      std::set<std::string> replaced = oldModelFiles(target.dir / target.jsonName);
      replaced.insert(target.jsonName);
      for (const std::string& n : names) replaced.insert(n);
      // Anything but a directory is hard-linked as it is (a link stays a
      // link, a FIFO a FIFO: never followed or read); directories are
      // copied with their links as links.
      for (const auto& entry : fs::directory_iterator(target.dir)) {
        std::string name = entry.path().filename().string();
        if (replaced.count(name)) continue;
        std::error_code linkErr;
        bool isDir = entry.is_directory() && !entry.is_symlink();
        if (!isDir) fs::create_hard_link(entry.path(), tmp / name, linkErr);
        if (isDir || linkErr)
          fs::copy(entry.path(), tmp / name,
                   fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      }
    }
    syncDirectory(tmp);
    if (exists) {
      exchangeDirectories(tmp, target.dir);
    } else {
      fs::rename(tmp, target.dir, ec);
      check(!ec, kSave, "cannot move the new model into '", target.dir.string(),
            "': ", ec.message());
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    fail(kSave, "saving to '", target.dir.string(), "' failed: ", e.what());
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  syncDirectory(parent);
  fs::remove_all(tmp, ec);  // the previous model, after an exchange
}

ModelArtifacts loadArtifacts(const std::string& url, const LoadOptions& options) {
  fs::path p = loadSource(fs::path(pathFromUrl(url, kLoad)));
  std::error_code ec;
  bool isDir = fs::is_directory(p, ec);
  fs::path json = isDir ? p / "model.json" : p;
  check(isDir || fs::exists(fs::symlink_status(json, ec)), kLoad, "no model at '",
        quoteForError(p.string()), "': expected a directory holding model.json, or a .json file");
  std::string source = json.string();
  fs::path base = json.parent_path();
  if (base.empty()) base = ".";
  // model.json itself may be a link only into its own folder, like its shards.
  std::string resolved = resolveInside(base.string(), json.string(), kLoad, source, "model file");
  std::string text = readRegularFileText(resolved, options.maxModelJsonBytes, kLoad, source,
                                         "model file", "LoadOptions.maxModelJsonBytes", source);
  Json j = parseModelJson(text, options, source);
  return artifactsFromModelJson(
      j,
      [&](const std::string& path, int64_t maxBytes) {
        return readShard(base, path, maxBytes, source);
      },
      options, source);
}

}  // namespace glint::io
