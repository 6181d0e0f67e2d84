#include "src/backends/gpu/optim.h"

#include "glint/error.h"
#include "src/core/kernel_selection.h"

namespace glint::gpu {

namespace {

std::vector<E> gradientDescent(Fn& f, const std::vector<E>& in, const Attrs& a) {
  return {f.let("w", in[0] - param("lr", a.f("lr")) * in[1])};
}

std::vector<E> momentum(Fn& f, const std::vector<E>& in, const Attrs& a) {
  E mu = param("momentum", a.f("momentum"));
  E g = f.let("g", in[2]);
  E next = f.let("next", mu * in[1] + g);
  E step = a.b("useNesterov") ? g + mu * next : next;
  return {f.let("w", in[0] - param("lr", a.f("lr")) * step), next};
}

// The moments' factors and their complements, the bias corrections, epsilon,
// and the decoupled weight decay times lr.
std::vector<E> adam(Fn& f, const std::vector<E>& in, const Attrs& a) {
  E w = f.let("w", in[0]);
  E g = f.let("g", in[3]);
  E m = f.let("m",
              param("beta1", a.f("beta1")) * in[1] + param("oneMinusBeta1", 1 - a.f("beta1")) * g);
  E v = f.let("v", param("beta2", a.f("beta2")) * in[2] +
                       param("oneMinusBeta2", 1 - a.f("beta2")) * (g * g));
  E update = f.let("update", m / param("biasCorrection1", a.f("biasCorrection1")) /
                                 (sqrt(v / param("biasCorrection2", a.f("biasCorrection2"))) +
                                  param("epsilon", a.f("epsilon"))));
  E decay = param("decay", a.f("lr") * a.f("weightDecay"));
  return {f.let("wNew", w - decay * w - param("lr", a.f("lr")) * update), m, v};
}

}  // namespace

std::string localName(const E& e) {
  if (e.node().op != Op::ref) fail("gpu optimizer", "an output that is no local of the update");
  return e.node().name;
}

void optimizerKernels(const std::function<void(const char*, OptimizerUpdate)>& add) {
  GLINT_REGISTER(add, "ApplyGradientDescent", gradientDescent);
  GLINT_REGISTER(add, "ApplyMomentum", momentum);
  GLINT_REGISTER(add, "ApplyAdam", adam);
}

}  // namespace glint::gpu
