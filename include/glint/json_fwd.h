#pragma once
// glint::Json named without defining it: enough for headers that only pass
// it by reference or return it (getConfig, io). glint/json.h defines it;
// nlohmann/json.hpp costs seconds per file that includes it.
#include <nlohmann/json_fwd.hpp>

namespace glint {
using Json = nlohmann::ordered_json;
}  // namespace glint
