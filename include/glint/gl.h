#pragma once
// Extras of the gl backend (OpenGL ES 3.0 / WebGL2): read-back that does not
// stall the GPU pipeline. The backend registers unless GLINT_GL=0.
#include <cstdint>
#include <memory>
#include <vector>

#include "glint/tensor.h"

namespace glint::gl {

/// A read-back in flight: the GPU copies the tensor into a pixel-pack buffer
/// behind a fence while the caller goes on; ready() polls, bytes() collects.
class PendingRead {
 public:
  PendingRead();
  ~PendingRead();
  PendingRead(PendingRead&&) noexcept;
  PendingRead& operator=(PendingRead&&) noexcept;
  /// True once the copy has finished; never blocks.
  bool ready();
  /// The tensor's bytes in its dtype's storage layout (waits if not ready).
  /// Call once.
  std::vector<uint8_t> bytes();

  struct State;

 private:
  friend PendingRead readAsync(const Tensor& t);
  std::unique_ptr<State> state_;
};

/// Starts reading `t` back. A tensor that is not on the gl backend is read at
/// once (the result is ready immediately).
PendingRead readAsync(const Tensor& t);

}  // namespace glint::gl
