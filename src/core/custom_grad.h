#pragma once
// customGrad for the library's own ops whose gradFunc reads values their f
// computed without recording (e.g. lstmSequence's per-step trace): such a
// gradient is right, but not differentiable again. Where a tape around
// records the backward pass (grad of grad), it fails naming `op`, rather
// than giving second-order gradients that miss those paths.
#include <string>

#include "glint/autograd.h"

namespace glint {

Tensor firstOrderCustomGrad(const std::string& op,
                            const std::function<CustomGradResult(const std::vector<Tensor>&)>& f,
                            const std::vector<Tensor>& inputs);

}  // namespace glint
