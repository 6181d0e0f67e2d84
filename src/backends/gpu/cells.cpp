#include "src/backends/gpu/cells.h"

#include <map>
#include <mutex>

#include "src/backends/gpu/math.h"

namespace glint::gpu {

const std::string& cellActivations(const Dialect& d, const std::string& recurrentActivation) {
  static std::mutex mu;
  static std::map<std::pair<const Dialect*, bool>, std::string> printed;
  const bool hard = recurrentActivation == "hardSigmoid";
  std::lock_guard<std::mutex> lock(mu);
  std::string& text = printed[{&d, hard}];
  if (!text.empty()) return text;
  const Type F = Type::f32;
  Fn ract("ract", F, {{"x", F}}), ractD("ractD", F, {{"x", F}, {"y", F}});
  // TF.js's float32 slope; the ends of the linear part count as inside.
  const E slope = E(0.2f);
  if (hard) {
    ract.ret(clamp(slope * ract.arg(0) + 0.5, 0.0, 1.0));
    E p = ractD.let("p", slope * ractD.arg(0) + 0.5);
    ractD.ret(select(p >= 0.0 && p <= 1.0, slope, 0.0));
  } else {
    ract.ret(sigmoid_(ract.arg(0)));
    ractD.ret(ractD.arg(1) * (1.0 - ractD.arg(1)));
  }
  Fn act("act", F, {{"x", F}}), actD("actD", F, {{"x", F}, {"y", F}});
  act.ret(tanh_(act.arg(0)));
  actD.ret(1.0 - actD.arg(1) * actD.arg(1));
  text = print(d, {&ract, &ractD, &act, &actD});
  return text;
}

}  // namespace glint::gpu
