#pragma once
// Extras of the gl backend (OpenGL ES 3.0 / WebGL2): read-back that does not
// stall the GPU pipeline, texture counts, and context loss. The backend
// registers unless GLINT_GL=0.
//
// Context loss: a WebGL context can be lost at any time, and every texture
// with it. The backend keeps a host copy of each upload (tensors made from
// host data, weights set from the host; up to a limit, setRecoveryOptions) and a
// host snapshot of every variable (weights, optimizer state): each new value
// is read back asynchronously and collected at the next blocking read (a
// training step reads its loss) or assign, so a snapshot lags the variable by
// at most one step. The next call after a loss makes a new context,
// re-uploads both, and marks every other tensor on gl lost: using one throws
// glint::DeviceLostError. fit() skips a step that hits a loss and goes on.
// When no new context can be made, the variables move to the next backend by
// priority (cpu), which becomes active; uploads stay readable from their host
// copies (so they move on use); later calls try a new context again.
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

struct Stats {
  int64_t textures = 0;           // GL textures held now (live buffers and the pool)
  int64_t pooledTextures = 0;     // of which released ones kept for reuse
  int64_t contextLosses = 0;      // losses recovered from
  int64_t texturesRestored = 0;   // uploads re-uploaded from their host copy
  int64_t variablesRestored = 0;  // variables rebuilt from their snapshot
  int64_t texturesLost = 0;       // buffers that could not be restored
  int64_t variablesMoved = 0;     // moved to the next backend: no new context could be made
  int64_t variableReads = 0;      // asynchronous snapshot reads started
  int64_t hostCopyBytes = 0;      // host memory held by copies of uploads
  double snapshotSeconds = 0;     // time spent starting and collecting snapshot reads
};
/// Zeros when the gl backend is unavailable.
Stats stats();
/// Forces a context loss now (tests): WEBGL_lose_context in the browser; natively
/// the EGL context is destroyed. The next call into the backend recovers.
void loseContext();
/// What survives a context loss; both on by default. Off, the matching
/// tensors are lost with the context (and cost nothing per step).
struct RecoveryOptions {
  bool variableSnapshots = true;  // read new variable values back (one step behind)
  int snapshotInterval = 1;       // every n-th value of each variable: lags up to n steps
  bool uploadCopies = true;       // keep the bytes of each upload on the host
  int64_t uploadCopyLimit = int64_t{256} << 20;  // uploads past this many bytes get none
};
void setRecoveryOptions(const RecoveryOptions& options);

}  // namespace glint::gl
