// Reductions and softmax for the cpu backend. x is walked once in memory
// order as rows of its innermost (collapsed) dimension: a reduced row folds
// into one accumulator (row sums), a kept row adds element-wise into a row of
// accumulators (column sums); the output offset moves once per row. Semantics
// mirror src/backends/reference/reduction.cpp (float sums in double, int32
// wrap-around, NaN wins max/min).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "glint/backend.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/vecmath_util.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"
#include "src/geometry/mean_scale.h"
#include "src/geometry/reduction_geometry.h"

namespace glint::cpu {

namespace {

/// x's dims with size-1 dims dropped and neighbours of the same kind merged.
struct ReducePlan {
  std::vector<int64_t> dims, outStrides;  // outStrides: 0 on reduced dims
  bool innerReduced = false;
  int64_t rowLen = 1, rows = 1;

  ReducePlan(const Shape& shape, const std::vector<int64_t>& axes) {
    std::vector<bool> reduced;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (shape[d] == 1) continue;
      bool r = std::find(axes.begin(), axes.end(), d) != axes.end();
      if (!reduced.empty() && reduced.back() == r) {
        dims.back() *= shape[d];
      } else {
        dims.push_back(shape[d]);
        reduced.push_back(r);
      }
    }
    if (dims.empty()) {
      dims.push_back(1);
      reduced.push_back(false);
    }
    outStrides.assign(dims.size(), 0);
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1, s = 1; d >= 0; --d)
      if (!reduced[d]) {
        outStrides[d] = s;
        s *= dims[d];
      }
    innerReduced = reduced.back();
    rowLen = dims.back();
    for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
  }

  /// Calls row(x offset, output offset) for each innermost row, in memory order.
  template <class Row>
  void forEachRow(Row&& row) const {
    int64_t outer = static_cast<int64_t>(dims.size()) - 1;
    std::vector<int64_t> index(static_cast<size_t>(outer), 0);
    int64_t o = 0;
    for (int64_t r = 0; r < rows; ++r) {
      row(r * rowLen, o);
      for (int64_t d = outer - 1; d >= 0; --d) {
        o += outStrides[d];
        if (++index[d] < dims[d]) break;
        o -= outStrides[d] * dims[d];
        index[d] = 0;
      }
    }
  }
};

/// A fold: step(acc, value) and combine(acc, acc) agree, so partial
/// accumulators may be merged in any grouping.
template <class T_, class Acc_, class Step>
struct Fold {
  using T = T_;
  using Acc = Acc_;
  Acc init;
  Step step;
};
template <class T, class Acc, class Step>
Fold<T, Acc, Step> makeFold(Acc init, Step step) {
  return {init, step};
}

/// Folds a contiguous row with 8 independent partial accumulators (vectorisable).
template <class F>
typename F::Acc foldRow(const F& f, const typename F::T* x, int64_t n) {
  using Acc = typename F::Acc;
  constexpr int kLanes = 8;
  Acc part[kLanes];
  for (auto& p : part) p = f.init;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) part[j] = f.step(part[j], static_cast<Acc>(x[i + j]));
  Acc acc = f.init;
  for (int j = 0; j < kLanes; ++j) acc = f.step(acc, part[j]);
  for (; i < n; ++i) acc = f.step(acc, static_cast<Acc>(x[i]));
  return acc;
}

/// Rows that fold into the output element-wise are at least this long
/// (several short rows side by side) so the loop vectorises.
constexpr int64_t kWideRow = 256;

/// acc[j] folds x[r * len + j] over rows r, for short rows: consecutive
/// rows are contiguous, so `per` rows at a time fold into a wide row of
/// accumulators, merged into acc at the end.
template <class F>
void columnFold(const F& f, const typename F::T* x, int64_t rows, int64_t len,
                typename F::Acc* acc) {
  using Acc = typename F::Acc;
  const int64_t per = kWideRow / len, wide = per * len;
  Acc part[kWideRow];
  std::fill(part, part + wide, f.init);
  int64_t r = 0;
  for (; r + per <= rows; r += per, x += wide)
    for (int64_t i = 0; i < wide; ++i) part[i] = f.step(part[i], static_cast<Acc>(x[i]));
  for (; r < rows; ++r, x += len)
    for (int64_t i = 0; i < len; ++i) part[i] = f.step(part[i], static_cast<Acc>(x[i]));
  for (int64_t i = 0; i < wide; ++i) acc[i % len] = f.step(acc[i % len], part[i]);
}

