// Weight regularizers (TF.js's L1L2), written with ops.
#include "glint/regularizers.h"

#include <cctype>
#include <cmath>

#include "glint/json.h"
#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

Regularizer::~Regularizer() = default;

namespace regularizers {

namespace {

class L1L2 : public Regularizer {
 public:
  L1L2(double l1, double l2) : l1_(l1), l2_(l2) {
    check(std::isfinite(l1) && std::isfinite(l2) && l1 >= 0 && l2 >= 0, "regularizers",
          "L1L2: l1 and l2 must be finite and >= 0, got l1 ", l1, ", l2 ", l2);
  }
  Tensor apply(const Tensor& w) const override {
    ops::checkDType("regularizers", "weights", w, {DType::float32});
    Tensor penalty = scalar(0.0f);
    if (l1_ != 0) penalty = add(penalty, mul(sum(abs(w)), scalar(static_cast<float>(l1_))));
    if (l2_ != 0) penalty = add(penalty, mul(sum(square(w)), scalar(static_cast<float>(l2_))));
    return penalty;
  }
  std::string className() const override { return "L1L2"; }
  Json getConfig() const override { return Json{{"l1", l1_}, {"l2", l2_}}; }

 private:
  double l1_, l2_;
};

double number(const Json& c, const char* k, double fallback) {
  if (!c.contains(k) || c[k].is_null()) return fallback;
  check(c[k].is_number(), "regularizers", "L1L2: config '", k, "' must be a number, got ",
        c[k].dump());
  return c[k].get<double>();
}

std::string key(const std::string& name) {
  std::string k;
  for (char c : name)
    if (c != '_') k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

}  // namespace

std::shared_ptr<Regularizer> l1l2(double l1, double l2) { return std::make_shared<L1L2>(l1, l2); }
std::shared_ptr<Regularizer> l1(double v) { return std::make_shared<L1L2>(v, 0.0); }
std::shared_ptr<Regularizer> l2(double v) { return std::make_shared<L1L2>(0.0, v); }

Json serialize(const Regularizer& r) {
  return Json{{"class_name", r.className()}, {"config", r.getConfig()}};
}

std::shared_ptr<Regularizer> fromConfig(const Config& config) {
  const Json& j = config;
  check(j.is_object(), "regularizers",
        "fromConfig expects {\"class_name\": ..., \"config\": {...}}, got ", j.dump());
  std::string cls;
  for (const char* k : {"class_name", "className"})
    if (j.contains(k) && j[k].is_string()) cls = j[k].get<std::string>();
  check(!cls.empty(), "regularizers", "fromConfig: missing string 'class_name' in ", j.dump());
  Json c = j.contains("config") && j["config"].is_object() ? j["config"] : Json::object();
  // Keras 3 writes L1 and L2 as classes of their own.
  if (key(cls) == "l1") return l1(number(c, "l1", 0.01));
  if (key(cls) == "l2") return l2(number(c, "l2", 0.01));
  check(key(cls) == "l1l2", "regularizers", "unknown regularizer '", cls, "'; known: L1L2, L1, L2");
  return l1l2(number(c, "l1", 0.01), number(c, "l2", 0.01));
}

std::shared_ptr<Regularizer> get(const std::string& name) {
  std::string k = key(name);
  if (k == "l1") return l1();
  if (k == "l2") return l2();
  check(k == "l1l2", "regularizers", "unknown regularizer '", name,
        "'; known: l1, l2, l1l2 (L1L2)");
  return l1l2();
}

}  // namespace regularizers
}  // namespace glint
