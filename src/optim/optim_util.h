#pragma once
// Shared by the optimizer sources: argument checks and config helpers.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>

#include "glint/error.h"
#include "glint/json.h"

namespace glint::optim {

inline void checkPositive(const std::string& op, const char* arg, double v) {
  check(std::isfinite(v) && v > 0, op, arg, " must be a finite number > 0, got ", v);
}
inline void checkNonNegative(const std::string& op, const char* arg, double v) {
  check(std::isfinite(v) && v >= 0, op, arg, " must be a finite number >= 0, got ", v);
}
/// [0, 1): decay rates, betas, rho.
inline void checkUnitInterval(const std::string& op, const char* arg, double v) {
  check(std::isfinite(v) && v >= 0 && v < 1, op, arg, " must be in [0, 1), got ", v);
}

/// The shortest decimal that reads back as the same float, as a double:
/// configs then say 0.001 where TF.js does, not 0.0010000000474974513.
inline double cleanNumber(float f) {
  if (!std::isfinite(f)) return f;
  char buf[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return std::strtod(buf, nullptr);
}

/// The first of `keys` present and non-null in `config` (camelCase and
/// snake_case spellings of one setting).
inline const Json* findKey(const Json& config, std::initializer_list<const char*> keys) {
  if (!config.is_object()) return nullptr;
  for (const char* k : keys) {
    auto it = config.find(k);
    if (it != config.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

inline double numberOr(const std::string& op, const Json& config,
                       std::initializer_list<const char*> keys, double fallback) {
  const Json* v = findKey(config, keys);
  if (!v) return fallback;
  check(v->is_number(), op, "config key '", *keys.begin(), "' must be a number, got ", v->dump());
  return v->get<double>();
}

inline bool boolOr(const std::string& op, const Json& config,
                   std::initializer_list<const char*> keys, bool fallback) {
  const Json* v = findKey(config, keys);
  if (!v) return fallback;
  check(v->is_boolean(), op, "config key '", *keys.begin(), "' must be true or false, got ",
        v->dump());
  return v->get<bool>();
}

}  // namespace glint::optim
