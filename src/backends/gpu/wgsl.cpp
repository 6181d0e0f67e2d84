// WGSL spellings. WGSL refuses constant expressions that overflow to inf or
// NaN and has no isnan/isinf: the webgpu prelude (src/backends/webgpu/wgsl.cpp)
// defines inf_(), nan_(), isnan_() and isinf_() (NaN tests by bits: a
// compiler may assume finite floats).
#include <cstdio>
#include <cstring>

#include "glint/error.h"
#include "src/backends/gpu/printer.h"

namespace glint::gpu {

namespace {

class Wgsl final : public Dialect {
 public:
  std::string type(Type t) const override {
    switch (t) {
      case Type::f32:
        return "f32";
      case Type::i32:
        return "i32";
      case Type::u32:
        return "u32";
      case Type::boolean:
        return "bool";
      case Type::vec2f:
        return "vec2<f32>";
      case Type::vec4f:
        return "vec4<f32>";
    }
    return "f32";
  }
  std::string specialFloat(float v) const override {
    if (v != v) return "nan_()";
    if (v > 0 && v > 3.4e38f) return "inf_()";
    if (v < 0 && v < -3.4e38f) return "-inf_()";
    uint32_t b;
    std::memcpy(&b, &v, 4);
    char buf[40];
    std::snprintf(buf, sizeof buf, "bitcast<f32>(0x%08xu)", b);
    return buf;
  }
  // A storage buffer of the dispatch's scalars: new values, same pipeline.
  bool paramsAsUniforms() const override { return true; }
  std::string floatParam(size_t i) const override { return "u_params[" + std::to_string(i) + "]"; }
  // Sizes stay literals in WGSL until measured: with them read from u_params
  // (every kernel then reading its parameters), an H100 through Dawn trained
  // 20-35% fewer steps a second in two rounds of before/after in turn; a
  // later pair on another H100 swung as much between runs of one build
  // (2026-12-07, bench/webgpu_node.mjs).
  bool intParamsAsUniforms() const override { return false; }
  std::string intParam(size_t) const override { fail("wgsl", "i32 parameters print as literals"); }
  std::string declare(const Stmt& s, const std::string& init) const override {
    if (s.kind == Stmt::let) return "let " + s.name + " = " + init + ";";
    return "var " + s.name + ": " + type(s.type) + (init.empty() ? "" : " = " + init) + ";";
  }
  std::string fnHeader(const Fn& f) const override {
    std::string s = "fn " + f.name + "(";
    for (size_t k = 0; k < f.params.size(); ++k)
      s += (k ? ", " : "") + f.params[k].first + ": " + type(f.params[k].second);
    return s + ") -> " + type(f.result);
  }
  std::string builtinName(const std::string& name) const override {
    if (name == "roundEven") return "round";  // WGSL's round takes halves to even
    if (name == "isnan") return "isnan_";
    if (name == "isinf") return "isinf_";
    return name;
  }
  std::string bitcast(Type to, Type, const std::string& v) const override {
    return "bitcast<" + type(to) + ">(" + v + ")";
  }
  bool selectIsCall() const override { return true; }
  bool intArithmeticViaUint() const override { return false; }
  // SwiftShader compiles WGSL's float != as ordered.
  bool floatNotEqualIsOrdered() const override { return true; }
  int64_t loopChunk() const override { return 0; }
  std::string increment(const std::string& v) const override { return v + "++"; }
};

}  // namespace

const Dialect& wgsl() {
  static const Wgsl d;
  return d;
}

}  // namespace glint::gpu
