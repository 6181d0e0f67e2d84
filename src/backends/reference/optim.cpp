// Reference kernels of the one-pass optimizer updates (glint/optim_ops.h):
// each element's update in double, rounded once to float.
#include <cmath>

#include "glint/backend.h"
#include "src/backends/reference/kernels.h"
#include "src/core/kernel_selection.h"

namespace glint::reference {

namespace {

void applyGradientDescent(KernelArgs& args) {
  const float* w = hostData<float>(args.inputs[0]);
  const float* g = hostData<float>(args.inputs[1]);
  float* wOut = hostData<float>(args.outputs[0]);
  const double lr = args.attrs.f("lr");
  for (int64_t i = 0, n = args.outputs[0].size(); i < n; ++i)
    wOut[i] = static_cast<float>(double(w[i]) - lr * g[i]);
}

void applyMomentum(KernelArgs& args) {
  const float* w = hostData<float>(args.inputs[0]);
  const float* accum = hostData<float>(args.inputs[1]);
  const float* g = hostData<float>(args.inputs[2]);
  float* wOut = hostData<float>(args.outputs[0]);
  float* accumOut = hostData<float>(args.outputs[1]);
  const double lr = args.attrs.f("lr"), momentum = args.attrs.f("momentum");
  const bool nesterov = args.attrs.b("useNesterov");
  for (int64_t i = 0, n = args.outputs[0].size(); i < n; ++i) {
    double next = momentum * accum[i] + g[i];
    double step = nesterov ? g[i] + momentum * next : next;
    accumOut[i] = static_cast<float>(next);
    wOut[i] = static_cast<float>(w[i] - lr * step);
  }
}

void applyAdam(KernelArgs& args) {
  const float* w = hostData<float>(args.inputs[0]);
  const float* m = hostData<float>(args.inputs[1]);
  const float* v = hostData<float>(args.inputs[2]);
  const float* g = hostData<float>(args.inputs[3]);
  float* wOut = hostData<float>(args.outputs[0]);
  float* mOut = hostData<float>(args.outputs[1]);
  float* vOut = hostData<float>(args.outputs[2]);
  const Attrs& a = args.attrs;
  const double lr = a.f("lr"), beta1 = a.f("beta1"), beta2 = a.f("beta2");
  const double epsilon = a.f("epsilon"), c1 = a.f("biasCorrection1");
  const double c2 = a.f("biasCorrection2"), weightDecay = a.f("weightDecay");
  for (int64_t i = 0, n = args.outputs[0].size(); i < n; ++i) {
    double mNew = beta1 * m[i] + (1 - beta1) * g[i];
    double vNew = beta2 * v[i] + (1 - beta2) * (double(g[i]) * g[i]);
    double update = (mNew / c1) / (std::sqrt(vNew / c2) + epsilon);
    mOut[i] = static_cast<float>(mNew);
    vOut[i] = static_cast<float>(vNew);
    wOut[i] = static_cast<float>(w[i] - lr * weightDecay * w[i] - lr * update);
  }
}

}  // namespace

void registerOptimKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "ApplyGradientDescent", backend, applyGradientDescent);
  GLINT_REGISTER(registerKernel, "ApplyMomentum", backend, applyMomentum);
  GLINT_REGISTER(registerKernel, "ApplyAdam", backend, applyAdam);
}

}  // namespace glint::reference
