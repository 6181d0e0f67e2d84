#pragma once
// profile(f): every kernel a function runs, with the memory it added, as
// TF.js's tf.profile reports it. Diagnostics, not a timer to tune with:
// each recorded kernel waits for the device before and after it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "glint/shape.h"

namespace glint {

struct KernelRecord {
  std::string name;     // the kernel, e.g. "Conv2D"
  std::string backend;  // where it ran
  std::vector<Shape> inputShapes, outputShapes;
  int64_t bytesAdded = 0,
          totalBytesSnapshot = 0;  // engine bytes: the kernel's change, the total after it
  int64_t tensorsAdded = 0, totalTensorsSnapshot = 0;  // live tensors: likewise
  double kernelTimeMs = 0;
};

struct ProfileInfo {
  int64_t newBytes = 0, newTensors = 0;  // left behind by the profiled code
  int64_t peakBytes = 0;                 // the most bytes the engine held meanwhile
  std::vector<KernelRecord> kernels;     // in the order they ran
};

/// Records the kernels this thread runs from here to the matching
/// endProfile(); profiles nest (an outer one sees the inner one's kernels).
void startProfile();
ProfileInfo endProfile();
/// startProfile, f(), endProfile (also when f throws).
ProfileInfo profile(const std::function<void()>& f);

}  // namespace glint
