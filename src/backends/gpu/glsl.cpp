// GLSL ES 3.00 spellings. The gl prelude (src/backends/gl/shader.cpp)
// defines INF and NAN.
#include <cstdio>
#include <cstring>

#include "src/backends/gpu/printer.h"

namespace glint::gpu {

namespace {

class Glsl final : public Dialect {
 public:
  std::string type(Type t) const override {
    switch (t) {
      case Type::f32:
        return "float";
      case Type::i32:
        return "int";
      case Type::u32:
        return "uint";
      case Type::boolean:
        return "bool";
      case Type::vec2f:
        return "vec2";
      case Type::vec4f:
        return "vec4";
    }
    return "float";
  }
  std::string specialFloat(float v) const override {
    if (v != v) return "NAN";
    if (v > 0 && v > 3.4e38f) return "INF";
    if (v < 0 && v < -3.4e38f) return "-INF";
    uint32_t b;
    std::memcpy(&b, &v, 4);
    char buf[40];
    std::snprintf(buf, sizeof buf, "uintBitsToFloat(0x%08xu)", b);
    return buf;
  }
  // One program per value: the element-wise draws take no float uniforms.
  bool paramsAsUniforms() const override { return false; }
  // `uniform float u_params[N]` and, for shapes, `uniform int u_ints[N]`:
  // both set from the same words (GlBackend::draw), each read where its type is.
  std::string floatParam(size_t i) const override { return "u_params[" + std::to_string(i) + "]"; }
  bool intParamsAsUniforms() const override { return true; }
  std::string intParam(size_t i) const override { return "u_ints[" + std::to_string(i) + "]"; }
  std::string declare(const Stmt& s, const std::string& init) const override {
    return type(s.type) + " " + s.name + (init.empty() ? "" : " = " + init) + ";";
  }
  std::string fnHeader(const Fn& f) const override {
    std::string s = type(f.result) + " " + f.name + "(";
    for (size_t k = 0; k < f.params.size(); ++k)
      s += (k ? ", " : "") + type(f.params[k].second) + " " + f.params[k].first;
    return s + ")";
  }
  std::string builtinName(const std::string& name) const override { return name; }
  std::string bitcast(Type to, Type from, const std::string& v) const override {
    if (from == Type::f32)
      return (to == Type::u32 ? "floatBitsToUint(" : "floatBitsToInt(") + v + ")";
    if (to == Type::f32)
      return (from == Type::u32 ? "uintBitsToFloat(" : "intBitsToFloat(") + v + ")";
    return type(to) + "(" + v + ")";  // int <-> uint keeps the bits
  }
  bool selectIsCall() const override { return false; }
  bool intArithmeticViaUint() const override { return true; }
  bool floatNotEqualIsOrdered() const override { return false; }
  // llvmpipe silently stops any single loop after 65535 iterations.
  int64_t loopChunk() const override { return 32768; }
  std::string increment(const std::string& v) const override { return "++" + v; }
};

}  // namespace

const Dialect& glsl() {
  static const Glsl d;
  return d;
}

}  // namespace glint::gpu
