#pragma once
// The GPU kernel IR: expressions and statements that the gl backend prints
// as GLSL ES 3.00 and the webgpu backend as WGSL (printer.h). Kernels and
// the math library are written once, with C++ operators:
//
//   E x = f.arg(0);
//   f.ifReturn(isnan(x), x);
//   f.ret(select(x > 0.0, x, 0.0));
//
// Every expression has a type; a C++ number next to a typed expression takes
// that expression's type (x * 2 with x an f32 is x * 2.0). What one language
// spells differently (select vs ?:, bitcasts, int wrap-around, NaN tests,
// parameters as uniforms or literals) is the dialect's business, not the
// kernel's. No GL or WebGPU header here.
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glint/dtype.h"

namespace glint::gpu {

// vec4f: gl's texel-at-a-time kernels; f32 operands broadcast against it.
enum class Type { f32, i32, u32, boolean, vec2f, vec4f };

/// The IR type of an element of `d` (f32, i32, boolean).
Type irType(DType d);

struct Fn;
struct Node;

/// An expression (an immutable tree node; copies share it).
class E {
 public:
  E() = default;
  E(double v);  // an f32 literal
  E(float v);
  E(int v);  // an i32 literal
  // bool only: no pointer or other conversion to bool becomes a literal.
  template <class B>
  requires std::same_as<B, bool> E(B v) : E(boolLiteral(v)) {}
  explicit E(std::shared_ptr<const Node> n) : n_(std::move(n)) {}

  Type type() const;
  const Node& node() const { return *n_; }
  bool valid() const { return n_ != nullptr; }
  /// .x / .y of a vec2.
  E x() const;
  E y() const;

 private:
  static E boolLiteral(bool v);
  std::shared_ptr<const Node> n_;
};

enum class Op {
  // Leaves.
  literal,  // f32 / i32 / u32 / bool bits in `bits`
  ref,      // a named value: an argument, a let or var, or a local the backend's code declares
  param,    // a scalar, printed as a uniform or a literal as the dialect says
  // Operators.
  neg,
  lnot,
  add,
  sub,
  mul,
  div,
  mod,  // i32 index arithmetic only (idiv/imod: operands known non-negative)
  band,
  bor,
  bxor,
  shl,
  shr,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  land,
  lor,
  select,    // args: cond, ifTrue, ifFalse
  cast,      // to `type`
  bitcast,   // to `type`, same width
  builtin,   // `name`(args): abs min max clamp floor ceil fract sqrt sign exp2 log2 sin cos
             // roundEven isnan isinf
  call,      // `fn`(args)
  external,  // `name`(args): a function the backend's prelude defines (in0, an index map)
  vec2,
  member,  // args[0].x (index 0) or .y (1) in `bits`
};

struct Node {
  Op op;
  Type type;
  uint64_t bits = 0;  // literal bits, member index
  double value = 0;   // a param's value
  std::string name;   // ref, param, builtin, external
  const Fn* fn = nullptr;
  std::vector<E> args;
};

E litU(uint32_t v);
/// A named value of `type` (a function argument, a local).
E ref(const std::string& name, Type type);
/// A scalar parameter (LeakyRelu's alpha): webgpu reads it from u_params, gl
/// prints its value into the program.
E param(const std::string& name, double value);
/// An i32 parameter (a shape's size or stride): GLSL reads it from a uniform
/// array, so that a call of a new shape finds its program compiled (a
/// compile costs more than most kernels' run); WGSL prints its value (see
/// Dialect::intParamsAsUniforms).
E iparam(const std::string& name, int64_t value);
/// The 32-bit word a parameter holds in the parameter arrays: an f32's bits,
/// or an i32's bits (gl uploads the same words as ints: never converted).
float paramWord(const Node& param);
/// An i32's word (fails beyond the i32 range).
float intWord(int64_t value);
E select(E cond, E ifTrue, E ifFalse);
E cast(Type to, E v);
E bitcast(Type to, E v);
E vec2(E a, E b);
/// A function of the backend's prelude (in0, an index map) returning `type`.
E external(const std::string& name, Type type, std::vector<E> args);
E call(const Fn& fn, std::vector<E> args);

E operator-(E a);
E operator!(E a);
E operator+(E a, E b);
E operator-(E a, E b);
E operator*(E a, E b);
E operator/(E a, E b);
E operator&(E a, E b);
E operator|(E a, E b);
E operator^(E a, E b);
E operator<<(E a, E b);
E operator>>(E a, E b);
E operator==(E a, E b);
E operator!=(E a, E b);
E operator<(E a, E b);
E operator<=(E a, E b);
E operator>(E a, E b);
E operator>=(E a, E b);
E operator&&(E a, E b);
E operator||(E a, E b);
/// Quotient and remainder of non-negative i32 index arithmetic (both languages
/// define / and % there; GLSL leaves negative operands undefined).
E idiv(E a, E b);
E imod(E a, E b);

E abs(E x);
E min(E a, E b);
E max(E a, E b);
E clamp(E x, E lo, E hi);
E floor(E x);
E ceil(E x);
E fract(E x);
E sqrt(E x);
E sign(E x);
E exp2(E x);
E log2(E x);
E sin(E x);
E cos(E x);
E roundEven(E x);
E isnan(E x);
E isinf(E x);

struct Stmt {
  enum Kind { let, var, assign, ifElse, ret, loop } kind;
  std::string name;  // let, var, assign
  Type type = Type::f32;
  E value;  // init, assigned value, returned value, condition
  std::vector<Stmt> body, orElse;
  std::vector<Stmt> init, step;  // loop: var declarations, then the update
  bool range = false;            // a loop over [lo, hi) by 1 (forRange)
};

/// A function: name, typed arguments, a body of statements. Built with the
/// methods below, which append to the innermost open block.
struct Fn {
  std::string name;
  Type result;
  std::vector<std::pair<std::string, Type>> params;
  std::vector<Stmt> body;

