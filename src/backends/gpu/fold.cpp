#include "src/backends/gpu/fold.h"

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include "glint/error.h"

namespace glint::gpu {

namespace {

/// The fold's four functions with their signatures; `build` fills the
/// bodies through the arguments' references.
Fold frame(Type element, Type acc, Type part, Type out, E init) {
  return Fold{acc,
              part,
              std::move(init),
              Fn("fstep", acc, {{"acc", acc}, {"v", element}}),
              Fn("fdone", part, {{"acc", acc}}),
              Fn("fmerge", part, {{"a", part}, {"b", part}}),
              Fn("fresult", out, {{"s", part}})};
}

/// Float32 sums with Kahan compensation: acc.y carries the low-order bits
/// each addition lost, so a long window stays close to the reference's
/// double accumulation; none once the sum is infinite (inf - inf would make
/// it NaN).
Fold floatSum() {
  Fold f = frame(Type::f32, Type::vec2f, Type::f32, Type::f32, vec2(E(0.0), E(0.0)));
  E acc = f.step.arg(0), v = f.step.arg(1);
  E y = f.step.let("y", v - acc.y());
  E s = f.step.let("s", acc.x() + y);
  f.step.ret(vec2(s, select(isinf(s), E(0.0), (s - acc.x()) - y)));
  f.done.ret(f.done.arg(0).x());
  f.merge.ret(f.merge.arg(0) + f.merge.arg(1));
  f.result.ret(f.result.arg(0));
  return f;
}

/// Int32 sums and products wrap: they run on the bits as u32, where
/// overflow is defined in both languages.
Fold wrapping(bool product) {
  Fold f = frame(Type::i32, Type::u32, Type::u32, Type::i32, litU(product ? 1 : 0));
  E acc = f.step.arg(0), v = bitcast(Type::u32, f.step.arg(1));
  f.step.ret(product ? acc * v : acc + v);
  f.done.ret(f.done.arg(0));
  E a = f.merge.arg(0), b = f.merge.arg(1);
  f.merge.ret(product ? a * b : a + b);
  f.result.ret(bitcast(Type::i32, f.result.arg(0)));
  return f;
}

Fold floatProduct() {
  Fold f = frame(Type::f32, Type::f32, Type::f32, Type::f32, E(1.0));
  f.step.ret(f.step.arg(0) * f.step.arg(1));
  f.done.ret(f.done.arg(0));
  f.merge.ret(f.merge.arg(0) * f.merge.arg(1));
  f.result.ret(f.result.arg(0));
  return f;
}

/// Max or Min; over floats a NaN wins (it propagates), as in the reference.
Fold extreme(Type t, bool isMax) {
  E init = t == Type::i32 ? (isMax ? E(std::numeric_limits<int32_t>::min())
                                   : E(std::numeric_limits<int32_t>::max()))
                          : E(isMax ? -INFINITY : INFINITY);
  Fold f = frame(t, t, t, t, init);
  // b replaces a: strictly beyond it, or a NaN.
  auto beyond = [&](const E& a, const E& b) {
    E cmp = isMax ? b > a : b < a;
    return select(t == Type::f32 ? isnan(b) || cmp : cmp, b, a);
  };
  f.step.ret(beyond(f.step.arg(0), f.step.arg(1)));
  f.done.ret(f.done.arg(0));
  f.merge.ret(beyond(f.merge.arg(0), f.merge.arg(1)));
  f.result.ret(f.result.arg(0));
  return f;
}

/// Any or All over bools, on u32 words (0 or 1), which both languages can
/// combine in workgroup memory.
Fold logic(bool any) {
  Fold f = frame(Type::boolean, Type::u32, Type::u32, Type::boolean, litU(any ? 0 : 1));
  E bit = select(f.step.arg(1), litU(1), litU(0));
  f.step.ret(any ? f.step.arg(0) | bit : f.step.arg(0) & bit);
  f.done.ret(f.done.arg(0));
  E a = f.merge.arg(0), b = f.merge.arg(1);
  f.merge.ret(any ? a | b : a & b);
  f.result.ret(f.result.arg(0) != litU(0));
  return f;
}

Fold build(Reduction r, DType dtype) {
  const bool isInt = dtype == DType::int32;
  switch (r) {
    case Reduction::sum:
      if (dtype != DType::boolean) return isInt ? wrapping(false) : floatSum();
      break;
    case Reduction::prod:
      if (dtype != DType::boolean) return isInt ? wrapping(true) : floatProduct();
      break;
    case Reduction::max:
    case Reduction::min:
      if (dtype != DType::boolean) return extreme(irType(dtype), r == Reduction::max);
      break;
    case Reduction::any:
    case Reduction::all:
      if (dtype == DType::boolean) return logic(r == Reduction::any);
      break;
  }
  fail("gpu fold", "no fold of reduction ", static_cast<int>(r), " over ", dtypeName(dtype));
}

}  // namespace

const Fold& fold(Reduction r, DType dtype) {
  // Built on first use and kept (a map's elements stay put): kernels print
  // the functions by pointer.
  static std::mutex mu;
  static std::map<std::pair<Reduction, DType>, Fold> folds;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_pair(r, dtype);
  auto it = folds.find(key);
  if (it == folds.end()) it = folds.emplace(key, build(r, dtype)).first;
  return it->second;
}

Fold meanFold(double scale) {
  Fold f = floatSum();
  f.result = Fn("fresult", Type::f32, {{"s", Type::f32}});
  f.result.ret(std::isnan(scale) ? E(NAN) : f.result.arg(0) * E(static_cast<float>(scale)));
  return f;
}

}  // namespace glint::gpu
