#pragma once
// The dataset pipeline's stages. A DatasetNode is an immutable stage shared
// by every Dataset built on it; open() starts an independent pass over it.
#include <memory>
#include <optional>

#include "glint/data.h"

namespace glint::data {

/// Cardinality: a count, or one of the two markers.
inline constexpr int64_t kInfinite = -1;
inline constexpr int64_t kUnknown = -2;

struct DatasetCursor {
  virtual ~DatasetCursor() = default;
  virtual std::optional<Example> next() = 0;
};

struct DatasetNode {
  virtual ~DatasetNode() = default;
  virtual std::unique_ptr<DatasetCursor> open() const = 0;
  /// Element count, kInfinite or kUnknown.
  virtual int64_t cardinality() const = 0;
};

}  // namespace glint::data
