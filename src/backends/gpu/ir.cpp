#include "src/backends/gpu/ir.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "glint/error.h"

namespace glint::gpu {

namespace {

E make(Node n) { return E(std::make_shared<const Node>(std::move(n))); }

E literal(Type type, uint64_t bits) {
  Node n{Op::literal, type};
  n.bits = bits;
  return make(std::move(n));
}

uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float bitsFloat(uint64_t bits) {
  uint32_t b = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

const char* typeName(Type t) {
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
      return "vec2f";
    case Type::vec4f:
      return "vec4f";
  }
  return "?";
}

/// A literal re-typed to `to` (2 next to an f32 is 2.0), else `e` itself.
E retype(const E& e, Type to) {
  const Node& n = e.node();
  if (n.op != Op::literal || n.type == to) return e;
  double v = n.type == Type::f32   ? bitsFloat(n.bits)
             : n.type == Type::i32 ? static_cast<double>(static_cast<int32_t>(n.bits))
             : n.type == Type::u32 ? static_cast<double>(static_cast<uint32_t>(n.bits))
                                   : static_cast<double>(n.bits);
  switch (to) {
    case Type::f32:
      return E(static_cast<float>(v));
    case Type::i32:
      return E(static_cast<int>(v));
    case Type::u32:
      return litU(static_cast<uint32_t>(v));
    default:
      return e;
  }
}

/// Both operands of one type: a literal takes the other side's type.
void unify(const char* what, E& a, E& b) {
  if (a.type() == b.type()) return;
  // A scalar with a vec4 (both languages broadcast it).
  if (a.type() == Type::vec4f || b.type() == Type::vec4f) {
    E& s = a.type() == Type::vec4f ? b : a;
    s = retype(s, Type::f32);
    if (s.type() == Type::f32) return;
  }
  if (b.node().op == Op::literal) b = retype(b, a.type());
  else if (a.node().op == Op::literal) a = retype(a, b.type());
  if (a.type() != b.type())
    fail("gpu IR", what, " of ", typeName(a.type()), " and ", typeName(b.type()));
}

E binary(Op op, E a, E b, const char* what) {
  unify(what, a, b);
  Node n{op, a.type() == Type::vec4f ? a.type() : b.type()};
  n.args = {std::move(a), std::move(b)};
  return make(std::move(n));
}

E compare(Op op, E a, E b, const char* what) {
  unify(what, a, b);
  Node n{op, Type::boolean};
  n.args = {std::move(a), std::move(b)};
  return make(std::move(n));
}

E shift(Op op, E a, E b) {
  // WGSL shifts by a u32; GLSL takes either.
  if (b.node().op == Op::literal) b = retype(b, Type::u32);
  else if (b.type() != Type::u32) b = cast(Type::u32, b);
  Node n{op, a.type()};
  n.args = {std::move(a), std::move(b)};
  return make(std::move(n));
}

E builtin(const char* name, std::vector<E> args, Type type) {
  for (size_t k = 1; k < args.size(); ++k) args[k] = retype(args[k], args[0].type());
  Node n{Op::builtin, type};
  n.name = name;
  n.args = std::move(args);
  return make(std::move(n));
}

E sameType(const char* name, std::vector<E> args) {
  Type t = args[0].type();
  return builtin(name, std::move(args), t);
}

void collectCalls(const E& e, std::vector<const Fn*>& out) {
  if (!e.valid()) return;
  const Node& n = e.node();
  if (n.op == Op::call && std::find(out.begin(), out.end(), n.fn) == out.end()) out.push_back(n.fn);
  for (const E& a : n.args) collectCalls(a, out);
}

void collectCalls(const std::vector<Stmt>& block, std::vector<const Fn*>& out) {
  for (const Stmt& s : block) {
    collectCalls(s.value, out);
    collectCalls(s.body, out);
    collectCalls(s.orElse, out);
    collectCalls(s.init, out);
    collectCalls(s.step, out);
  }
}

}  // namespace

Type irType(DType d) {
  switch (d) {
    case DType::float32:
      return Type::f32;
    case DType::int32:
      return Type::i32;
    case DType::boolean:
      return Type::boolean;
  }
  return Type::f32;
}

E::E(double v) : E(literal(Type::f32, floatBits(static_cast<float>(v)))) {}
E::E(float v) : E(literal(Type::f32, floatBits(v))) {}
E::E(int v) : E(literal(Type::i32, static_cast<uint32_t>(v))) {}
E E::boolLiteral(bool v) { return literal(Type::boolean, v ? 1 : 0); }

Type E::type() const { return n_->type; }

E E::x() const {
  Node n{Op::member, Type::f32};
  n.bits = 0;
  n.args = {*this};
  return make(std::move(n));
}

E E::y() const {
  Node n{Op::member, Type::f32};
  n.bits = 1;
  n.args = {*this};
  return make(std::move(n));
}

E litU(uint32_t v) { return literal(Type::u32, v); }

E ref(const std::string& name, Type type) {
  Node n{Op::ref, type};
  n.name = name;
  return make(std::move(n));
}

E param(const std::string& name, double value) {
  Node n{Op::param, Type::f32};
  n.name = name;
  n.value = value;
  return make(std::move(n));
}

E iparam(const std::string& name, int64_t value) {
  check(value >= INT32_MIN && value <= INT32_MAX, "gpu kernel", "parameter ", name, " = ", value,
        " does not fit an i32");
  Node n{Op::param, Type::i32};
  n.name = name;
  n.value = static_cast<double>(value);
  return make(std::move(n));
}

float intWord(int64_t value) {
  check(value >= INT32_MIN && value <= INT32_MAX, "gpu kernel", "a size of ", value,
        " does not fit an i32");
  const int32_t v = static_cast<int32_t>(value);
  float word;
  std::memcpy(&word, &v, 4);
  return word;
}

float paramWord(const Node& param) {
  if (param.type != Type::i32) return static_cast<float>(param.value);
  return intWord(static_cast<int64_t>(param.value));
}

E select(E cond, E ifTrue, E ifFalse) {
  unify("select", ifTrue, ifFalse);
  if (cond.type() != Type::boolean) fail("gpu IR", "select on a ", typeName(cond.type()));
  Node n{Op::select, ifTrue.type()};
  n.args = {std::move(cond), std::move(ifTrue), std::move(ifFalse)};
  return make(std::move(n));
}

E cast(Type to, E v) {
  if (v.type() == to) return v;
  if (v.node().op == Op::literal && v.type() != Type::boolean) return retype(v, to);
  Node n{Op::cast, to};
  n.args = {std::move(v)};
  return make(std::move(n));
}

E bitcast(Type to, E v) {
  Node n{Op::bitcast, to};
  n.args = {std::move(v)};
  return make(std::move(n));
}

E vec2(E a, E b) {
  Node n{Op::vec2, Type::vec2f};
  n.args = {retype(a, Type::f32), retype(b, Type::f32)};
  return make(std::move(n));
}

E external(const std::string& name, Type type, std::vector<E> args) {
  Node n{Op::external, type};
  n.name = name;
  n.args = std::move(args);
  return make(std::move(n));
}

E call(const Fn& fn, std::vector<E> args) {
  if (args.size() != fn.params.size())
    fail("gpu IR", fn.name, " takes ", fn.params.size(), " arguments, not ", args.size());
  for (size_t k = 0; k < args.size(); ++k) args[k] = retype(args[k], fn.params[k].second);
  Node n{Op::call, fn.result};
  n.fn = &fn;
  n.args = std::move(args);
  return make(std::move(n));
}

E operator-(E a) {
  if (a.node().op == Op::literal && a.type() == Type::f32) return E(-bitsFloat(a.node().bits));
  Node n{Op::neg, a.type()};
  n.args = {std::move(a)};
  return make(std::move(n));
}

E operator!(E a) {
  Node n{Op::lnot, Type::boolean};
  n.args = {std::move(a)};
  return make(std::move(n));
}

namespace {

/// An i32 literal of value v? (Index arithmetic folds x + 0 and x * 1; float
/// arithmetic does not: -0 + 0 is +0.)
bool isInt(const E& e, int32_t v) {
  const Node& n = e.node();
  return n.op == Op::literal && n.type == Type::i32 && static_cast<int32_t>(n.bits) == v;
}

}  // namespace

E operator+(E a, E b) {
  if (isInt(b, 0) && a.type() == Type::i32) return a;
  if (isInt(a, 0) && b.type() == Type::i32) return b;
  return binary(Op::add, std::move(a), std::move(b), "+");
}
E operator-(E a, E b) {
  if (isInt(b, 0) && a.type() == Type::i32) return a;
  return binary(Op::sub, std::move(a), std::move(b), "-");
}
E operator*(E a, E b) {
  if (isInt(b, 1) && a.type() == Type::i32) return a;
  if (isInt(a, 1) && b.type() == Type::i32) return b;
  return binary(Op::mul, std::move(a), std::move(b), "*");
}
E operator/(E a, E b) {
  E q = binary(Op::div, std::move(a), std::move(b), "/");
  // GLSL leaves the sign of a negative int quotient undefined: the math
  // library's idivTrunc_ divides magnitudes as u32.
  if (q.type() == Type::i32) fail("gpu IR", "i32 division: use idivTrunc_");
  return q;
}
E idiv(E a, E b) {
  unify("idiv", a, b);
  if (a.type() != Type::i32) fail("gpu IR", "idiv of ", typeName(a.type()));
  Node n{Op::div, Type::i32};
  n.args = {std::move(a), std::move(b)};
  return make(std::move(n));
}
E imod(E a, E b) {
  Node n{Op::mod, Type::i32};
  unify("imod", a, b);
  if (a.type() != Type::i32) fail("gpu IR", "imod of ", typeName(a.type()));
  n.args = {std::move(a), std::move(b)};
  return make(std::move(n));
}
E operator&(E a, E b) { return binary(Op::band, std::move(a), std::move(b), "&"); }
E operator|(E a, E b) { return binary(Op::bor, std::move(a), std::move(b), "|"); }
E operator^(E a, E b) { return binary(Op::bxor, std::move(a), std::move(b), "^"); }
E operator<<(E a, E b) { return shift(Op::shl, std::move(a), std::move(b)); }
E operator>>(E a, E b) { return shift(Op::shr, std::move(a), std::move(b)); }
E operator==(E a, E b) { return compare(Op::eq, std::move(a), std::move(b), "=="); }
E operator!=(E a, E b) { return compare(Op::ne, std::move(a), std::move(b), "!="); }
E operator<(E a, E b) { return compare(Op::lt, std::move(a), std::move(b), "<"); }
E operator<=(E a, E b) { return compare(Op::le, std::move(a), std::move(b), "<="); }
E operator>(E a, E b) { return compare(Op::gt, std::move(a), std::move(b), ">"); }
E operator>=(E a, E b) { return compare(Op::ge, std::move(a), std::move(b), ">="); }
E operator&&(E a, E b) { return binary(Op::land, std::move(a), std::move(b), "&&"); }
E operator||(E a, E b) { return binary(Op::lor, std::move(a), std::move(b), "||"); }

E abs(E x) { return sameType("abs", {std::move(x)}); }
E min(E a, E b) { return sameType("min", {std::move(a), std::move(b)}); }
E max(E a, E b) { return sameType("max", {std::move(a), std::move(b)}); }
E clamp(E x, E lo, E hi) { return sameType("clamp", {std::move(x), std::move(lo), std::move(hi)}); }
E floor(E x) { return sameType("floor", {std::move(x)}); }
E ceil(E x) { return sameType("ceil", {std::move(x)}); }
E fract(E x) { return sameType("fract", {std::move(x)}); }
E sqrt(E x) { return sameType("sqrt", {std::move(x)}); }
E sign(E x) { return sameType("sign", {std::move(x)}); }
E exp2(E x) { return sameType("exp2", {std::move(x)}); }
E log2(E x) { return sameType("log2", {std::move(x)}); }
E sin(E x) { return sameType("sin", {std::move(x)}); }
E cos(E x) { return sameType("cos", {std::move(x)}); }
E roundEven(E x) { return sameType("roundEven", {std::move(x)}); }
E isnan(E x) { return builtin("isnan", {std::move(x)}, Type::boolean); }
E isinf(E x) { return builtin("isinf", {std::move(x)}, Type::boolean); }

Fn::Fn(std::string name_, Type result_, std::vector<std::pair<std::string, Type>> params_)
    : name(std::move(name_)), result(result_), params(std::move(params_)) {}

std::vector<Stmt>* Fn::block() { return block_ ? block_ : &body; }

void Fn::push(Stmt s) { block()->push_back(std::move(s)); }

E Fn::let(const std::string& name, E value) {
  Type t = value.type();
  push(Stmt{Stmt::let, name, t, std::move(value)});
  return ref(name, t);
}

E Fn::var(const std::string& name, E value) {
  Type t = value.type();
  push(Stmt{Stmt::var, name, t, std::move(value)});
  return ref(name, t);
}

E Fn::var(const std::string& name, Type type) {
  push(Stmt{Stmt::var, name, type, E()});
  return ref(name, type);
}

void Fn::assign(const E& local, E value) {
  const Node& n = local.node();
  if (n.op != Op::ref) fail("gpu IR", "assignment to an expression in ", name);
  push(Stmt{Stmt::assign, n.name, n.type, retype(value, n.type)});
}

void Fn::ret(E value) { push(Stmt{Stmt::ret, "", result, retype(value, result)}); }

void Fn::retVoid() { push(Stmt{Stmt::ret, "", result, E()}); }

void Fn::ifReturn(E cond, E value) {
  ifElse(std::move(cond), [&] { ret(std::move(value)); });
}

void Fn::ifElse(E cond, const std::function<void()>& then, const std::function<void()>& orElse) {
  Stmt s{Stmt::ifElse, "", Type::boolean, std::move(cond)};
  std::vector<Stmt>* outer = block_;
  block_ = &s.body;
  then();
  if (orElse) {
    block_ = &s.orElse;
    orElse();
  }
  block_ = outer;
  push(std::move(s));
}

void Fn::loop(const std::string& v, E from, const std::function<E(E)>& cond,
              const std::function<E(E)>& step, const std::function<void(E)>& body_) {
  Stmt s{Stmt::loop, v, from.type(), E()};
  E i = ref(v, from.type());
  s.init.push_back(Stmt{Stmt::var, v, from.type(), std::move(from)});
  s.value = cond(i);
  s.step.push_back(Stmt{Stmt::assign, v, i.type(), retype(step(i), i.type())});
  std::vector<Stmt>* outer = block_;
  block_ = &s.body;
  body_(i);
  block_ = outer;
  push(std::move(s));
}

void Fn::forRange(const std::string& v, E lo, E hi, const std::function<void(E)>& body_) {
  loop(
      v, std::move(lo), [&](E i) { return i < hi; }, [](E i) { return i + 1; }, body_);
  block()->back().range = true;
}

std::vector<const Fn*> Fn::callees() const {
  std::vector<const Fn*> out;
  collectCalls(body, out);
  return out;
}

std::vector<const Fn*> withCallees(const std::vector<const Fn*>& roots) {
  std::vector<const Fn*> order;
  std::set<const Fn*> seen;
  std::function<void(const Fn*)> visit = [&](const Fn* f) {
    if (!seen.insert(f).second) return;
    for (const Fn* c : f->callees()) visit(c);
    order.push_back(f);
  };
  for (const Fn* r : roots) visit(r);
  return order;
}

namespace {

struct Hasher {
  bool withValues;
  bool intValues;
  Fingerprint fp{1469598103934665603ull, {}, {}};

