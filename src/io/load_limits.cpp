// The per-thread weight budget of a model load (see load_limits.h).
#include "src/io/load_limits.h"

#include <limits>

#include "glint/error.h"
#include "src/io/io_util.h"

namespace glint::io::detail {

namespace {
thread_local WeightBudget* current = nullptr;
}  // namespace

WeightBudgetScope::WeightBudgetScope(WeightBudget& budget) : previous_(current) {
  current = &budget;
}
WeightBudgetScope::~WeightBudgetScope() { current = previous_; }

void chargeWeight(const std::string& layer, const std::string& weight, const Shape& shape) {
  WeightBudget* b = current;
  if (b == nullptr) return;
  const int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d != 0 && elements > kMax / d) elements = kMax;  // saturate: still over any limit
    else elements *= d;
  }
  for (int64_t d : shape)
    if (d == 0) elements = 0;
  int64_t bytes = elements * 4;
  check(bytes <= b->maxTensorBytes, "io.load", b->source, ": layer '", Quoted{layer},
        "' would create weight '", Quoted{weight}, "' of shape ", shapeToString(shape),
        ", more than LoadOptions.maxTensorBytes (", b->maxTensorBytes, " bytes)");
  check(bytes <= b->maxTotalBytes - b->used, "io.load", b->source, ": the topology's weights pass ",
        "LoadOptions.maxWeightBytes (", b->maxTotalBytes, " bytes) at layer '", Quoted{layer},
        "' weight '", Quoted{weight}, "' of shape ", shapeToString(shape));
  b->used += bytes;
}

}  // namespace glint::io::detail
