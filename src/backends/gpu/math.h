#pragma once
// The float and int math both GPU backends print into their shaders, written
// once in the IR: what GLSL ES 3.00 and WGSL lack (expm1, log1p, erf, atan2
// with IEEE's quadrants, floor division and modulo with the reference's
// rounding) and what they compute loosely (exp/log/sin/cos at NaN, 0 and inf;
// SwiftShader's exp(88.7) off by 3e-6, llvmpipe's log near 1 by 1e-7
// absolute; tanh and pow overflowing). Each call below is a call of the
// function of that name (exp_, ...), printed with its callees where used.
#include <initializer_list>
#include <string>

#include "src/backends/gpu/ir.h"
#include "src/backends/gpu/printer.h"

namespace glint::gpu {

E exp_(E x);
E log_(E x);
E expm1_(E x);
E log1p_(E x);
/// (sin x, cos x).
E sincos_(E x);
E tanh_(E x);
E sigmoid_(E x);
E erf_(E x);
E atan_(E x);
E atan2_(E y, E x);
E asin_(E x);
E acos_(E x);
E asinh_(E x);
E acosh_(E x);
E atanh_(E x);
E pow_(E a, E b);
E floorDiv_(E a, E b);
E fmod_(E a, E b);
E ifloorDiv_(E a, E b);
E imod_(E a, E b);
E ipow_(E a, E b);

/// The functions `names` ("exp_", "log1p_", ...) and what they call, printed
/// (for kernels still written as source text, which call them by name).
std::string mathFunctions(const Dialect& d, std::initializer_list<const char*> names);

}  // namespace glint::gpu
