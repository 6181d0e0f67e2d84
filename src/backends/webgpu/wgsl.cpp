#include "src/backends/webgpu/wgsl.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace glint::webgpu {

const char* wgslType(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return "f32";
    case DType::int32:
      return "i32";
    case DType::boolean:
      return "bool";
  }
  return "f32";
}

int64_t wordsOf(DType dtype, int64_t n) { return dtype == DType::boolean ? (n + 3) / 4 : n; }

const char* const kSpecialValues =
    "fn inf_() -> f32 { var b = 0x7f800000u; return bitcast<f32>(b); }\n"
    "fn nan_() -> f32 { var b = 0x7fc00000u; return bitcast<f32>(b); }\n"
    "fn isnan_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n"
    "fn isinf_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }\n";

std::string prelude(const std::vector<Tensor>& inputs, int numOutputs) {
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  return prelude(dtypes, numOutputs);
}

std::string prelude(const std::vector<DType>& inputs, int numOutputs) {
  std::string s;
  int binding = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::string n = std::to_string(k);
    s += "@group(0) @binding(" + std::to_string(binding++) + ") var<storage, read> b_in" + n +
         ": array<u32>;\n";
    s += "fn word" + n + "(w: i32) -> u32 { return b_in" + n + "[w]; }\n";
    switch (inputs[k]) {
      case DType::float32:
        s += "fn in" + n + "(i: i32) -> f32 { return bitcast<f32>(b_in" + n + "[i]); }\n";
        break;
      case DType::int32:
        s += "fn in" + n + "(i: i32) -> i32 { return bitcast<i32>(b_in" + n + "[i]); }\n";
        break;
      case DType::boolean:
        s += "fn in" + n + "(i: i32) -> bool { return ((b_in" + n +
             "[i >> 2u] >> (u32(i & 3) << 3u)) & 0xffu) != 0u; }\n";
        break;
    }
  }
  for (int k = 0; k < numOutputs; ++k)
    s += "@group(0) @binding(" + std::to_string(binding++) + ") var<storage, read_write> b_out" +
         std::to_string(k) + ": array<u32>;\n";
  s += "@group(0) @binding(" + std::to_string(binding) +
       ") var<storage, read> u_params: array<f32>;\n";
  return s + kSpecialValues;
}

std::string mainHeader(int groupSize) {
  std::string g = std::to_string(groupSize);
  return "@compute @workgroup_size(" + g +
         ") fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: "
         "vec3<u32>,\n"
         "    @builtin(local_invocation_index) lid: u32) {\n"
         "  let idx = i32((wid.x + wid.y * nwg.x) * " +
         g + "u + lid);\n";
}

std::string elementMain(DType dtype, int64_t n) {
  std::string N = std::to_string(n);
  std::string s = mainHeader(64);
  if (dtype == DType::boolean) {
    s += "  if (idx >= " + std::to_string(wordsOf(dtype, n)) +
         ") { return; }\n"
         "  var r = 0u;\n"
         "  for (var c = 0; c < 4; c++) {\n    let i = idx * 4 + c;\n"
         "    if (i < " +
         N +
         ") { if (value(i)) { r |= 1u << (u32(c) << 3u); } }\n  }\n"
         "  b_out0[idx] = r;\n";
  } else {
    s += "  if (idx >= " + N + ") { return; }\n  b_out0[idx] = bitcast<u32>(value(idx));\n";
  }
  return s + "}\n";
}

void runShader(WebGpuBackend& gpu, const std::string& source,
               const std::vector<const Buffer*>& inputs, const std::vector<Buffer*>& outputs,
               int64_t invocations, int groupSize, const std::vector<float>& params) {
  if (invocations <= 0) return;
  const Pipeline& p =
      gpu.pipeline(source, static_cast<int>(inputs.size()), static_cast<int>(outputs.size()));
  gpu.dispatch(p, inputs, outputs, gpu.grid1D(invocations, groupSize), params);
}

void runShader(WebGpuBackend& gpu, const std::string& source, const std::vector<Tensor>& inputs,
               const std::vector<Tensor*>& outputs, int64_t invocations, int groupSize,
               const std::vector<float>& params) {
  std::vector<const Buffer*> in;
  for (const Tensor& t : inputs) in.push_back(&bufferOf(t));
  std::vector<Buffer*> out;
  for (Tensor* t : outputs) out.push_back(&bufferOf(*t));
  runShader(gpu, source, in, out, invocations, groupSize, params);
}

void runElementwise(WebGpuBackend& gpu, const std::string& body, const std::vector<Tensor>& inputs,
                    Tensor& out, const std::vector<float>& params) {
  if (out.size() == 0) return;
  std::string source = prelude(inputs) + body + elementMain(out.dtype(), out.size());
  runShader(gpu, source, inputs, {&out}, wordsOf(out.dtype(), out.size()), 64, params);
}

}  // namespace glint::webgpu
