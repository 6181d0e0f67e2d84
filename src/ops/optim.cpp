// One-pass optimizer updates (glint/optim_ops.h). No gradients are registered:
// these are updates, not functions a loss is differentiated through.
#include <cmath>
#include <string>
#include <vector>

#include "glint/backend.h"
#include "glint/optim_ops.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

/// `t` is float32 and has the parameter's shape.
void checkLike(const std::string& op, const char* arg, const Tensor& t, const Tensor& w) {
  ops::checkDType(op, arg, t, {DType::float32});
  if (!(t.shape() == w.shape()))
    fail(op, arg, " must have the shape of w ", shapeToString(w.shape()), ", got ",
         ops::describe(t));
}

void checkFinite(const std::string& op, const char* arg, float v) {
  check(std::isfinite(v), op, arg, " must be finite, got ", v);
}

void checkAtLeastZero(const std::string& op, const char* arg, float v) {
  check(std::isfinite(v) && v >= 0, op, arg, " must be a finite number >= 0, got ", v);
}

}  // namespace

Tensor applyGradientDescent(const Tensor& w, const Tensor& g, float lr) {
  static const std::string op = "applyGradientDescent";
  ops::checkDType(op, "w", w, {DType::float32});
  checkLike(op, "g", g, w);
  checkFinite(op, "lr", lr);
  return runKernel("ApplyGradientDescent", {w, g}, OutputSpec{w.shape(), DType::float32},
                   Attrs().set("lr", lr));
}

MomentumUpdate applyMomentum(const Tensor& w, const Tensor& accum, const Tensor& g, float lr,
                             float momentum, bool nesterov) {
  static const std::string op = "applyMomentum";
  ops::checkDType(op, "w", w, {DType::float32});
  checkLike(op, "accum", accum, w);
  checkLike(op, "g", g, w);
  checkFinite(op, "lr", lr);
  checkAtLeastZero(op, "momentum", momentum);
  const OutputSpec out{w.shape(), DType::float32};
  std::vector<Tensor> r =
      runKernel("ApplyMomentum", {w, accum, g}, {out, out},
                Attrs().set("lr", lr).set("momentum", momentum).set("useNesterov", nesterov));
  return {r[0], r[1]};
}

AdamUpdate applyAdam(const Tensor& w, const Tensor& m, const Tensor& v, const Tensor& g, float lr,
                     float beta1, float beta2, float epsilon, float c1, float c2,
                     float weightDecay) {
  static const std::string op = "applyAdam";
  ops::checkDType(op, "w", w, {DType::float32});
  checkLike(op, "m", m, w);
  checkLike(op, "v", v, w);
  checkLike(op, "g", g, w);
  checkFinite(op, "lr", lr);
  for (auto [name, beta] : {std::pair{"beta1", beta1}, std::pair{"beta2", beta2}})
    check(std::isfinite(beta) && beta >= 0 && beta < 1, op, name, " must be in [0, 1), got ", beta);
  checkAtLeastZero(op, "epsilon", epsilon);
  for (auto [name, c] : {std::pair{"c1", c1}, std::pair{"c2", c2}})
    check(std::isfinite(c) && c > 0 && c <= 1, op, name,
          " (a bias correction, 1 - beta^t) must be in (0, 1], got ", c);
  checkAtLeastZero(op, "weightDecay", weightDecay);
  const OutputSpec out{w.shape(), DType::float32};
  std::vector<Tensor> r = runKernel("ApplyAdam", {w, m, v, g}, {out, out, out},
                                    Attrs()
                                        .set("lr", lr)
                                        .set("beta1", beta1)
                                        .set("beta2", beta2)
                                        .set("epsilon", epsilon)
                                        .set("biasCorrection1", c1)
                                        .set("biasCorrection2", c2)
                                        .set("weightDecay", weightDecay));
  return {r[0], r[1], r[2]};
}

}  // namespace glint
