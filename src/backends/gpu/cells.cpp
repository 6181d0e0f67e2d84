#include "src/backends/gpu/cells.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

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

namespace {

/// A call of the cell activation `name` (cellActivations' functions, or gl's
/// vec4 forms with a 4 appended) on x's type.
E activation(const std::string& name, std::vector<E> args) {
  const Type t = args[0].type();
  return external(t == Type::vec4f ? name + "4" : name, t, std::move(args));
}

}  // namespace

LstmGates lstmGates(Fn& body, Type t) {
  LstmGates g;
  for (int k = 0; k < 4; ++k) g.z[k] = ref("z" + std::to_string(k), t);
  for (int k = 0; k < 4; ++k)
    g.a[k] = body.let("a" + std::to_string(k), activation(k == 2 ? "act" : "ract", {g.z[k]}));
  return g;
}

LstmState lstmStep(Fn& body, const LstmGates& g, const E& cPrev) {
  E c = body.let("c", g.a[1] * cPrev + g.a[0] * g.a[2]);
  return {c, body.let("h", g.a[3] * activation("act", {c}))};
}

LstmGrads lstmStepGrad(Fn& body, const LstmGates& g, const E& cPrev, const E& c, const E& dh,
                       const E& dc) {
  E tc = body.let("tc", activation("act", {c}));
  E dct = body.let("dct", dc + dh * g.a[3] * activation("actD", {c, tc}));
  LstmGrads d;
  d.dz[0] = body.let("dz0", dct * g.a[2] * activation("ractD", {g.z[0], g.a[0]}));
  d.dz[1] = body.let("dz1", dct * cPrev * activation("ractD", {g.z[1], g.a[1]}));
  d.dz[2] = body.let("dz2", dct * g.a[0] * activation("actD", {g.z[2], g.a[2]}));
  d.dz[3] = body.let("dz3", dh * tc * activation("ractD", {g.z[3], g.a[3]}));
  d.dcPrev = body.let("dcPrev", dct * g.a[1]);
  return d;
}

GruGates gruGates(Fn& body, const E& rec, bool resetAfter) {
  const Type F = Type::f32;
  GruGates g;
  g.zPre = body.let("zPre", ref("xz", F) + ref("hz", F));
  g.rPre = body.let("rPre", ref("xr", F) + ref("hr", F));
  g.z = body.let("z", activation("ract", {g.zPre}));
  g.r = body.let("r", activation("ract", {g.rPre}));
  g.aPre = body.let("aPre", ref("xa", F) + (resetAfter ? g.r * rec : rec));
  g.a = body.let("a", activation("act", {g.aPre}));
  return g;
}

E gruOutput(const GruGates& g, const E& hPrev) { return g.a + g.z * (hPrev - g.a); }

GruGrads gruStepGrad(Fn& body, const GruGates& g, const E& hPrev, const E& rec, const E& dh,
                     bool resetAfter) {
  GruGrads d;
  d.dzPre = body.let("dzPre", dh * (hPrev - g.a) * activation("ractD", {g.zPre, g.z}));
  d.daPre = body.let("daPre", dh * (1.0 - g.z) * activation("actD", {g.aPre, g.a}));
  d.drPre =
      resetAfter ? body.let("drPre", d.daPre * rec * activation("ractD", {g.rPre, g.r})) : E(0.0);
  return d;
}

E gruResetStateGrad(Fn& body, const GruGates& g, const E& hPrev, const E& dy) {
  return body.let("drPre", dy * hPrev * activation("ractD", {g.rPre, g.r}));
}

}  // namespace glint::gpu