template <class F>
void reduce(KernelArgs& args, const F& f) {
  using T = typename F::T;
  using Acc = typename F::Acc;
  const Tensor& x = args.inputs[0];
  Tensor& out = args.outputs[0];
  T* po = hostData<T>(out);
  std::vector<Acc> acc(static_cast<size_t>(out.size()), f.init);
  if (x.size() > 0) {
    const T* px = hostData<T>(x);
    ReducePlan plan(x.shape(), kernel_attrs::Reduce::read(args.attrs).axes);
    Acc* pa = acc.data();
    int64_t len = plan.rowLen;
    if (!plan.innerReduced && plan.dims.size() == 2 && len <= kWideRow / 4) {
      columnFold(f, px, plan.rows, len, pa);
    } else if (plan.innerReduced) {
      plan.forEachRow(
          [&](int64_t xo, int64_t o) { pa[o] = f.step(pa[o], foldRow(f, px + xo, len)); });
    } else {
      plan.forEachRow([&](int64_t xo, int64_t o) {
        const T* row = px + xo;
        Acc* dst = pa + o;
        for (int64_t i = 0; i < len; ++i) dst[i] = f.step(dst[i], static_cast<Acc>(row[i]));
      });
    }
  }
  for (int64_t i = 0, n = out.size(); i < n; ++i) po[i] = static_cast<T>(acc[i]);
}

/// Index of the first element along the axis that no later one strictly
/// beats (NaN never beats, and a leading NaN is never beaten), as the reference.
template <class T, class Better>
void argKernel(KernelArgs& args, Better better) {
  const Tensor& x = args.inputs[0];
  AxisRows p(x.shape(), kernel_attrs::Axis::read(args.attrs).axis);
  const T* px = hostData<T>(x);
  int32_t* po = hostData<int32_t>(args.outputs[0]);
  if (p.len == 0) return std::fill(po, po + p.outer * p.inner, 0);
  std::vector<T> bestVal(static_cast<size_t>(p.inner));
  for (int64_t o = 0; o < p.outer; ++o) {
    const T* block = px + o * p.len * p.inner;
    int32_t* dst = po + o * p.inner;
    if (p.inner == 1) {
      T best = block[0];
      int32_t bi = 0;
      for (int64_t i = 1; i < p.len; ++i)
        if (better(block[i], best)) {
          best = block[i];
          bi = static_cast<int32_t>(i);
        }
      dst[0] = bi;
      continue;
    }
    std::copy(block, block + p.inner, bestVal.begin());
    std::fill(dst, dst + p.inner, 0);
    for (int64_t i = 1; i < p.len; ++i) {
      const T* row = block + i * p.inner;
      for (int64_t k = 0; k < p.inner; ++k) {
        bool b = better(row[k], bestVal[k]);
        bestVal[k] = b ? row[k] : bestVal[k];
        dst[k] = b ? static_cast<int32_t>(i) : dst[k];
      }
    }
  }
}

template <class F>
void dispatchNumeric(DType dtype, F&& f) {
  switch (dtype) {
    case DType::float32:
      f(float{});
      return;
    case DType::int32:
      f(int32_t{});
      return;
    case DType::boolean:
      f(uint8_t{});
      return;
  }
}

template <class T>
T lowest() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}
template <class T>
T highest() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::max();
}

