#pragma once
// A small WGSL builder: the bindings and typed element access every kernel
// shares, so that each kernel is a few lines of WGSL.
//
// Bindings (group 0): inputs b_in0.. (read-only array<u32>), outputs b_out0..
// (read_write array<u32>), then u_params (read-only array<f32>: the
// dispatch's scalars). Buffers hold raw bytes: f32 and i32 one word per
// element, bools one byte each (4 per word).
//
// An element-wise kernel's body defines `fn value(i: i32) -> T`: output element
// i (flat, row-major) of WGSL type T (f32, i32 or bool), reading inputs through
// `in0(j)`, `in1(j)`... (element j of input k, typed by its dtype).
// elementMain() gives each invocation one output word (1 value, or 4 bools).
//
// WGSL refuses constant expressions that overflow to inf or NaN, so INF and NaN
// come from functions (inf_(), nan_()), which the WGSL printer
// (src/backends/gpu/wgsl.cpp) uses for non-finite literals. isnan_/isinf_ test bits (WGSL has neither, and a compiler may
// assume finite floats).
#include <string>
#include <vector>

#include "glint/backend.h"
#include "src/backends/webgpu/webgpu_backend.h"

namespace glint::webgpu {

/// "f32", "i32" or "bool".
const char* wgslType(DType dtype);
/// inf_(), nan_(), isnan_(x), isinf_(x) (part of every prelude).
extern const char* const kSpecialValues;
/// Bindings for inputs of these dtypes and `numOutputs` outputs, the helpers
/// above, and in<k>(j) / word<k>(w) for every input. Outputs have no setters:
/// a kernel writes whole words, b_out<k>[w] = bitcast<u32>(v).
std::string prelude(const std::vector<DType>& inputs, int numOutputs = 1);
std::string prelude(const std::vector<Tensor>& inputs, int numOutputs = 1);
/// The entry point's header: `@compute @workgroup_size(groupSize) fn main(...)`
/// with `let idx: i32` = this invocation's number under a grid1D(.., groupSize)
/// dispatch, and `lid: u32` its index in the workgroup. Open brace included.
std::string mainHeader(int groupSize = 64);
/// main(): output word w of b_out0 from value() (n elements of dtype).
std::string elementMain(DType dtype, int64_t n);
/// Words of n elements of dtype (bools pack 4 per word).
int64_t wordsOf(DType dtype, int64_t n);

/// Compiles (once) and dispatches prelude + body + elementMain into `out`.
void runElementwise(WebGpuBackend& gpu, const std::string& body, const std::vector<Tensor>& inputs,
                    Tensor& out, const std::vector<float>& params = {});
/// Dispatches a complete source over `invocations` threads (grid1D) with
/// `outputs` bound as b_out0.. .
void runShader(WebGpuBackend& gpu, const std::string& source, const std::vector<Tensor>& inputs,
               const std::vector<Tensor*>& outputs, int64_t invocations, int groupSize = 64,
               const std::vector<float>& params = {});
/// The same with raw buffers (scratch buffers of multi-pass kernels).
void runShader(WebGpuBackend& gpu, const std::string& source,
               const std::vector<const Buffer*>& inputs, const std::vector<Buffer*>& outputs,
               int64_t invocations, int groupSize = 64, const std::vector<float>& params = {});

}  // namespace glint::webgpu
