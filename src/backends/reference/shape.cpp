// Shape and indexing kernels as plain index loops over the output.
#include <algorithm>
#include <type_traits>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::reference {

namespace {

/// x -> out[i] = x[perm-mapped i]: out dim d walks x dim perm[d].
void transposeKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const std::vector<int64_t>& perm = args.attrs.ints("perm");
  std::vector<int64_t> xStrides = stridesOf(x.shape()), strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) strides[d] = xStrides[perm[d]];
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    T* po = hostData<T>(args.outputs[0]);
    int64_t o = 0;
    forEachIndex(args.outputs[0].shape(),
                 [&](const std::vector<int64_t>& i) { po[o++] = px[offsetOf(i, strides)]; });
  });
}

/// Each output row (the dimensions before `axis`) is the inputs' rows in turn.
void concatKernel(KernelArgs& args) {
  int axis = static_cast<int>(kernel_attrs::Axis::read(args.attrs).axis);
  const Shape& outShape = args.outputs[0].shape();
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= outShape[d];
  dispatchDType(args.outputs[0].dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = hostData<T>(args.outputs[0]);
    for (int64_t r = 0; r < rows; ++r) {
      for (const Tensor& x : args.inputs) {
        int64_t row = rows == 0 ? 0 : x.size() / rows;
        const T* px = hostData<T>(x) + r * row;
        for (int64_t k = 0; k < row; ++k) *po++ = px[k];
      }
    }
  });
}

/// Offset into x of output index i: begin + i * stride per dimension.
int64_t slicedOffset(const std::vector<int64_t>& i, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& strides, const std::vector<int64_t>& xStrides) {
  int64_t off = 0;
  for (size_t d = 0; d < i.size(); ++d) off += (begin[d] + i[d] * strides[d]) * xStrides[d];
  return off;
}

void stridedSliceKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(args.attrs);
  const std::vector<int64_t>& begin = slice.begin;
  const std::vector<int64_t>& strides = slice.strides;
  std::vector<int64_t> xStrides = stridesOf(x.shape());
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    T* po = hostData<T>(args.outputs[0]);
    int64_t o = 0;
    forEachIndex(args.outputs[0].shape(), [&](const std::vector<int64_t>& i) {
      po[o++] = px[slicedOffset(i, begin, strides, xStrides)];
    });
  });
}

/// The adjoint: zeros of the input shape with dy written where the slice read.
void stridedSliceGradKernel(KernelArgs& args) {
  const Tensor& dy = args.inputs[0];
  Tensor& out = args.outputs[0];
  const kernel_attrs::StridedSlice slice = kernel_attrs::StridedSlice::read(args.attrs);
  const std::vector<int64_t>& begin = slice.begin;
  const std::vector<int64_t>& strides = slice.strides;
  std::vector<int64_t> outStrides = stridesOf(out.shape());
  dispatchDType(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pdy = hostData<T>(dy);
    T* po = hostData<T>(out);
    std::fill(po, po + out.size(), T{});
    int64_t k = 0;
    forEachIndex(dy.shape(), [&](const std::vector<int64_t>& i) {
      po[slicedOffset(i, begin, strides, outStrides)] = pdy[k++];
    });
  });
}

void padKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  Tensor& out = args.outputs[0];
  const auto& paddings = args.attrs.ints("paddings");
  double value = args.attrs.f("constantValue");
  std::vector<int64_t> begin(x.rank()), ones(x.rank(), 1);
  for (int d = 0; d < x.rank(); ++d) begin[d] = paddings[2 * d];
  std::vector<int64_t> outStrides = stridesOf(out.shape());
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    T* po = hostData<T>(out);
    T fillValue = std::is_same_v<T, uint8_t> ? T(value != 0) : static_cast<T>(value);
    std::fill(po, po + out.size(), fillValue);
    int64_t k = 0;
    forEachIndex(x.shape(), [&](const std::vector<int64_t>& i) {
      po[slicedOffset(i, begin, ones, outStrides)] = px[k++];
    });
  });
}

void tileKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Shape& xShape = x.shape();
  std::vector<int64_t> xStrides = stridesOf(xShape);
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    T* po = hostData<T>(args.outputs[0]);
    int64_t o = 0;
    // A non-empty output implies every x dimension is non-zero.
    forEachIndex(args.outputs[0].shape(), [&](const std::vector<int64_t>& i) {
      int64_t off = 0;
      for (size_t d = 0; d < i.size(); ++d) off += (i[d] % xShape[d]) * xStrides[d];
      po[o++] = px[off];
    });
  });
}

/// x viewed as [outer, n, inner]; out as [outer, indices, inner]. Indices
/// outside [0, n) give zeros.
void gatherKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const int32_t* idx = hostData<int32_t>(args.inputs[1]);
  int64_t m = args.inputs[1].size();
  int axis = static_cast<int>(kernel_attrs::Axis::read(args.attrs).axis);
  int64_t outer = 1, inner = 1, n = x.shape()[axis];
  for (int d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    T* po = hostData<T>(args.outputs[0]);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < m; ++j) {
        int64_t row = idx[j];
        bool valid = row >= 0 && row < n;
        for (int64_t k = 0; k < inner; ++k) *po++ = valid ? px[(o * n + row) * inner + k] : T{};
      }
  });
}

/// Rows of x (one per id) added into out[id]; ids outside [0, numSegments)
/// are dropped. Accumulates in double for the oracle's accuracy.
void unsortedSegmentSumKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const int32_t* ids = hostData<int32_t>(args.inputs[1]);
  int64_t numIds = args.inputs[1].size();
  int64_t segments = args.attrs.i("numSegments");
  Tensor& out = args.outputs[0];
  int64_t inner = segments == 0 ? 0 : out.size() / segments;
  std::vector<double> acc(static_cast<size_t>(out.size()), 0.0);
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    for (int64_t j = 0; j < numIds; ++j) {
      int64_t s = ids[j];
      if (s < 0 || s >= segments) continue;
      for (int64_t k = 0; k < inner; ++k) acc[s * inner + k] += px[j * inner + k];
    }
    T* po = hostData<T>(out);
    for (size_t i = 0; i < acc.size(); ++i) po[i] = static_cast<T>(acc[i]);
  });
}

void oneHotKernel(KernelArgs& args) {
  const int32_t* idx = hostData<int32_t>(args.inputs[0]);
  int64_t n = args.inputs[0].size();
  int64_t depth = args.attrs.i("depth");
  float on = static_cast<float>(args.attrs.f("onValue"));
  float off = static_cast<float>(args.attrs.f("offValue"));
  float* po = hostData<float>(args.outputs[0]);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t d = 0; d < depth; ++d) *po++ = idx[j] == d ? on : off;
}

}  // namespace

void registerShapeKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "Transpose", backend, transposeKernel);
  GLINT_REGISTER(registerKernel, "Concat", backend, concatKernel);
  GLINT_REGISTER(registerKernel, "StridedSlice", backend, stridedSliceKernel);
  GLINT_REGISTER(registerKernel, "StridedSliceGrad", backend, stridedSliceGradKernel);
  GLINT_REGISTER(registerKernel, "PadV2", backend, padKernel);
  GLINT_REGISTER(registerKernel, "Tile", backend, tileKernel);
  GLINT_REGISTER(registerKernel, "GatherV2", backend, gatherKernel);
  GLINT_REGISTER(registerKernel, "UnsortedSegmentSum", backend, unsortedSegmentSumKernel);
  GLINT_REGISTER(registerKernel, "OneHot", backend, oneHotKernel);
}

}  // namespace glint::reference
