#pragma once
// glint::Error: every user-facing failure. Messages start with the op in
// brackets, then name the argument, what was seen and what was expected:
//   "[matMul] a.shape[1] (3) must equal b.shape[0] (4): got a [2,3], b [4,5]"
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace glint {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A tensor's data died with its device (a lost GL context) and could not be
/// restored. Variables are restored from host snapshots, so a training step
/// that fails with this can be run again.
class DeviceLostError : public Error {
 public:
  explicit DeviceLostError(const std::string& message) : Error(message) {}
};

struct TensorImpl;  // glint/tensor.h

/// A synchronous read that this backend can only do asynchronously (WebGPU
/// outside a page: no blocking read). tensor() is what was to be read, kept
/// alive here. Whoever can wait reads it asynchronously, keeping its bytes on
/// the host, and runs the throwing code again: GraphModel's resumable runs
/// (GraphRun, executeAsync in JS) stop at it and go on from the node that
/// threw. Elsewhere it is the error it derives from.
class HostReadPending : public Error {
 public:
  explicit HostReadPending(const std::string& message, std::shared_ptr<TensorImpl> tensor = nullptr)
      : Error(message), tensor_(std::move(tensor)) {}
  /// Null where the thrower knew only the buffer (the read path adds it).
  const std::shared_ptr<TensorImpl>& tensor() const { return tensor_; }

 private:
  std::shared_ptr<TensorImpl> tensor_;
};

/// A kernel produced a NaN or an infinity while debug mode was on
/// (glint::enableDebugMode).
class NumericsError : public Error {
 public:
  explicit NumericsError(const std::string& message) : Error(message) {}
};

/// Text from a file or a caller, made safe to put in a message: at most
/// `maxBytes` of it (then "... (N bytes in all)"), control bytes, NUL and
/// bytes that are not UTF-8 written as \xNN, so a message is never cut at a
/// NUL, never floods a log and never carries a terminal escape.
std::string quoteForError(const std::string& text, size_t maxBytes = 200);

namespace detail {
inline void appendAll(std::ostringstream&) {}
template <class T, class... Rest>
void appendAll(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  appendAll(os, rest...);
}
}  // namespace detail

/// Throws glint::Error("[op] " + the streamed parts).
template <class... Parts>
[[noreturn]] void fail(const std::string& op, const Parts&... parts) {
  std::ostringstream os;
  os << "[" << op << "] ";
  detail::appendAll(os, parts...);
  throw Error(os.str());
}

/// Throws unless `condition` holds; the parts are only formatted on failure.
template <class... Parts>
void check(bool condition, const std::string& op, const Parts&... parts) {
  if (!condition) fail(op, parts...);
}

}  // namespace glint
