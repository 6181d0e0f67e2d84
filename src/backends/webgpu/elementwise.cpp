// Element-wise kernels: the shared table (src/backends/gpu/elementwise.cpp)
// printed as WGSL, one value per output element, inputs broadcast through
// generated index maps; one dispatch each. Scalars that may change between
// calls (LeakyRelu's alpha, ClipByValue's bounds) go through u_params, so
// that they do not compile new pipelines.
#include "src/backends/gpu/elementwise.h"

#include "src/backends/webgpu/kernels.h"
#include "src/backends/webgpu/wgsl.h"

namespace glint::webgpu {

namespace {

/// Index maps `names[k]` of input k broadcast to `out`, over out's dims merged
/// where every input broadcasts alike, so fewer divisions per element
/// ([2,3,4] + [3,4] indexes as [2,12] + [12]; same shapes need none).
std::string broadcastIndices(const std::vector<std::string>& names,
                             const std::vector<Tensor>& inputs, const Shape& out) {
  size_t n = names.size();
  std::vector<Shape> ins(n);
  Shape merged;
  std::vector<bool> last;  // per input: does the last merged dim broadcast?
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    std::vector<bool> stretched(n);
    for (size_t k = 0; k < n; ++k) {
      const Shape& in = inputs[k].shape();
      size_t lead = out.size() - in.size();
      stretched[k] = d < lead || in[d - lead] == 1;
    }
    if (!merged.empty() && stretched == last) {
      merged.back() *= out[d];
      for (size_t k = 0; k < n; ++k) ins[k].back() *= stretched[k] ? 1 : out[d];
    } else {
      merged.push_back(out[d]);
      for (size_t k = 0; k < n; ++k) ins[k].push_back(stretched[k] ? 1 : out[d]);
      last = stretched;
    }
  }
  std::string s;
  for (size_t k = 0; k < n; ++k) s += broadcastIndex(names[k], ins[k], merged);
  return s;
}

void run(const gpu::ElementwiseKernel& k, KernelArgs& a) {
  static const std::vector<std::string> kIndex[] = {{""}, {"ia", "ib"}, {"ic", "ia", "ib"}};
  const std::vector<std::string>& names = kIndex[k.arity - 1];
  const Tensor& out = a.outputs[0];
  std::string s = k.arity > 1 ? broadcastIndices(names, a.inputs, out.shape()) : "";
  std::vector<DType> dtypes;
  for (const Tensor& in : a.inputs) dtypes.push_back(in.dtype());
  std::vector<float> params;
  s += gpu::valueSource(gpu::wgsl(), k, dtypes, out.dtype(), a.attrs, names, &params);
  runElementwise(gpuBackend(a), s, a.inputs, a.outputs[0], params);
}

}  // namespace

void registerElementwiseKernels() {
  gpu::elementwiseKernels([](const char* name, gpu::ElementwiseKernel k) {
    registerKernel(name, "webgpu", [k](KernelArgs& a) { run(k, a); });
  });
}

}  // namespace glint::webgpu
