#include "src/backends/gpu/index.h"

namespace glint::gpu {

namespace {

E num(int64_t v) { return E(static_cast<int>(v)); }

}  // namespace

Fn broadcastIndex(const std::string& name, const Shape& in, const Shape& out,
                  bool stridesAsParams) {
  auto strideOf = [&](const char* kind, size_t d, int64_t v) {
    return stridesAsParams ? iparam(name + kind + std::to_string(d), v) : num(v);
  };
  Fn f(name, Type::i32, {{"i0", Type::i32}});
  if (shapeSize(in) <= 1) {
    f.ret(0);
    return f;
  }
  if (in == out) {
    f.ret(f.arg(0));
    return f;
  }
  std::vector<int64_t> outStrides = stridesOf(out);
  std::vector<int64_t> inStrides = stridesOf(in);
  size_t lead = out.size() - in.size();
  E rest = f.arg(0);
  E r = num(0);
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t stride = d >= lead && in[d - lead] != 1 ? inStrides[d - lead] : 0;
    if (d + 1 == out.size()) {
      // The last dim's stride is 1 wherever it does not broadcast.
      if (stride) r = r + rest;
    } else {
      E outStride = strideOf("_o", d, outStrides[d]);
      E q = f.let("q" + std::to_string(d), idiv(rest, outStride));
      rest = f.let("i" + std::to_string(d + 1), rest - q * outStride);
      if (stride) r = r + q * strideOf("_s", d, stride);
    }
  }
  f.ret(r);
  return f;
}

std::vector<Fn> broadcastIndices(const std::vector<std::string>& names,
                                 const std::vector<Shape>& inputs, const Shape& out,
                                 bool stridesAsParams) {
  size_t n = names.size();
  std::vector<Shape> ins(n);
  Shape merged;
  std::vector<bool> last;  // per input: does the last merged dim broadcast?
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    std::vector<bool> stretched(n);
    for (size_t k = 0; k < n; ++k) {
      const Shape& in = inputs[k];
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
  std::vector<Fn> maps;
  for (size_t k = 0; k < n; ++k)
    maps.push_back(broadcastIndex(names[k], ins[k], merged, stridesAsParams));
  return maps;
}

}  // namespace glint::gpu
