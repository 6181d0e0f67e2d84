#include "src/backends/gpu/printer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "glint/error.h"

namespace glint::gpu {

size_t ParamList::indexOf(const std::string& name, float word) {
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return k;
  names.push_back(name);
  values.push_back(word);
  return names.size() - 1;
}

namespace {

// Binding strength, loosest first. WGSL is stricter than C about mixing:
// bitwise and shift operands must be unary expressions, comparisons do not
// chain, && and || do not mix. Both dialects print by WGSL's rule (C readers
// are spared the & vs == trap too).
enum Prec {
  kSelect = 10,
  kOr = 15,
  kAnd = 20,
  kBitOr = 30,
  kBitXor = 35,
  kBitAnd = 40,
  kEq = 45,
  kRel = 50,
  kShift = 60,
  kAdd = 70,
  kMul = 80,
  kUnary = 90,
  kPrimary = 100
};

struct Text {
  std::string s;
  int prec;
};

std::string paren(const Text& t, bool need) { return need ? "(" + t.s + ")" : t.s; }

std::string shortestFloat(float v) {
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    // Read back directly and through a double (as some compilers parse
    // literals): the same float either way.
    if (std::strtof(buf, nullptr) == v && static_cast<float>(std::strtod(buf, nullptr)) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

class Printer {
 public:
  Printer(const Dialect& d, ParamList* params) : d_(d), params_(params) {}

  Text expr(const E& e) { return expr(e, false); }

  void body(const Fn& f, int indent, std::string& out) { block(f.body, 0, out, indent); }

  void fn(const Fn& f, std::string& out) {
    out += d_.fnHeader(f) + " {\n";
    block(f.body, 1, out);
    out += "}\n";
  }

 private:
  const Dialect& d_;
  ParamList* params_;
  ParamList own_;

  Text literal(const Node& n) {
    switch (n.type) {
      case Type::f32: {
        uint32_t b = static_cast<uint32_t>(n.bits);
        float v;
        std::memcpy(&v, &b, 4);
        if (!std::isfinite(v) || (v != 0 && std::fabs(v) < 1.17549435e-38f))
          return {d_.specialFloat(v), v < 0 ? kUnary : kPrimary};
        std::string s = shortestFloat(v);
        return {s, s[0] == '-' ? kUnary : kPrimary};
      }
      case Type::i32: {
        int32_t v = static_cast<int32_t>(n.bits);
        if (v == INT32_MIN) return {"-2147483647 - 1", kAdd};
        return {std::to_string(v), v < 0 ? kUnary : kPrimary};
      }
      case Type::u32: {
        uint32_t v = static_cast<uint32_t>(n.bits);
        char buf[16];
        std::snprintf(buf, sizeof buf, v >= 0x10000 ? "0x%08xu" : "%uu", v);
        return {buf, kPrimary};
      }
      case Type::boolean:
        return {n.bits ? "true" : "false", kPrimary};
      default:
        fail("gpu printer", "a literal of a vector type");
    }
  }

  std::string args(const Node& n) {
    std::string s;
    for (size_t k = 0; k < n.args.size(); ++k) s += (k ? ", " : "") + expr(n.args[k]).s;
    return s;
  }

  static bool intArith(const Node& n) {
    return n.type == Type::i32 &&
           (n.op == Op::add || n.op == Op::sub || n.op == Op::mul || n.op == Op::neg);
  }

  Text binary(const Node& n, const char* op, int prec, bool asUint) {
    Text a = expr(n.args[0], asUint), b = expr(n.args[1], asUint);
    bool sameLeft = n.args[0].node().op == n.op;
    bool needA, needB;
    if (prec == kAdd || prec == kMul) {
      needA = a.prec < prec;
      needB = b.prec <= prec;
    } else if (prec == kShift || prec == kBitAnd || prec == kBitOr || prec == kBitXor) {
      needA = a.prec < kUnary && !(sameLeft && prec != kShift);
      needB = b.prec < kUnary;
    } else if (prec == kEq || prec == kRel) {
      needA = a.prec < kShift;
      needB = b.prec < kShift;
    } else {  // && ||
      needA = a.prec < kEq && !sameLeft;
      needB = b.prec < kEq;
    }
    return {paren(a, needA) + " " + op + " " + paren(b, needB), prec};
  }

  Text expr(const E& e, bool asUint) {
    const Node& n = e.node();
    // GLSL's i32 arithmetic: computed in u32 (wraps), one int() around a chain.
    if (d_.intArithmeticViaUint() && n.type == Type::i32) {
      if (!asUint && intArith(n)) return {"int(" + expr(e, true).s + ")", kPrimary};
      if (asUint && !intArith(n)) {
        if (n.op == Op::literal)
          return {std::to_string(static_cast<uint32_t>(n.bits)) + "u", kPrimary};
        // int(u) read back as uint is u.
        if (n.op == Op::cast && n.args[0].type() == Type::u32) return expr(n.args[0], false);
        return {"uint(" + expr(e, false).s + ")", kPrimary};
      }
    } else {
      asUint = false;
    }
    switch (n.op) {
      case Op::literal:
        return literal(n);
      case Op::ref:
        return {n.name, kPrimary};
      case Op::param: {
        ParamList& p = params_ ? *params_ : own_;
        if (n.type == Type::i32 && !d_.intParamsAsUniforms())
          return literal(E(static_cast<int>(n.value)).node());
        size_t index = p.indexOf(n.name, paramWord(n));
        if (n.type == Type::i32) return {d_.intParam(index), kPrimary};
        if (d_.paramsAsUniforms() || p.uniforms) return {d_.floatParam(index), kPrimary};
        return literal(E(static_cast<float>(n.value)).node());
      }
      case Op::neg:
      case Op::lnot: {
        Text a = expr(n.args[0], asUint);
        const char* op = n.op == Op::lnot ? "!" : asUint ? "0u - " : "-";
        if (asUint) return {op + paren(a, a.prec <= kAdd), kAdd};
        return {op + paren(a, a.prec < kUnary || a.s[0] == '-'), kUnary};
      }
      case Op::add:
        return binary(n, "+", kAdd, asUint);
      case Op::sub:
        return binary(n, "-", kAdd, asUint);
      case Op::mul:
        return binary(n, "*", kMul, asUint);
      case Op::div:
        return binary(n, "/", kMul, asUint);
      case Op::mod:
        return binary(n, "%", kMul, false);
      case Op::band:
        return binary(n, "&", kBitAnd, false);
      case Op::bor:
        return binary(n, "|", kBitOr, false);
      case Op::bxor:
        return binary(n, "^", kBitXor, false);
      case Op::shl:
        return binary(n, "<<", kShift, false);
      case Op::shr:
        return binary(n, ">>", kShift, false);
      case Op::eq:
        return binary(n, "==", kEq, false);
      case Op::ne:
        if (n.args[0].type() == Type::f32 && d_.floatNotEqualIsOrdered()) {
          Text ne = binary(n, "!=", kEq, false);
          std::string nan = d_.builtinName("isnan");
          return {ne.s + " || " + nan + "(" + expr(n.args[0]).s + ") || " + nan + "(" +
                      expr(n.args[1]).s + ")",
                  kOr};
        }
        return binary(n, "!=", kEq, false);
      case Op::lt:
        return binary(n, "<", kRel, false);
      case Op::le:
        return binary(n, "<=", kRel, false);
      case Op::gt:
        return binary(n, ">", kRel, false);
      case Op::ge:
        return binary(n, ">=", kRel, false);
      case Op::land:
        return binary(n, "&&", kAnd, false);
      case Op::lor:
        return binary(n, "||", kOr, false);
      case Op::select: {
        Text c = expr(n.args[0]), t = expr(n.args[1]), f = expr(n.args[2]);
        if (d_.selectIsCall()) return {"select(" + f.s + ", " + t.s + ", " + c.s + ")", kPrimary};
        return {paren(c, c.prec <= kSelect) + " ? " + paren(t, t.prec <= kSelect) + " : " + f.s,
                kSelect};
      }
      case Op::cast:
        // uint(int arithmetic): the arithmetic's own uint form.
        if (n.type == Type::u32 && d_.intArithmeticViaUint() && intArith(n.args[0].node()))
          return expr(n.args[0], true);
        return {d_.type(n.type) + "(" + expr(n.args[0]).s + ")", kPrimary};
      case Op::bitcast:
        return {d_.bitcast(n.type, n.args[0].type(), expr(n.args[0]).s), kPrimary};
      case Op::builtin:
        return {d_.builtinName(n.name) + "(" + args(n) + ")", kPrimary};
      case Op::call:
        return {n.fn->name + "(" + args(n) + ")", kPrimary};
      case Op::external:
        return {n.name + "(" + args(n) + ")", kPrimary};
      case Op::vec2:
        return {d_.type(Type::vec2f) + "(" + args(n) + ")", kPrimary};
      case Op::member: {
        Text a = expr(n.args[0]);
        return {paren(a, a.prec < kPrimary) + (n.bits ? ".y" : ".x"), kPrimary};
      }
    }
    fail("gpu printer", "an unknown node");
  }

  /// for (v = lo; v < hi; ++v), or, past the dialect's loop limit, an outer
  /// loop over chunks of it.
  void rangeLoop(const Stmt& s, const std::string& pad, int depth, std::string& out, int indent) {
    const std::string& v = s.name;
    std::string lo = expr(s.init[0].value).s;
    std::string hi = expr(s.value.node().args[1]).s;
    int64_t chunk = d_.loopChunk();
    Stmt decl = s.init[0];
    const Node& end = s.value.node().args[1].node();
    bool short_ = end.op == Op::literal && static_cast<int32_t>(end.bits) <= chunk;
    if (chunk > 0 && !short_) {
      Stmt outer = decl;
      outer.name = v + "_chunk";
      std::string o = d_.declare(outer, lo);
      o.pop_back();
      out += pad + "for (" + o + "; " + outer.name + " < " + hi + "; " + outer.name +
             " += " + std::to_string(chunk) + ") {\n";
      std::string inner = d_.declare(decl, outer.name);
      inner.pop_back();
      out += pad + "  for (" + inner + "; " + v + " < min(" + hi + ", " + outer.name + " + " +
             std::to_string(chunk) + "); " + d_.increment(v) + ") {\n";
      block(s.body, depth + 2, out, indent);
      out += pad + "  }\n" + pad + "}\n";
      return;
    }
    std::string init = d_.declare(decl, lo);
    init.pop_back();
    out += pad + "for (" + init + "; " + v + " < " + hi + "; " + d_.increment(v) + ") {\n";
    block(s.body, depth + 1, out, indent);
    out += pad + "}\n";
  }

  void block(const std::vector<Stmt>& stmts, int depth, std::string& out, int indent = 0) {
    std::string pad(indent + 2 * depth, ' ');
    for (const Stmt& s : stmts) {
      switch (s.kind) {
        case Stmt::let:
        case Stmt::var:
          out += pad + d_.declare(s, s.value.valid() ? expr(s.value).s : "") + "\n";
          break;
        case Stmt::assign:
          out += pad + s.name + " = " + expr(s.value).s + ";\n";
          break;
        case Stmt::ret:
          out += pad + (s.value.valid() ? "return " + expr(s.value).s + ";\n" : "return;\n");
          break;
        case Stmt::ifElse: {
          out += pad + "if (" + expr(s.value).s + ") {\n";
          block(s.body, depth + 1, out, indent);
          const std::vector<Stmt>* rest = &s.orElse;
          // else-if chains print flat.
          while (rest->size() == 1 && (*rest)[0].kind == Stmt::ifElse) {
            const Stmt& inner = (*rest)[0];
            out += pad + "} else if (" + expr(inner.value).s + ") {\n";
            block(inner.body, depth + 1, out, indent);
            rest = &inner.orElse;
          }
          if (!rest->empty()) {
            out += pad + "} else {\n";
            block(*rest, depth + 1, out, indent);
          }
          out += pad + "}\n";
          break;
        }
        case Stmt::loop: {
          if (s.range) {
            rangeLoop(s, pad, depth, out, indent);
            break;
          }
          std::string init = d_.declare(s.init[0], expr(s.init[0].value).s);
          init.pop_back();  // its ';'
          const Stmt& st = s.step[0];
          out += pad + "for (" + init + "; " + expr(s.value).s + "; " + st.name + " = " +
                 expr(st.value).s + ") {\n";
          block(s.body, depth + 1, out, indent);
          out += pad + "}\n";
          break;
        }
      }
    }
  }
};

}  // namespace

std::string print(const Dialect& d, const std::vector<const Fn*>& fns, ParamList* params) {
  Printer p(d, params);
  std::string out;
  for (const Fn* f : withCallees(fns)) p.fn(*f, out);
  return out;
}

namespace {

/// Printed sources by dialect, fingerprint and form; bounded (emptied past
/// 4,096 entries: a sweep of gl literal values must not grow it for ever).
std::string cached(const Dialect& d, const std::vector<const Fn*>& fns, bool uniforms, int form,
                   std::vector<float>* params,
                   const std::function<std::string(ParamList&)>& doPrint) {
  static std::mutex mu;
  static std::unordered_map<uint64_t, std::string> entries;
  Fingerprint fp = fingerprint(fns, !(uniforms || d.paramsAsUniforms()), !d.intParamsAsUniforms());
  uint64_t key = fp.hash * 31 + (&d == &glsl() ? 1 : 2) + 4 * static_cast<uint64_t>(form);
  if (params) *params = fp.paramValues;
  std::lock_guard<std::mutex> lock(mu);
  auto it = entries.find(key);
  if (it != entries.end()) return it->second;
  ParamList p;
  p.uniforms = uniforms;
  std::string text = doPrint(p);
  if (p.names != fp.paramNames)
    fail("gpu printer", fns.back()->name, ": parameters numbered apart");
  if (entries.size() >= 4096) entries.clear();
  return entries.emplace(key, std::move(text)).first->second;
}

}  // namespace

void dumpShader(const char* backend, const std::string& source) {
  const char* on = std::getenv("GLINT_DUMP_SHADERS");
  if (!on || std::string(on) != "1") return;
  std::fprintf(stderr, "// ---- %s program (GLINT_DUMP_SHADERS)\n%s\n", backend, source.c_str());
}

std::string printCached(const Dialect& d, const Fn& f, std::vector<float>* params) {
  return printCached(d, std::vector<const Fn*>{&f}, params);
}

std::string printCached(const Dialect& d, const std::vector<const Fn*>& fns,
                        std::vector<float>* params) {
  return cached(d, fns, false, 0, params, [&](ParamList& p) { return print(d, fns, &p); });
}

std::string printBodyCached(const Dialect& d, const Fn& f, std::vector<float>* params, int indent) {
  return cached(d, {&f}, true, 1 + indent, params,
                [&](ParamList& p) { return printBody(d, f, &p, indent); });
}

std::string printBody(const Dialect& d, const Fn& f, ParamList* params, int indent) {
  std::string out;
  Printer(d, params).body(f, indent, out);
  return out;
}

std::string printExpr(const Dialect& d, const E& e, ParamList* params) {
  return Printer(d, params).expr(e).s;
}

}  // namespace glint::gpu