/// Softmax along one axis: max (NaN ignored, like std::max in the reference),
/// exp of the shifted values, their sum in double, then one scale per row.
void softmaxKernel(KernelArgs& a) {
  const Tensor& x = a.inputs[0];
  AxisRows p(x.shape(), kernel_attrs::Axis::read(a.attrs).axis);
  const float* px = hostData<float>(x);
  float* po = hostData<float>(a.outputs[0]);
  if (p.len == 0) return;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  if (p.inner == 1) {
    for (int64_t o = 0; o < p.outer; ++o) {
      const float* row = px + o * p.len;
      float* dst = po + o * p.len;
      float m = kNegInf;
      for (int64_t i = 0; i < p.len; ++i) m = m < row[i] ? row[i] : m;
      for (int64_t i = 0; i < p.len; ++i) dst[i] = vexp(row[i] - m);
      auto sum = makeFold<float, double>(0.0, [](double s, double v) { return s + v; });
      float scale = static_cast<float>(1.0 / foldRow(sum, dst, p.len));
      for (int64_t i = 0; i < p.len; ++i) dst[i] *= scale;
    }
    return;
  }
  std::vector<float> m(static_cast<size_t>(p.inner));
  std::vector<double> total(static_cast<size_t>(p.inner));
  for (int64_t o = 0; o < p.outer; ++o) {
    const float* block = px + o * p.len * p.inner;
    float* dst = po + o * p.len * p.inner;
    std::fill(m.begin(), m.end(), kNegInf);
    std::fill(total.begin(), total.end(), 0.0);
    for (int64_t i = 0; i < p.len; ++i) {
      const float* row = block + i * p.inner;
      for (int64_t k = 0; k < p.inner; ++k) m[k] = m[k] < row[k] ? row[k] : m[k];
    }
    for (int64_t i = 0; i < p.len; ++i) {
      const float* row = block + i * p.inner;
      float* out = dst + i * p.inner;
      for (int64_t k = 0; k < p.inner; ++k) out[k] = vexp(row[k] - m[k]);
      for (int64_t k = 0; k < p.inner; ++k) total[k] += out[k];
    }
    for (int64_t k = 0; k < p.inner; ++k) m[k] = static_cast<float>(1.0 / total[k]);
    for (int64_t i = 0; i < p.len; ++i) {
      float* out = dst + i * p.inner;
      for (int64_t k = 0; k < p.inner; ++k) out[k] *= m[k];
    }
  }
}

}  // namespace

void registerReductionKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "Sum", backend, [](KernelArgs& a) {
    if (a.inputs[0].dtype() == DType::float32)
      reduce(a, makeFold<float, double>(0.0, [](double s, double v) { return s + v; }));
    else reduce(a, makeFold<int32_t, uint32_t>(0u, [](uint32_t s, uint32_t v) { return s + v; }));
  });
  GLINT_REGISTER(
      registerKernel, "Mean", backend, [](KernelArgs& a) {  // float32 (the op casts int32)
        reduce(a, makeFold<float, double>(0.0, [](double s, double v) { return s + v; }));
        const float scale = static_cast<float>(
            meanScale(a.inputs[0].shape(), kernel_attrs::Reduce::read(a.attrs).axes));
        Tensor& out = a.outputs[0];
        float* po = hostData<float>(out);
        for (int64_t i = 0; i < out.size(); ++i) po[i] *= scale;
      });
  GLINT_REGISTER(registerKernel, "Prod", backend, [](KernelArgs& a) {
    if (a.inputs[0].dtype() == DType::float32)
      reduce(a, makeFold<float, double>(1.0, [](double s, double v) { return s * v; }));
    else reduce(a, makeFold<int32_t, uint32_t>(1u, [](uint32_t s, uint32_t v) { return s * v; }));
  });
  GLINT_REGISTER(registerKernel, "Any", backend, [](KernelArgs& a) {
    reduce(a, makeFold<uint8_t, uint8_t>(
                  0, [](uint8_t s, uint8_t v) { return uint8_t(s | (v != 0)); }));
  });
  GLINT_REGISTER(registerKernel, "All", backend, [](KernelArgs& a) {
    reduce(a, makeFold<uint8_t, uint8_t>(
                  1, [](uint8_t s, uint8_t v) { return uint8_t(s & (v != 0)); }));
  });
  // NaN wins (it propagates); an empty window gives -inf / +inf or the int32 limits.
  GLINT_REGISTER(registerKernel, "Max", backend, [](KernelArgs& a) {
    dispatchNumeric(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      reduce(a, makeFold<T, T>(lowest<T>(), [](T s, T v) { return (v != v || v > s) ? v : s; }));
    });
  });
  GLINT_REGISTER(registerKernel, "Min", backend, [](KernelArgs& a) {
    dispatchNumeric(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      reduce(a, makeFold<T, T>(highest<T>(), [](T s, T v) { return (v != v || v < s) ? v : s; }));
    });
  });
  GLINT_REGISTER(registerKernel, "ArgMax", backend, [](KernelArgs& a) {
    dispatchNumeric(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      argKernel<T>(a, [](T v, T best) { return v > best; });
    });
  });
  GLINT_REGISTER(registerKernel, "ArgMin", backend, [](KernelArgs& a) {
    dispatchNumeric(a.inputs[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      argKernel<T>(a, [](T v, T best) { return v < best; });
    });
  });
  GLINT_REGISTER(registerKernel, "Softmax", backend, softmaxKernel);
}

}  // namespace glint::cpu
