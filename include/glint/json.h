#pragma once
// JSON for configs (layers, optimizers, initializers) and the model format:
// nlohmann::json, ordered so saved files keep Keras's key order.
#include <nlohmann/json.hpp>

namespace glint {
using Json = nlohmann::ordered_json;
}  // namespace glint
