// profile(): the records runKernel writes while a profile is open on this
// thread (src/core/engine.cpp), and the peak the allocator tracks.
#include "glint/profile.h"

#include "glint/error.h"
#include "src/core/engine_state.h"

namespace glint {

void startProfile() {
  Engine& e = Engine::get();
  auto p = std::make_unique<ProfileRecorder>();
  p->startBytes = e.numBytes;
  p->startTensors = e.numTensors;
  p->info.peakBytes = p->startBytes;
  threadState().profiles.push_back(std::move(p));
}

ProfileInfo endProfile() {
  auto& profiles = threadState().profiles;
  check(!profiles.empty(), "endProfile", "called without a matching startProfile");
  std::unique_ptr<ProfileRecorder> p = std::move(profiles.back());
  profiles.pop_back();
  Engine& e = Engine::get();
  p->info.newBytes = e.numBytes - p->startBytes;
  p->info.newTensors = e.numTensors - p->startTensors;
  return std::move(p->info);
}

ProfileInfo profile(const std::function<void()>& f) {
  startProfile();
  try {
    f();
  } catch (...) {
    endProfile();
    throw;
  }
  return endProfile();
}

}  // namespace glint