  void mix(uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      fp.hash ^= (v >> (8 * b)) & 0xff;
      fp.hash *= 1099511628211ull;
    }
  }
  void mix(const std::string& s) {
    mix(s.size());
    for (char c : s) mix(static_cast<uint64_t>(static_cast<unsigned char>(c)));
  }

  // The printer's order: statements in turn, a node's arguments left to right.
  void expr(const E& e) {
    if (!e.valid()) return mix(0xfeed);
    const Node& n = e.node();
    mix(static_cast<uint64_t>(n.op) << 8 | static_cast<uint64_t>(n.type));
    mix(n.bits);
    mix(n.name);
    if (n.fn) mix(n.fn->name);
    if (n.op == Op::param && n.type == Type::i32 && intValues) {
      mix(static_cast<uint64_t>(static_cast<int64_t>(n.value)));
    } else if (n.op == Op::param) {
      size_t k = 0;
      while (k < fp.paramNames.size() && fp.paramNames[k] != n.name) ++k;
      if (k == fp.paramNames.size()) {
        fp.paramNames.push_back(n.name);
        fp.paramValues.push_back(paramWord(n));
      }
      if (withValues && n.type == Type::f32) {
        float v = static_cast<float>(n.value);
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        mix(bits);
      }
    }
    mix(n.args.size());
    for (const E& a : n.args) expr(a);
  }

