#pragma once
// Limits on what loading a model may allocate. While a load builds a topology
// (a WeightBudgetScope is alive on this thread), Layer::addWeight charges each
// weight here before it is allocated, so a topology asking for a
// 10^12-element Dense fails with a glint::Error instead of exhausting memory.
#include <cstdint>
#include <string>

#include "glint/shape.h"

namespace glint::io::detail {

struct WeightBudget {
  int64_t maxTensorBytes = 0, maxTotalBytes = 0, used = 0;
  std::string source;
};

/// Makes `budget` the current thread's budget for its lifetime (nests).
class WeightBudgetScope {
 public:
  explicit WeightBudgetScope(WeightBudget& budget);
  ~WeightBudgetScope();
  WeightBudgetScope(const WeightBudgetScope&) = delete;
  WeightBudgetScope& operator=(const WeightBudgetScope&) = delete;

 private:
  WeightBudget* previous_;
};

/// Throws glint::Error when a float32 weight of `shape` would pass the current
/// budget's limits, else counts it. No budget in scope: does nothing.
void chargeWeight(const std::string& layer, const std::string& weight, const Shape& shape);

}  // namespace glint::io::detail
