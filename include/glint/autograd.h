#pragma once
// Tape autograd. While a gradient function runs, every kernel call is
// recorded; the gradients then run backwards, written with ops, on whatever
// backend is active. The backward pass is itself recorded by the tapes
// around it, so gradients nest: grad of grad, Hessian-vector products. A
// gradient that is not differentiable again (MaxPoolGrad, the RNN cells'
// gradients, lstmSequence) fails with an error naming it where a tape
// around needs its gradient; it never gives zeros.
#include <functional>
#include <vector>

#include "glint/tensor.h"

namespace glint {

using TensorFn = std::function<Tensor(const std::vector<Tensor>&)>;

struct ValueAndGrads {
  Tensor value;
  std::vector<Tensor> grads;  // one per x, same shape as x
};

/// d f(xs) / d xs. f's result must be a float tensor; `dy` (default ones)
/// weights its elements, so non-scalar results give vector-Jacobian products.
ValueAndGrads valueAndGrads(const TensorFn& f, const std::vector<Tensor>& xs,
                            const Tensor& dy = Tensor());
std::vector<Tensor> grads(const TensorFn& f, const std::vector<Tensor>& xs,
                          const Tensor& dy = Tensor());
/// Single-input forms.
Tensor grad(const std::function<Tensor(const Tensor&)>& f, const Tensor& x,
            const Tensor& dy = Tensor());
ValueAndGrads valueAndGrad(const std::function<Tensor(const Tensor&)>& f, const Tensor& x,
                           const Tensor& dy = Tensor());

struct VariableGrads {
  Tensor value;
  std::vector<Variable> variables;  // the trainable variables f used
  std::vector<Tensor> grads;        // parallel to `variables`
};
/// Gradients of a scalar f() with respect to `vars`, or (empty list) every
/// trainable variable that f read.
VariableGrads variableGrads(const std::function<Tensor()>& f,
                            const std::vector<Variable>& vars = {});

/// customGrad: f returns the value and how to map dy to input gradients.
struct CustomGradResult {
  Tensor value;
  std::function<std::vector<Tensor>(const Tensor& dy)> gradFunc;
};
/// Runs f on `inputs` without recording its internals; on a tape the result's
/// gradient is gradFunc's. For grad of grad, gradFunc's ops are recorded: it
/// is differentiable again where it computes from `inputs`, f's value and dy
/// (tensors f made along the way are constants there).
Tensor customGrad(const std::function<CustomGradResult(const std::vector<Tensor>&)>& f,
                  const std::vector<Tensor>& inputs);

}  // namespace glint