  void block(const std::vector<Stmt>& stmts) {
    mix(stmts.size());
    for (const Stmt& s : stmts) {
      mix(static_cast<uint64_t>(s.kind) << 8 | static_cast<uint64_t>(s.type));
      mix(s.name);
      mix(s.range);
      block(s.init);
      expr(s.value);
      block(s.step);
      block(s.body);
      block(s.orElse);
    }
  }
};

}  // namespace

namespace {

int64_t longest(const std::vector<Stmt>& block) {
  int64_t most = 0;
  for (const Stmt& s : block) {
    if (s.range) {
      const Node& lo = s.init[0].value.node();
      const Node& hi = s.value.node().args[1].node();
      if (lo.op == Op::literal && hi.op == Op::literal)
        most =
            std::max<int64_t>(most, static_cast<int32_t>(hi.bits) - static_cast<int32_t>(lo.bits));
    }
    most = std::max({most, longest(s.body), longest(s.orElse)});
  }
  return most;
}

}  // namespace

int64_t longestRange(const Fn& f) { return longest(f.body); }

Fingerprint fingerprint(const std::vector<const Fn*>& fns, bool withValues, bool intValues) {
  Hasher h{withValues, intValues};
  for (const Fn* f : fns) {
    h.mix(f->name);
    h.mix(static_cast<uint64_t>(f->result));
    for (const auto& [name, type] : f->params) {
      h.mix(name);
      h.mix(static_cast<uint64_t>(type));
    }
    h.block(f->body);
  }
  return std::move(h.fp);
}

Fingerprint fingerprint(const Fn& f, bool withValues, bool intValues) {
  return fingerprint({&f}, withValues, intValues);
}

}  // namespace glint::gpu
