// Slice-like kernels for the cpu backend: StridedSlice, StridedSliceGrad,
// Concat and Unpack move whole contiguous runs with memcpy; index math runs
// once per run, not per element. A run is the innermost sliced dimension
// together with every trailing dimension the slice takes whole.
#include <cstring>
#include <vector>

#include "glint/backend.h"
#include "src/backends/cpu/kernels.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::cpu {

namespace {

/// A strided slice seen as rows of items: each item is `run` contiguous
/// elements of x; a row is `rowLen` items `itemStep` elements apart; rows are
/// indexed by the dimensions before the row dimension (outerShape, with x
/// element strides outerStep), starting at x offset `base`.
struct SlicePlan {
  std::vector<int64_t> outerShape, outerStep;
  int64_t base = 0, rowLen = 1, itemStep = 0, run = 1;

  SlicePlan(const Shape& xShape, const std::vector<int64_t>& begin,
            const std::vector<int64_t>& strides, const Shape& size) {
    const int rank = static_cast<int>(xShape.size());
    std::vector<int64_t> xStrides = stridesOf(xShape);
    for (int d = 0; d < rank; ++d) base += begin[d] * xStrides[d];
    int d = rank;
    // Trailing dimensions taken whole are contiguous in x: fold them into the run.
    while (d > 0 && begin[d - 1] == 0 && strides[d - 1] == 1 && size[d - 1] == xShape[d - 1]) {
      run *= size[d - 1];
      --d;
    }
    if (d == 0) return;
    --d;  // the row dimension
    rowLen = size[d];
    itemStep = strides[d] * xStrides[d];
    if (strides[d] == 1) {  // its items are adjacent: one longer run
      run *= rowLen;
      rowLen = 1;
    }
    outerShape.assign(size.begin(), size.begin() + d);
    for (int k = 0; k < d; ++k) outerStep.push_back(strides[k] * xStrides[k]);
  }

  /// f(x offset of the row, index of the row) for every row, in order.
  template <class F>
  void forEachRow(F&& f) const {
    int64_t rows = 1;
    for (int64_t s : outerShape) rows *= s;
    if (rows == 0) return;
    std::vector<int64_t> index(outerShape.size(), 0);
    int64_t off = base;
    for (int64_t r = 0; r < rows; ++r) {
      f(off, r);
      for (int k = static_cast<int>(outerShape.size()) - 1; k >= 0; --k) {
        off += outerStep[k];
        if (++index[k] < outerShape[k]) break;
        off -= outerStep[k] * outerShape[k];
        index[k] = 0;
      }
    }
  }
};

/// Copies `items` runs of `run` elements of size `bytes`: src items `step` elements apart
/// (negative for reversed slices), dst packed; or the reverse direction when scatter.
template <bool scatter>
void copyItems(char* x, char* packed, int64_t items, int64_t step, int64_t run, size_t bytes) {
  const size_t runBytes = static_cast<size_t>(run) * bytes;
  if (runBytes == 0 || items == 0) return;  // empty tensors may have null buffers
  if (run == 1 && bytes == 4) {
    auto* xs = reinterpret_cast<uint32_t*>(x);
    auto* ps = reinterpret_cast<uint32_t*>(packed);
    for (int64_t i = 0; i < items; ++i) {
      if (scatter) xs[i * step] = ps[i];
      else ps[i] = xs[i * step];
    }
    return;
  }
  for (int64_t i = 0; i < items; ++i) {
    char* xi = x + i * step * static_cast<int64_t>(bytes);
    char* pi = packed + i * static_cast<int64_t>(runBytes);
    if (scatter) std::memcpy(xi, pi, runBytes);
    else std::memcpy(pi, xi, runBytes);
  }
}

void stridedSliceKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  Tensor& out = args.outputs[0];
  const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(args.attrs);
  SlicePlan plan(x.shape(), slice.begin, slice.strides, out.shape());
  const size_t bytes = byteSize(x.dtype());
  char* px = hostData<char>(x);
  char* po = hostData<char>(out);
  const int64_t rowElems = plan.rowLen * plan.run;
  plan.forEachRow([&](int64_t off, int64_t r) {
    copyItems<false>(px + off * static_cast<int64_t>(bytes), po + r * rowElems * bytes, plan.rowLen,
                     plan.itemStep, plan.run, bytes);
  });
}

/// Zeros of the input shape with dy written where the slice read.
void stridedSliceGradKernel(KernelArgs& args) {
  const Tensor& dy = args.inputs[0];
  Tensor& out = args.outputs[0];
  const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(args.attrs);
  SlicePlan plan(out.shape(), slice.begin, slice.strides, dy.shape());
  const size_t bytes = byteSize(dy.dtype());
  char* pdy = hostData<char>(dy);
  char* po = hostData<char>(out);
  std::memset(po, 0, static_cast<size_t>(out.size()) * bytes);
  const int64_t rowElems = plan.rowLen * plan.run;
  plan.forEachRow([&](int64_t off, int64_t r) {
    copyItems<true>(po + off * static_cast<int64_t>(bytes), pdy + r * rowElems * bytes, plan.rowLen,
                    plan.itemStep, plan.run, bytes);
  });
}

/// Each output row (the dimensions before `axis`) is the inputs' rows in turn.
void concatKernel(KernelArgs& args) {
  const int axis = static_cast<int>(kernel_attrs::Axis::read(args.attrs).axis);
  Tensor& out = args.outputs[0];
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= out.shape()[d];
  if (rows == 0) return;
  const size_t bytes = byteSize(out.dtype());
  char* po = hostData<char>(out);
  for (int64_t r = 0; r < rows; ++r)
    for (const Tensor& x : args.inputs) {
      size_t rowBytes = static_cast<size_t>(x.size() / rows) * bytes;
      if (rowBytes == 0) continue;
      std::memcpy(po, hostData<char>(x) + r * rowBytes, rowBytes);
      po += rowBytes;
    }
}

/// x viewed as [outer, n, inner]; output k is x[:, k, :].
void unpackKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const int axis = static_cast<int>(kernel_attrs::Axis::read(args.attrs).axis);
  int64_t outer = 1, inner = 1, n = x.shape()[axis];
  for (int d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  const size_t rowBytes = static_cast<size_t>(inner) * byteSize(x.dtype());
  if (rowBytes == 0) return;
  const char* px = hostData<char>(x);
  for (int64_t k = 0; k < n; ++k) {
    char* po = hostData<char>(args.outputs[k]);
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(po + o * rowBytes, px + (o * n + k) * rowBytes, rowBytes);
  }
}

}  // namespace

void registerSliceKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "StridedSlice", backend, stridedSliceKernel);
  GLINT_REGISTER(registerKernel, "StridedSliceGrad", backend, stridedSliceGradKernel);
  GLINT_REGISTER(registerKernel, "Concat", backend, concatKernel);
  GLINT_REGISTER(registerKernel, "Unpack", backend, unpackKernel);
}

}  // namespace glint::cpu
