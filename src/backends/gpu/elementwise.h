#pragma once
// The element-wise kernels of both GPU backends, written once: each is an
// expression of its inputs (x for one, a and b for two; Select's c, a, b).
// A backend registers every one with its own runner (how inputs are read,
// broadcast and written is the backend's) and prints value() in its dialect.
#include <functional>
#include <string>
#include <vector>

#include "glint/attrs.h"
#include "glint/dtype.h"
#include "glint/tensor.h"
#include "src/backends/gpu/ir.h"
#include "src/backends/gpu/printer.h"

namespace glint::gpu {

/// What a rule sees: its inputs as IR values, their dtype, the output's.
struct ElementwiseArgs {
  std::vector<E> in;
  DType dtype;  // of input 0 (Select: of its a and b)
  DType out;
  const Attrs& attrs;
  bool isInt() const { return dtype == DType::int32; }
};

/// An invalid E: the kernel has no expression for these dtypes.
using ElementwiseRule = E (*)(const ElementwiseArgs&);

struct ElementwiseKernel {
  const char* name;
  int arity;
  ElementwiseRule rule;
};

/// Calls `add` for every element-wise kernel this build holds (GLINT_KERNELS
/// leaves the others out at compile time).
void elementwiseKernels(const std::function<void(const char*, ElementwiseKernel)>& add);

/// The zero of a dtype (0.0, 0, false).
E zero(DType d);

/// The printed definition of `T value(int i)` (and the math functions it
/// calls): input k read as `in<k>(<indexNames[k]>(i))` (`in<k>(i)` for an
/// empty name), the kernel's expression returned. Printed once per program
/// (printCached); `params` receives the parameters' values (webgpu's u_params).
std::string valueSource(const Dialect& d, const ElementwiseKernel& k,
                        const std::vector<DType>& inputs, DType out, const Attrs& attrs,
                        const std::vector<std::string>& indexNames,
                        std::vector<float>* params = nullptr);

/// The index maps of the inputs broadcast to the output (ia, ib; Select's
/// ic, ia, ib; none for one input; their strides i32 parameters where the
/// dialect reads sizes so, gl) and
/// value(), for a call with these tensors: what a backend's element program
/// needs besides its bindings. `params` receives every parameter's word
/// (paramWord), to bind as the program's parameter array.
std::string elementwiseSource(const Dialect& d, const ElementwiseKernel& k,
                              const std::vector<Tensor>& inputs, const Tensor& out,
                              const Attrs& attrs, std::vector<float>& params);

/// The kernel's expression as `T <name>(T a, T b)` of float32 operands (gl's
/// whole-texel path applies it to each of a texel's 4 values).
std::string floatFunctionSource(const Dialect& d, const ElementwiseKernel& k, const Attrs& attrs,
                                const std::string& name, std::vector<float>* params = nullptr);

/// A fused activation of _FusedMatMul and the convolutions ("linear", "relu",
/// "relu6", "elu", "leakyrelu" with `alpha`, "sigmoid", "tanh") of x; NaN
/// stays NaN.
E fusedActivation(const std::string& name, E x, double alpha);
/// `T <fnName>(T x)` applying it, printed with the math it calls (cached).
std::string activationSource(const Dialect& d, const std::string& name, double alpha,
                             const std::string& fnName);

}  // namespace glint::gpu
