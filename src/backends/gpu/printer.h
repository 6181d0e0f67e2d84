#pragma once
// Printing the IR (ir.h) as source: the C-like part both languages share
// (operators with minimal parentheses, statements, blocks) is here; what
// they spell differently is a Dialect's. glsl() and wgsl() are the two.
#include <string>
#include <vector>

#include "src/backends/gpu/ir.h"

namespace glint::gpu {

class Dialect {
 public:
  virtual ~Dialect() = default;
  virtual std::string type(Type t) const = 0;
  /// A finite, normal (or zero) float, already printed as shortest decimals.
  virtual std::string specialFloat(float v) const = 0;  // inf, NaN, subnormal
  /// True: parameters print as `u_params[i]` (a uniform or storage array);
  /// false: as their values (a program per value).
  virtual bool paramsAsUniforms() const = 0;
  /// Parameter i of the program's parameter array, as an f32.
  virtual std::string floatParam(size_t i) const = 0;
  /// True: i32 parameters (sizes) print as intParam(i); false: as their
  /// values (a program per shape).
  virtual bool intParamsAsUniforms() const = 0;
  virtual std::string intParam(size_t i) const = 0;
  virtual std::string declare(const Stmt& s, const std::string& init) const = 0;
  virtual std::string fnHeader(const Fn& f) const = 0;
  virtual std::string builtinName(const std::string& name) const = 0;
  virtual std::string bitcast(Type to, Type from, const std::string& v) const = 0;
  /// True: the text is a function call (`select(f, t, c)`), else `c ? t : f`.
  virtual bool selectIsCall() const = 0;
  /// GLSL leaves signed overflow undefined: i32 + - * and negation go through u32.
  virtual bool intArithmeticViaUint() const = 0;
  /// True where a compiler may compile float != as ordered (NaN != x false:
  /// SwiftShader's WGSL): NaN is then tested explicitly.
  virtual bool floatNotEqualIsOrdered() const = 0;
  /// Most iterations one loop statement may run (0: no limit): a longer
  /// forRange prints as chunks.
  virtual int64_t loopChunk() const = 0;
  /// `v` incremented, as a loop's update.
  virtual std::string increment(const std::string& v) const = 0;
};

const Dialect& glsl();
const Dialect& wgsl();

/// The parameters a printed program reads, numbered by first use (one
/// number per name); values as paramWord() gives them.
struct ParamList {
  std::vector<std::string> names;
  std::vector<float> values;
  /// `u_params[i]` whatever the dialect's default (gl's optimizer draws,
  /// which take uniforms).
  bool uniforms = false;
  size_t indexOf(const std::string& name, float word);
};

/// Definitions of `fns` and every function they call (callees first).
std::string print(const Dialect& d, const std::vector<const Fn*>& fns, ParamList* params = nullptr);
/// The definitions of `f` and its callees, printed on first use for this
/// dialect and `fp` (fingerprint(f, values as the dialect prints them)), then
/// from a cache; the parameters' values of this call in `params`.
std::string printCached(const Dialect& d, const Fn& f, std::vector<float>* params = nullptr);
/// The same for functions printed together, parameters numbered across them.
std::string printCached(const Dialect& d, const std::vector<const Fn*>& fns,
                        std::vector<float>* params);
/// printBody(d, f, params with uniforms) the same way.
std::string printBodyCached(const Dialect& d, const Fn& f, std::vector<float>* params,
                            int indent = 2);

/// Writes `source` to stderr, headed by the backend's name, when the
/// environment has GLINT_DUMP_SHADERS=1; the backends call it for each
/// program they compile (natively: gl; webgpu reads the Emscripten
/// environment, which node does not fill from its own).
void dumpShader(const char* backend, const std::string& source);

/// One expression.
std::string printExpr(const Dialect& d, const E& e, ParamList* params = nullptr);
/// The statements of `f`'s body alone, indented by `indent` spaces (a
/// kernel's main() that the backend frames; the functions they call are
/// printed apart, with print()).
std::string printBody(const Dialect& d, const Fn& f, ParamList* params = nullptr, int indent = 2);

}  // namespace glint::gpu
