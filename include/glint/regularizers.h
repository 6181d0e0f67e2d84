#pragma once
// Weight regularizers (penalties added to the loss) and constraints
// (projections applied after each optimizer step), with TF.js serialization:
// {"class_name": "L1L2", "config": {"l1": 0.01, "l2": 0}},
// {"class_name": "MaxNorm", "config": {"max_value": 2, "axis": 0}}.
#include <memory>
#include <string>

#include "glint/config.h"
#include "glint/json_fwd.h"
#include "glint/tensor.h"

namespace glint {

class Regularizer {
 public:
  virtual ~Regularizer();
  /// The penalty, a float32 scalar (differentiable in `weights`).
  virtual Tensor apply(const Tensor& weights) const = 0;
  virtual std::string className() const = 0;
  virtual Json getConfig() const = 0;
};

namespace regularizers {
/// sum(l1 |w|) + sum(l2 w^2).
std::shared_ptr<Regularizer> l1l2(double l1 = 0.01, double l2 = 0.01);
std::shared_ptr<Regularizer> l1(double l1 = 0.01);
std::shared_ptr<Regularizer> l2(double l2 = 0.01);
Json serialize(const Regularizer& regularizer);
/// From {"class_name": "L1L2", "config": {...}}; unknown classes throw.
std::shared_ptr<Regularizer> fromConfig(const Config& classNameAndConfig);
/// "l1l2" / "L1L2" (defaults 0.01, 0.01), "l1", "l2".
std::shared_ptr<Regularizer> get(const std::string& name);
}  // namespace regularizers

class Constraint {
 public:
  virtual ~Constraint();
  /// The projected weights, same shape.
  virtual Tensor apply(const Tensor& weights) const = 0;
  virtual std::string className() const = 0;
  virtual Json getConfig() const = 0;
};

namespace constraints {
/// Scales slices along `axis` (norms reduced over it) whose L2 norm exceeds maxValue.
std::shared_ptr<Constraint> maxNorm(double maxValue = 2.0, int axis = 0);
/// max(w, 0).
std::shared_ptr<Constraint> nonNeg();
/// w / (1e-7 + ||w||) over `axis`.
std::shared_ptr<Constraint> unitNorm(int axis = 0);
/// Norms pulled into [minValue, maxValue] at `rate` (1 = fully).
std::shared_ptr<Constraint> minMaxNorm(double minValue = 0.0, double maxValue = 1.0,
                                       double rate = 1.0, int axis = 0);
Json serialize(const Constraint& constraint);
/// From {"class_name": "MaxNorm", "config": {...}}; keys snake_case or camelCase.
std::shared_ptr<Constraint> fromConfig(const Config& classNameAndConfig);
/// "maxNorm" / "max_norm" / "MaxNorm", "nonNeg", "unitNorm", "minMaxNorm" with defaults.
std::shared_ptr<Constraint> get(const std::string& name);
}  // namespace constraints

}  // namespace glint
