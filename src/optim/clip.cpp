// Gradient clipping by norm and by global norm (TensorFlow's clip_by_norm /
// clip_by_global_norm), written with ops.
#include <cmath>

#include "glint/engine.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "src/optim/optim_util.h"

namespace glint {

static void checkFloatTensor(const char* op, const Tensor& t, const std::string& what) {
  check(t.defined() && !t.isDisposed(), op, what, " is undefined or disposed");
  check(t.dtype() == DType::float32, op, what, " must be float32, got ", dtypeName(t.dtype()), " ",
        shapeToString(t.shape()));
}

Tensor clipByNorm(const Tensor& x, float clipNorm) {
  checkFloatTensor("clipByNorm", x, "x");
  optim::checkPositive("clipByNorm", "clipNorm", clipNorm);
  return tidy([&] {
    Tensor norm = sqrt(sum(square(x)));
    return mul(x, clipNorm / maximum(norm, scalar(clipNorm)));
  });
}

Tensor globalNorm(const std::vector<Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].defined())
      checkFloatTensor("globalNorm", tensors[i], "tensors[" + std::to_string(i) + "]");
  return tidy([&] {
    Tensor total = scalar(0.0f);
    for (const Tensor& t : tensors)
      if (t.defined()) total = add(total, sum(square(t)));
    return sqrt(total);
  });
}

std::vector<Tensor> clipByGlobalNorm(const std::vector<Tensor>& grads, float clipNorm) {
  optim::checkPositive("clipByGlobalNorm", "clipNorm", clipNorm);
  for (size_t i = 0; i < grads.size(); ++i)
    if (grads[i].defined())
      checkFloatTensor("clipByGlobalNorm", grads[i], "grads[" + std::to_string(i) + "]");
  std::vector<Tensor> out(grads.size());
  std::vector<Tensor> defined;
  tidy([&] {
    Tensor scale = clipNorm / maximum(globalNorm(grads), scalar(clipNorm));
    for (size_t i = 0; i < grads.size(); ++i)
      if (grads[i].defined()) {
        out[i] = mul(grads[i], scale);
        defined.push_back(out[i]);
      }
    return defined;  // survive the scope; undefined entries stay undefined
  });
  return out;
}

}  // namespace glint