  Fn(std::string name, Type result, std::vector<std::pair<std::string, Type>> params);
  E arg(size_t k) const { return ref(params[k].first, params[k].second); }
  /// An immutable local.
  E let(const std::string& name, E value);
  /// A mutable local (initialised; `var` with no value: declared only).
  E var(const std::string& name, E value);
  E var(const std::string& name, Type type);
  void assign(const E& local, E value);
  void ret(E value);
  /// `return;` (a kernel's main(), printed with printBody).
  void retVoid();
  void ifReturn(E cond, E value);
  void ifElse(E cond, const std::function<void()>& then, const std::function<void()>& orElse = {});
  /// for (var <name> = <from>; <cond>; <name> = <step(name)>) { body }
  void loop(const std::string& name, E from, const std::function<E(E)>& cond,
            const std::function<E(E)>& step, const std::function<void(E)>& body);

  /// for (var <name> = lo; <name> < hi; <name>++) { body }: GLSL prints it in
  /// chunks (llvmpipe stops any single loop after 65535 iterations).
  void forRange(const std::string& name, E lo, E hi, const std::function<void(E)>& body);

  /// Functions this one calls, directly.
  std::vector<const Fn*> callees() const;

 private:
  std::vector<Stmt>* block();
  std::vector<Stmt>* block_ = nullptr;  // the open block of ifElse/loop; null: body
  void push(Stmt s);
};

/// Every function `roots` call, directly or not, callees before callers, then
/// the roots themselves: the order GLSL needs.
std::vector<const Fn*> withCallees(const std::vector<const Fn*>& roots);

/// The most iterations of any forRange in `f` with literal bounds (gl checks
/// them against llvmpipe's per-loop limit); 0 without one.
int64_t longestRange(const Fn& f);

/// What identifies a kernel's printed source without printing it: a hash of
/// `f`'s signature and body (not of the functions it calls, which are fixed)
/// and its parameters in the order the printer numbers them. Parameter
/// values enter the hash where they print as literals (f32 `withValues`,
/// i32 `intValues`),
/// so a new learning rate finds the program already printed.
struct Fingerprint {
  uint64_t hash = 0;
  std::vector<std::string> paramNames;
  std::vector<float> paramValues;
};
Fingerprint fingerprint(const Fn& f, bool withValues, bool intValues = true);
/// The same over functions printed together (their parameters numbered in
/// this order, one number per name). `intValues`: i32 parameters print as
/// literals (they then enter the hash, and take no number).
Fingerprint fingerprint(const std::vector<const Fn*>& fns, bool withValues, bool intValues);

}  // namespace glint::gpu
